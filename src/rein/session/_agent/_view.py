"""The extensions' view of the session (`SessionView`): the active branch's messages, cached per leaf.

Extensions ask on every tool call (a budget counts turns, a rule reads the history), and the leaf moves
with every append or branch move, so the store and its leaf are the cache key: a store switched for
another is never read from the old one's cache.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rein.agent import AgentMessage
from rein.ai import UserMessage
from rein.session._context import SessionContext, build_context
from rein.session._convert import to_agent_message, view_messages
from rein.session._entries import MessageEntry
from rein.session._session import Session


class BranchView:
    def __init__(self, store: Callable[[], Session]) -> None:
        self._store = store
        self._context: tuple[Session, str | None, SessionContext, list[AgentMessage], int] | None = None
        self._branch: tuple[Session, str | None, list[AgentMessage]] | None = None

    def _current(self) -> tuple[SessionContext, list[AgentMessage], int]:
        store = self._store()
        cached = self._context
        if cached is None or cached[0] is not store or cached[1] != store.leaf_id:
            context = store.context()
            messages, usage_from = view_messages(store.tree.active_path(), context)
            cached = self._context = (store, store.leaf_id, context, messages, usage_from)
        return cached[2], cached[3], cached[4]

    @property
    def messages(self) -> list[AgentMessage]:
        """The model's context on the active branch (a compaction's summary and what it kept)."""
        return list(self._current()[1])

    @property
    def usage_from(self) -> int:
        """The first message whose reported usage counts the context as it is now (`Compactor.Host`)."""
        return self._current()[2]

    @property
    def branch_messages(self) -> list[AgentMessage]:
        """Every message on the active branch, compactions ignored: what happened, for counting turns
        and tokens (a budget must not grow back when old turns are summarized)."""
        store = self._store()
        cached = self._branch
        if cached is None or cached[0] is not store or cached[1] != store.leaf_id:
            path = [e for e in store.tree.active_path() if isinstance(e, MessageEntry)]
            cached = self._branch = (store, store.leaf_id, build_context(path).convert(to_agent_message))
        return list(cached[2])

    def custom_entries(self, custom_type: str) -> list[Mapping[str, object]]:
        entries = self._current()[0].custom_of(custom_type)
        return [e.data if isinstance(e.data, dict) else {"value": e.data} for e in entries]

    def user_message_count(self) -> int:
        return sum(1 for m in self.branch_messages if isinstance(m, UserMessage))
