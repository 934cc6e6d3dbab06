"""The client's failures. Every server call that fails raises one of these, never an httpx2 error:

    RemoteError
     +-- ServerError        a call failed: `phase` (where), `status`, `code` (the server's), `details`
     +-- SessionReconciled  the server's history differed; the local tree now mirrors the server's
     +-- SyncFailed         a flush failed; the reply it carried was detached (see `RemoteSession.flush`)

Only a `ServerError` whose phase is `provider_stream` is worth retrying the model call for.
"""

from __future__ import annotations

from collections.abc import Mapping

from rein.protocol import Phase
from rein.session.errors import SessionSyncError


class RemoteError(Exception):
    """Base of the session client's errors."""


class ServerError(RemoteError):
    """A server call failed in `phase`. `status` is the HTTP status (None: no answer at all), `code`
    the server's error code when its body named one, `details` its `details` object."""

    def __init__(
        self,
        phase: Phase,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        details: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(f"server ({phase}): {message}")
        self.phase: Phase = phase
        self.status = status
        self.code = code
        self.details: Mapping[str, object] = details or {}

    @property
    def retryable(self) -> bool:
        return self.phase == "provider_stream"


class SessionReconciled(RemoteError, SessionSyncError):
    """The server's tree was not an extension of the local one: the local session was replaced by the
    server's (authoritative) history, and the operation that found it out stopped."""

    stops_run = True

    def __init__(self) -> None:
        super().__init__("the server's history differed; the local session was reconciled to it")


class SyncFailed(RemoteError, SessionSyncError):
    """A flush failed after the server may have missed the newest entries; `cause` says why. A reply
    that was not yet on the server was detached from the active branch (it stays in the tree); the
    next flush uploads it, without a second model call."""

    def __init__(self, cause: ServerError, detached: str | None) -> None:
        what = f"; reply {detached} was detached from the branch" if detached else ""
        super().__init__(f"the session could not be saved on the server ({cause}){what}")
        self.cause = cause
        self.detached = detached
