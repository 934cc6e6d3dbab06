"""What a session write wants: the service's planners (`Plan` from the session as it is) and the
small pieces they share: a session not stored yet, a changed static context, legacy messages
wrapped as entries."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from rein.protocol import EMPTY_TREE_HASH, js_json, static_context_hash
from rein.server._errors import ProtocolError
from rein.server._view import Entry, SessionView
from rein.server.store import SessionRow


@dataclass(frozen=True, slots=True)
class Plan:
    """What a write wants, given the session as it is: its new entries, leaf and static context."""

    leaf_id: str | None
    """The leaf after the write (None: before the first entry)."""
    append: Sequence[Entry] = ()
    static_context: Mapping[str, object] | None = None
    replace: bool = False
    tree: bool = True
    """False when only the static context changes: the revision stays (the fork counts tree writes)."""


Planner = Callable[[SessionView], Plan | None]
"""Decides a write from the current view (None: nothing to do); raises ProtocolError to refuse it."""


def now_ms() -> int:
    return int(time.time() * 1000)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def context_hash(context: Mapping[str, object] | None) -> str:
    if context is None:
        return ""
    prompt, tools = context.get("systemPrompt"), context.get("tools")
    return static_context_hash(
        prompt if isinstance(prompt, str) else None, tools if isinstance(tools, list) else None
    )


def leaf_error(leaf_id: str) -> ProtocolError:
    return ProtocolError(
        400, "LEAF_ID_NOT_FOUND", f"leafId {leaf_id} does not exist in session tree", {"leafId": leaf_id}
    )


def new_view(owner: str, sid: str) -> SessionView:
    """A session not stored yet, as its first write plans from it (and `commit_as` creates it)."""
    now = now_ms()
    row = SessionRow(
        owner=owner,
        session_id=sid,
        static_context=None,
        static_context_hash="",
        leaf_id=None,
        revision=0,
        entry_count=0,
        tree_hash=EMPTY_TREE_HASH,
        created_ms=now,
        updated_ms=now,
    )
    return SessionView(row=row, entries=[], static_context=None, hashes=[EMPTY_TREE_HASH], index={})


def context_plan(static_context: dict[str, object] | None) -> Planner:
    def plan(view: SessionView) -> Plan | None:
        context = changed_context(view, static_context)
        return None if context is None else Plan(leaf_id=view.row.leaf_id, static_context=context, tree=False)

    return plan


def changed_context(view: SessionView, context: dict[str, object] | None) -> dict[str, object] | None:
    """`context` if it would change the session's static context, else None (nothing to write)."""
    if context is None or (
        view.static_context is not None and js_json(view.static_context) == js_json(context)
    ):
        return None
    return context


def wrap(messages: Sequence[Entry], parent: str | None) -> list[Entry]:
    wrapped: list[Entry] = []
    for message in messages:
        stamp = message.get("timestamp")
        ms = int(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else now_ms()
        entry: Entry = {
            "type": "message",
            "id": str(uuid.uuid4()),
            "parentId": parent,
            "timestamp": iso(ms),
            "message": message,
        }
        wrapped.append(entry)
        parent = str(entry["id"])
    return wrapped
