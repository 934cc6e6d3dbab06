"""The error code groups name only codes the protocol declares, and each code asks one thing of the
client: reconcile (the trees diverged) or init again (the session is gone)."""

from __future__ import annotations

from typing import get_args

from rein.protocol import DIVERGENCE_CODES, LOST_CODES, MISSING_STATE_CODES, ErrorCode


def test_every_grouped_code_is_a_declared_code() -> None:
    assert set(get_args(ErrorCode)) >= MISSING_STATE_CODES


def test_a_code_asks_to_reconcile_or_to_init_again_never_both() -> None:
    assert not DIVERGENCE_CODES & LOST_CODES
    assert DIVERGENCE_CODES | LOST_CODES == MISSING_STATE_CODES
    assert {"SESSION_NOT_FOUND", "SESSION_NO_STATIC_CONTEXT"} == LOST_CODES
