"""The session store: an append-only JSONL session tree, and the model's context built from it.

A session file is a header line, then one line per entry (`id`, `parent_id`, `timestamp`, kind
fields). Entries form a tree; the leaf is where the next append hangs. Branching moves the leaf
(persisted as a `leaf` record); nothing is ever deleted, and compaction is branch-local. pi's session
files (v3, and v1/v2 read-only or migrated in memory) open as they are.

    Session.create(cwd, home=home)            a new session file under home/.rein/sessions/<slug>/
    Session.continue_recent(cwd, home=home)   the latest session of cwd, or a new one   (--continue)
    Session.open(path)                        any session file, rein's or pi's             (--resume)
    find_session(home, cwd, "3f2a")           the file a path, an id or an id's start names (--resume)
    session.append_message({...}) -> id       and append_custom, append_compaction, ... ; append(entry)
    session.branch(entry_id)                  move the leaf
    fork_session(session, home=home)          a new file with the active path (/fork)
    session.context(transient=[...])          -> SessionContext (messages, model, custom entries)
    session.warnings                          torn or corrupt lines stepped over on open
    session.sync()                            fsync (hosts call it at turn boundaries)
    session.require_writable()                ReadOnlySessionError for a file rein only reads
    list_sessions(home, cwd) / list_all_sessions(home)   -> [SessionInfo], newest first (rein sessions)

Entries as JSON objects, in either dialect (`REIN_KEYS` for rein's files, `PI_KEYS` for pi's files and
for the session server's wire): `decode_entry(raw, PI_KEYS)` (raises `Malformed` naming the field),
`decode_or_unknown` (keeps what it cannot read as an `UnknownEntry`), `encode_entry(entry, PI_KEYS)`.

A write that fails (disk full, read-only file system, ...) raises `SessionWriteError` naming the file;
the file keeps every whole line written before it, and the session refuses every later write.

The `rein.ai` boundary: message payloads stay JSON mappings in the store (`JsonObject`, pi's message
shape); `SessionContext.convert(fn)` maps each `ContextMessage` to the caller's message type. The store
modules import nothing from `rein.ai`; `AgentSession` (the loop, the store and the extensions joined)
does.
"""

from __future__ import annotations

from rein.session._agent._drive import custom_text
from rein.session._agent_session import AgentSession
from rein.session._codec import REIN_KEYS, Keys, Malformed, decode_entry, decode_or_unknown, encode_entry
from rein.session._context import (
    BRANCH_PREFIX,
    COMPACTION_PREFIX,
    SUMMARY_SUFFIX,
    ContextKind,
    ContextMessage,
    SessionContext,
    build_context,
    message_text,
)
from rein.session._convert import to_agent_message
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
    ModelRef,
    SessionHeader,
    ThinkingLevelChangeEntry,
    UnknownEntry,
)
from rein.session._file import LoadWarning, WarningKind
from rein.session._find import SessionNotFound, find_session
from rein.session._fork import fork_session
from rein.session._list import SessionInfo, list_all_sessions, list_sessions
from rein.session._paths import SESSIONS_DIR, cwd_slug, find_latest_session, session_file_name, sessions_dir
from rein.session._pi import PI_KEYS
from rein.session._session import Session, timestamp
from rein.session._tree import SessionTree, TreeView
from rein.session.errors import (
    DuplicateEntryError,
    EntryEncodingError,
    ReadOnlySessionError,
    SessionError,
    SessionFormatError,
    SessionWriteError,
    UnknownEntryError,
)

__all__ = [
    "BRANCH_PREFIX",
    "COMPACTION_PREFIX",
    "PI_KEYS",
    "REIN_KEYS",
    "SESSIONS_DIR",
    "SUMMARY_SUFFIX",
    "AgentSession",
    "BranchSummaryEntry",
    "CompactionEntry",
    "Content",
    "ContextKind",
    "ContextMessage",
    "CustomEntry",
    "CustomMessageEntry",
    "DuplicateEntryError",
    "Entry",
    "EntryEncodingError",
    "JsonObject",
    "Keys",
    "LabelEntry",
    "LoadWarning",
    "Malformed",
    "MessageEntry",
    "ModelChangeEntry",
    "ModelRef",
    "ReadOnlySessionError",
    "Session",
    "SessionContext",
    "SessionError",
    "SessionFormatError",
    "SessionHeader",
    "SessionInfo",
    "SessionNotFound",
    "SessionTree",
    "SessionWriteError",
    "ThinkingLevelChangeEntry",
    "TreeView",
    "UnknownEntry",
    "UnknownEntryError",
    "WarningKind",
    "build_context",
    "custom_text",
    "cwd_slug",
    "decode_entry",
    "decode_or_unknown",
    "encode_entry",
    "find_latest_session",
    "find_session",
    "fork_session",
    "list_all_sessions",
    "list_sessions",
    "message_text",
    "session_file_name",
    "sessions_dir",
    "timestamp",
    "to_agent_message",
]
