"""Errors of the session store.

    SessionError
     ├── SessionFormatError    a file that is not a session at all (no header line); names the file
     ├── DuplicateEntryError   an append reuses an entry id with different content
     ├── UnknownEntryError     a parent, leaf target or label target that is not in the tree
     ├── EntryEncodingError    an entry rein cannot write (payload not JSON, NaN, a read-only kind)
     ├── ReadOnlySessionError  an append to a file rein reads but does not write (pi v1, a newer format)
     └── SessionWriteError     the file cannot be written (disk full, read-only, gone): the session stops

Damage inside an otherwise valid file (a torn last line, a corrupt line, an orphan, a malformed entry)
is not an error: the loader skips or keeps it and reports a `LoadWarning` value the host can show.
Reading failures (`OSError` from `open`) pass through unchanged. A failed write is a `SessionWriteError`
naming the file: the store truncates the file back to its last whole line, keeps the error, and
refuses every later write with it, so nothing after the failure is half-saved.
"""

from __future__ import annotations


class SessionError(Exception):
    """Base of every error the session store raises on purpose."""


class SessionFormatError(SessionError):
    """The file has no session header on its first line. The message names the file and the fix."""


class DuplicateEntryError(SessionError):
    """An append reused an existing id with different content (identical re-appends are no-ops)."""


class UnknownEntryError(SessionError):
    """An id that should name an entry of this session does not."""


class EntryEncodingError(SessionError):
    """The entry cannot be written as one JSON line that reads back as the same entry."""


class ReadOnlySessionError(SessionError):
    """The session file is read, not written: an old pi (v1) file or a newer format than rein knows."""


class SessionWriteError(SessionError):
    """Writing the session file failed (`OSError`: no space, read-only file system, permission, ...).

    `str()` is the one line a host prints: `cannot save the session to <file>: <reason>; the session
    stops here (<what is saved>)`. The entries written before the failure are on disk, whole.
    """

    def __init__(self, path: str, reason: str, *, saved: str = "entries before this turn are saved") -> None:
        self.path = path
        self.reason = reason
        self.saved = saved
        super().__init__(f"cannot save the session to {path}: {reason}; the session stops here ({saved})")

    @classmethod
    def from_os_error(cls, path: str, error: OSError, *, saved: str | None = None) -> SessionWriteError:
        """The error for `error` (its text without the errno and file name, which the message has)."""
        reason = error.strerror or str(error) or type(error).__name__
        return cls(path, reason) if saved is None else cls(path, reason, saved=saved)


class SessionSyncError(SessionError):
    """A session kept on a server could not be synced with it. `stops_run` when the server's history
    differed and the local session was replaced by it: the run must stop, as the server is
    authoritative; otherwise the next sync recovers and the run goes on."""

    stops_run: bool = False
