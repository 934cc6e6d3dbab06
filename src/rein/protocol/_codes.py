"""The error codes a server answers with and the phases a client's call fails in, and what each group
of codes asks of the client."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

ErrorCode: TypeAlias = Literal[
    "SESSION_NOT_FOUND", "SESSION_NO_STATIC_CONTEXT", "PARENT_ENTRY_NOT_FOUND", "LEAF_ID_NOT_FOUND",
    "ENTRY_ALREADY_EXISTS", "INVALID_REQUEST", "REQUIRED_FIELD_MISSING", "RUN_NOT_FOUND",
    "RUN_IN_PROGRESS", "INTERNAL_ERROR", "UNAUTHORIZED", "RATE_LIMITED", "REQUEST_TOO_LARGE",
    "WRITER_FENCED",
]  # fmt: skip
"""The fork's codes, and rein's own for what the fork does not check (auth, limits, leases)."""

DIVERGENCE_CODES: Final[frozenset[str]] = frozenset(
    {"PARENT_ENTRY_NOT_FOUND", "LEAF_ID_NOT_FOUND", "ENTRY_ALREADY_EXISTS"}
)
"""An append or switch refused because the server's tree is not the client's: reconcile from history."""
LOST_CODES: Final[frozenset[str]] = frozenset({"SESSION_NOT_FOUND", "SESSION_NO_STATIC_CONTEXT"})
"""The server lost or never had the session (a restart, another server): init again, then retry once."""
MISSING_STATE_CODES: Final[frozenset[str]] = DIVERGENCE_CODES | LOST_CODES
"""The server's state is not the client's: the tree diverged, or the session is gone."""

Phase: TypeAlias = Literal["session_init", "tree_sync", "provider_stream", "history_reconcile", "compact"]
"""Where a server call failed. Only `provider_stream` failures enter the model retry logic."""
