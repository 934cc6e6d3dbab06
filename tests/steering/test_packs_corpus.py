"""The packs' corpus: every case in `tests/steering/corpus/packs/<pack>.jsonl` through the engine with
rein's defaults (every pack at its default verdict), from a repo on a feature branch.

One JSON object per line: `command`, `expect` (`block`, `ask` or `allow`), `rule` (the rule that must
decide a block or an ask) and `why`. Block cases come through wrappers, runners, interpreters,
heredocs and SQL spellings; allow cases are the look-alikes: read-only and dry-run forms, the same
words in grep, echo and commit messages. `bench/steering_peers.py` runs the same cases through a peer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rein.steering._packs import default_packs
from tests.steering.conftest import Check
from tests.steering.test_corpus import Case, read_cases

CORPUS = Path(__file__).parent / "corpus" / "packs"
KEYS = {"command", "expect", "rule", "why"}


def load() -> list[Case]:
    return [case for path in sorted(CORPUS.glob("*.jsonl")) for case in read_cases(path)]


CASES = load()


def test_every_pack_has_a_corpus_and_every_line_is_well_formed() -> None:
    assert sorted(path.stem for path in CORPUS.glob("*.jsonl")) == sorted(p.name for p in default_packs())
    rules = {rule.name for pack in default_packs() for rule in pack.rules}
    for case in CASES:
        where = case.id
        assert case.expect in ("block", "ask", "allow"), where
        assert case.why.strip(), where
        assert (case.rule is None) == (case.expect == "allow"), where
    raws = [json.loads(t) for p in CORPUS.glob("*.jsonl") for t in p.read_text().splitlines() if t.strip()]
    assert all(set(raw) <= KEYS for raw in raws)
    commands = [case.command for case in CASES]
    assert len(commands) == len(set(commands)), "a command appears twice"
    decided = {case.rule for case in CASES if case.rule is not None}
    assert rules <= decided, f"rules no case decides: {sorted(rules - decided)}"


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_case(check: Check, case: Case) -> None:
    verdict = check(case.command)
    shown = f"{case.command!r} ({case.why}): {verdict.reason or 'allowed'}"
    if case.expect == "allow":
        assert verdict.allow, f"false block of {shown}"
        return
    assert not verdict.allow, f"false allow of {shown}"
    assert verdict.rule == case.rule, f"expected {case.rule}, got {verdict.rule} for {shown}"
    assert verdict.ask == (case.expect == "ask"), f"expected {case.expect} for {shown}"
