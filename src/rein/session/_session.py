"""`Session`: a session tree joined to its file. Every change is one appended line, written before
the tree changes, so memory never holds what the file does not. A write that fails stops the session:
the file keeps every whole line written before it, and every later write raises the same error."""

from __future__ import annotations

import json
import os
import secrets
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from rein.session._codec import (
    LEAF,
    REIN_KEYS,
    REIN_VERSION,
    Keys,
    Malformed,
    decode_entry,
    encode_entry,
    encode_header,
)
from rein.session._context import SessionContext, build_context
from rein.session._entries import (
    BranchSummaryEntry,
    CompactionEntry,
    Content,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    JsonObject,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionHeader,
    ThinkingLevelChangeEntry,
)
from rein.session._file import LoadWarning, append_line, create_file, dump_line, sync_file
from rein.session._load import load
from rein.session._paths import find_latest_session, session_file_name, sessions_dir
from rein.session._pi import PI_VERSION
from rein.session._tree import SessionTree, TreeView
from rein.session.errors import (
    EntryEncodingError,
    ReadOnlySessionError,
    SessionWriteError,
    UnknownEntryError,
)


def timestamp(moment: datetime | None = None) -> str:
    """ISO-8601 UTC with milliseconds and `Z`, as pi writes (`2026-01-24T16:22:26.831Z`)."""
    moment = (moment or datetime.now(UTC)).astimezone(UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Session:
    """An open session. Build one with `create`, `open`, `continue_recent` or `in_memory`.

    Appends go to the file first (one write of a whole line each, fsync'd if `fsync`; else `sync`
    makes them durable, which hosts call at turn boundaries), then to the tree. A write that fails
    raises `SessionWriteError` naming the file, leaves the tree and the file as they were, and breaks
    the session: every later write raises it again (`write_error`). Appending an entry identical to
    one already in the session is a no-op (`append` returns False); the same id with other content
    raises `DuplicateEntryError`.
    Entries are written in the file's dialect (rein's own, or pi's for a pi file). `branch` persists
    the leaf move as a leaf record in rein files; pi files have none, so there the move reaches the file
    with the next append (whose parent id records it), as in pi.
    """

    def __init__(
        self,
        *,
        header: SessionHeader,
        tree: SessionTree,
        path: Path | None,
        keys: Keys = REIN_KEYS,
        writable: bool = True,
        fsync: bool = False,
        warnings: Sequence[LoadWarning] = (),
    ) -> None:
        self._header, self._tree, self._path, self._keys = header, tree, path, keys
        self._writable, self._fsync, self._warnings = writable, fsync, tuple(warnings)
        self._failure: SessionWriteError | None = None
        self._unsynced_name = False  # created without fsync: the directory entry is not durable yet

    @classmethod
    def create(
        cls,
        cwd: str | os.PathLike[str],
        *,
        home: Path,
        parent_session: str | None = None,
        fsync: bool = False,
        now: datetime | None = None,
    ) -> Session:
        """A new session of `cwd` under `home/.rein/sessions/`; its header is written at once.

        Raises `SessionWriteError` if the file cannot be created (read-only or full file system).
        """
        created = (now or datetime.now(UTC)).astimezone(UTC)
        session_id = str(uuid.uuid4())
        header = SessionHeader(
            id=session_id, timestamp=timestamp(created), cwd=os.fspath(cwd), parent_session=parent_session
        )
        path = sessions_dir(home, cwd) / session_file_name(session_id, created)
        try:
            create_file(path, dump_line(encode_header(header)), fsync=fsync)
        except FileExistsError:
            raise
        except OSError as error:
            raise SessionWriteError.from_os_error(str(path), error, saved="nothing was saved") from error
        session = cls(header=header, tree=SessionTree(), path=path, fsync=fsync)
        session._unsynced_name = not fsync
        return session

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, fsync: bool = False) -> Session:
        """The session in `path` (`--resume FILE`), rein's or pi's. Damage is reported in `warnings`.

        Raises `SessionFormatError` for a file without a session header, `OSError` if unreadable.
        """
        loaded = load(Path(path))
        return cls(
            header=loaded.header,
            tree=loaded.tree,
            path=Path(path),
            keys=loaded.keys,
            writable=loaded.writable,
            fsync=fsync,
            warnings=loaded.warnings,
        )

    @classmethod
    def continue_recent(cls, cwd: str | os.PathLike[str], *, home: Path, fsync: bool = False) -> Session:
        """The most recent session of `cwd` (`--continue`), or a new one if it has none."""
        latest = find_latest_session(home, cwd)
        if latest is None:
            return cls.create(cwd, home=home, fsync=fsync)
        return cls.open(latest, fsync=fsync)

    @classmethod
    def in_memory(cls, cwd: str | os.PathLike[str] = "") -> Session:
        """A session that writes nothing (tests, print mode without persistence)."""
        header = SessionHeader(id=str(uuid.uuid4()), timestamp=timestamp(), cwd=os.fspath(cwd))
        return cls(header=header, tree=SessionTree(), path=None)

    @property
    def header(self) -> SessionHeader:
        return self._header

    @property
    def id(self) -> str:
        return self._header.id

    @property
    def path(self) -> Path | None:
        """The session file; None for an in-memory session."""
        return self._path

    @property
    def writable(self) -> bool:
        """False for files rein only reads (pi v1, newer formats); appends then raise."""
        return self._writable

    def require_writable(self) -> None:
        """Raise `ReadOnlySessionError` (naming the file and why) unless appends can be written: a
        host that will append calls this before its run starts, so nothing is lost to a read-only file."""
        if not self._writable:
            raise ReadOnlySessionError(self._read_only_reason())

    def _read_only_reason(self) -> str:
        version = self._header.version
        if self._header.format == "rein":
            made = f"written by a newer rein (session format {version}; this rein writes {REIN_VERSION})"
        elif version > PI_VERSION:
            made = f"written by a newer pi (session format {version}; rein writes 2 to {PI_VERSION})"
        else:
            made = f"a pi session of format {version}, whose entries have no ids to append to"
        fix = "upgrade rein, or start a new session"
        return f"{self._path}: {made}: rein reads it but cannot continue it; {fix}"

    @property
    def write_error(self) -> SessionWriteError | None:
        """The write that failed, if one did: the session then writes nothing more."""
        return self._failure

    @property
    def warnings(self) -> tuple[LoadWarning, ...]:
        """What `open` stepped over (torn last line, corrupt lines, ...), for the host to show."""
        return self._warnings

    @property
    def tree(self) -> TreeView:
        return self._tree

    @property
    def leaf_id(self) -> str | None:
        return self._tree.leaf_id

    def context(self, *, transient: Sequence[JsonObject] = ()) -> SessionContext:
        """The model's context at the leaf, with `transient` messages (never persisted) at the end."""
        return build_context(self._tree.active_path(), transient=transient)

    def new_id(self) -> str:
        """A fresh entry id: 8 hex characters, unused in this session (pi's form)."""
        while True:
            candidate = secrets.token_hex(4)
            if candidate not in self._tree:
                return candidate

    def append(self, entry: Entry) -> bool:
        """Append a caller-built `entry` (its parent must exist); the leaf moves to it.

        Returns False, changing nothing (not even the leaf), when an identical entry is already there:
        build an entry once (id, timestamp) and a retry may append it again safely. Raises
        `DuplicateEntryError` (same id, other content), `UnknownEntryError` (parent or label target),
        `EntryEncodingError` (not JSON), `ReadOnlySessionError`, `SessionWriteError` (the file cannot be
        written; the session is broken from then on); nothing is written when it raises.
        """
        if not self._writable:
            raise ReadOnlySessionError(self._read_only_reason())
        try:
            line = dump_line(encode_entry(entry, self._keys))
            line.encode("utf-8")
            # The tree holds what a reload would read, so memory and file never disagree.
            canonical = decode_entry(json.loads(line), self._keys)
        except (Malformed, ValueError, TypeError) as error:
            raise EntryEncodingError(
                f"entry {entry.id!r} ({entry.type}) cannot be written: {error}"
            ) from error
        if not self._tree.check(canonical):
            return False
        self._write(line)
        self._tree.insert(canonical)
        return True

    def branch(self, entry_id: str | None) -> None:
        """Move the leaf to `entry_id` (None: before the first entry); the next append hangs off it."""
        if entry_id is not None and entry_id not in self._tree:
            raise UnknownEntryError(f"cannot branch to {entry_id!r}: no such entry in this session")
        if entry_id == self._tree.leaf_id:
            return
        if self._path is not None and self._writable and self._header.format == "rein":
            record = {"type": LEAF, self._keys.target_id: entry_id, "timestamp": timestamp()}
            self._write(dump_line(record))
        self._tree.move_leaf(entry_id)

    def sync(self) -> None:
        """Make every write so far durable (fsync the file, and its directory once for a new file).
        Hosts call it at turn boundaries. Raises `SessionWriteError` like a failed append."""
        if self._path is None or not self._writable:
            return
        self._check_broken()
        try:
            sync_file(self._path, directory=self._unsynced_name)
        except OSError as error:
            self._failure = SessionWriteError.from_os_error(str(self._path), error)
            raise self._failure from error
        self._unsynced_name = False

    async def flush(self) -> None:
        """Send what this store holds to where it is kept beyond this machine. A local file has
        nowhere else to go (`sync` made it durable); a session on a server syncs its new entries there
        (`rein.session.remote.RemoteSession`). Hosts call it at turn boundaries, after `sync`."""

    def _write(self, line: str) -> None:
        if self._path is None:
            return
        self._check_broken()
        try:
            append_line(self._path, line, fsync=self._fsync)
        except OSError as error:
            self._failure = SessionWriteError.from_os_error(str(self._path), error)
            raise self._failure from error

    def _check_broken(self) -> None:
        failed = self._failure
        if failed is not None:  # a fresh error each time: re-raising one would grow its traceback
            raise SessionWriteError(failed.path, failed.reason, saved=failed.saved)

    def _base(self) -> tuple[str, str | None, str]:
        return self.new_id(), self._tree.leaf_id, timestamp()

    def append_message(self, message: JsonObject) -> str:
        """Append a message at the leaf; returns its id. The builders below work the same way."""
        entry_id, parent, ts = self._base()
        self.append(MessageEntry(id=entry_id, parent_id=parent, timestamp=ts, message=message))
        return entry_id

    def append_custom(self, custom_type: str, data: object = None) -> str:
        entry_id, parent, ts = self._base()
        self.append(
            CustomEntry(id=entry_id, parent_id=parent, timestamp=ts, custom_type=custom_type, data=data)
        )
        return entry_id

    def append_custom_message(
        self, custom_type: str, content: Content, *, display: bool, details: object = None
    ) -> str:
        entry_id, parent, ts = self._base()
        entry = CustomMessageEntry(
            id=entry_id,
            parent_id=parent,
            timestamp=ts,
            custom_type=custom_type,
            content=content,
            display=display,
            details=details,
        )
        self.append(entry)
        return entry_id

    def append_compaction(
        self, summary: str, first_kept_entry_id: str, tokens_before: int, *, details: object = None
    ) -> str:
        entry_id, parent, ts = self._base()
        entry = CompactionEntry(
            id=entry_id,
            parent_id=parent,
            timestamp=ts,
            summary=summary,
            first_kept_entry_id=first_kept_entry_id,
            tokens_before=tokens_before,
            details=details,
        )
        self.append(entry)
        return entry_id

    def append_branch_summary(self, from_id: str, summary: str, *, details: object = None) -> str:
        """Append a summary of the branch left at `from_id`, at the (already moved) leaf."""
        entry_id, parent, ts = self._base()
        entry = BranchSummaryEntry(
            id=entry_id, parent_id=parent, timestamp=ts, from_id=from_id, summary=summary, details=details
        )
        self.append(entry)
        return entry_id

    def append_model_change(self, provider: str, model_id: str) -> str:
        entry_id, parent, ts = self._base()
        entry = ModelChangeEntry(
            id=entry_id, parent_id=parent, timestamp=ts, provider=provider, model_id=model_id
        )
        self.append(entry)
        return entry_id

    def append_thinking_level(self, thinking_level: str) -> str:
        entry_id, parent, ts = self._base()
        entry = ThinkingLevelChangeEntry(
            id=entry_id, parent_id=parent, timestamp=ts, thinking_level=thinking_level
        )
        self.append(entry)
        return entry_id

    def append_label(self, target_id: str, label: str | None) -> str:
        """Set (or, with None, clear) the label of `target_id`."""
        entry_id, parent, ts = self._base()
        self.append(LabelEntry(id=entry_id, parent_id=parent, timestamp=ts, target_id=target_id, label=label))
        return entry_id

    def __repr__(self) -> str:
        return (
            f"Session(id={self.id!r}, path={self._path!s}, entries={len(self._tree)}, leaf={self.leaf_id!r})"
        )
