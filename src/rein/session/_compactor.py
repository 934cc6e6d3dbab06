"""The agent session's compaction: when to compact, the overflow retry, and branch summaries.

- Before every provider request (`prepare_request`): when the context passes the window less the
  reserve, compact; mid tool loop a huge result is handled with a keep marker (`compact_session`).
- After a reply that failed with a context overflow (`recover`): the failed reply is detached from the
  branch (it stays in the tree, a sibling of the retry), the window the error names is learned, the
  branch is compacted (the second time keeping less) and the request is sent again.
- `/compact`, `rein compact`, and the summary of a branch left in `/tree` use the same summarizer.
- Every one of these compactions must shrink the context: one that would not is refused, and nothing is
  written (`NotSmaller`: a warning when automatic and the model was asked in vain).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Protocol

from rein.agent import AgentMessage, Tool
from rein.ai import AbortSignal, AssistantMessage, Model, Provider, StreamOptions, context_overflow
from rein.extensions import UI
from rein.session._context import build_context
from rein.session._convert import to_agent_message
from rein.session._entries import Entry
from rein.session._session import Session
from rein.session.compaction._budget import Budget, CompactionSettings, model_window
from rein.session.compaction._compact import (
    Compacted,
    NothingToCompact,
    NotSmaller,
    Reason,
    compact_session,
)
from rein.session.compaction._compose import compose
from rein.session.compaction._provider import provider_summarize
from rein.session.compaction._reinject import reinject_text
from rein.session.compaction._serialize import serialize
from rein.session.compaction._state import extract_state, render_state
from rein.session.compaction._summarize import Summarize, SummaryError, SummaryOverflow, summarize_chunked
from rein.session.compaction._tokens import context_tokens, text_tokens

REINJECT_TYPE = "compaction-context"
FALLBACK_WINDOW = 128_000
"""The window assumed for `/compact` and branch summaries of a model whose window is not known."""
UNKNOWN_WINDOW_SHARE = 75
"""With no window known and none named by the error, the failed request's size less a quarter."""


class Host(Protocol):
    """What the compactor needs of the agent session."""

    store: Session
    provider: Provider
    model: Model
    cwd: str
    ui: UI

    @property
    def tools(self) -> list[Tool]: ...
    @property
    def request_system_prompt(self) -> str: ...
    @property
    def signal(self) -> AbortSignal: ...
    @property
    def options(self) -> StreamOptions: ...
    @property
    def usage_from(self) -> int:
        """The first message whose reported usage counts the context as it is now (0 unless the branch
        was compacted: replies kept from before report the size of the context before it)."""
        ...

    def compacted(self, result: Compacted) -> None: ...
    def history(self) -> list[AgentMessage]: ...


class Compactor:
    def __init__(self, host: Host, settings: CompactionSettings, configured_window: int | None) -> None:
        self.host = host
        self.settings = settings
        self.configured_window = configured_window
        self.learned_window: int | None = None
        """A window an overflow taught (smaller than the model's table says, or for an unknown model)."""

    @property
    def window(self) -> int | None:
        known = model_window(self.host.model, self.configured_window)
        learned = self.learned_window
        return min(known, learned) if known and learned else known or learned

    def fixed_tokens(self) -> int:
        """What every request carries besides the messages: the system prompt and the tool schemas."""
        tools = [(t.name, t.description, t.parameters) for t in self.host.tools]
        return text_tokens(self.host.request_system_prompt) + text_tokens(json.dumps(tools, default=str))

    def budget(self) -> Budget | None:
        window = self.window
        return None if window is None else Budget.of(window, self.settings, self.fixed_tokens())

    def _summarize(self) -> Summarize:
        options = StreamOptions(
            signal=self.host.signal,
            api_key=self.host.options.api_key,
            max_retries=self.host.options.max_retries,
        )
        return provider_summarize(self.host.provider, self.host.model, options)

    async def compact(
        self, *, reason: Reason, instructions: str | None = None, keep_recent: int | None = None
    ) -> Compacted:
        """Compact the active branch now. Raises `NothingToCompact`, `SummaryOverflow`, `SummaryError`."""
        # A window nobody knows yet: size the parts for a common one; an overflow of a summary
        # request teaches the real one (the summarizer splits and goes on).
        budget = self.budget() or Budget.of(FALLBACK_WINDOW, self.settings, self.fixed_tokens())
        store = self.host.store

        async def attempt(budget: Budget) -> Compacted:
            return await compact_session(
                store,
                self._summarize(),
                budget,
                reason=reason,
                instructions=instructions,
                keep_recent=keep_recent,
                fixed=self.fixed_tokens(),
                require_smaller=True,
                reinject=lambda files: reinject_text(self.host.cwd, files, budget.reinject),
            )

        try:
            result = await attempt(budget)
        except SummaryOverflow as error:
            # The model's window is smaller than believed, too small for the parts planned: plan
            # again for the window the error names (once; a second overflow surfaces).
            if error.window is None or error.window >= budget.window:
                raise
            self.learned_window = error.window
            budget = Budget.of(error.window, self.settings, self.fixed_tokens())
            result = await attempt(budget)
        if result.window is not None and result.window < budget.window:
            self.learned_window = result.window  # a summary request overflowed: the model is smaller
        if result.reinject is not None:
            store.append_custom_message(REINJECT_TYPE, result.reinject, display=False)
        self.host.compacted(result)
        return result

    async def prepare_request(self, messages: list[AgentMessage]) -> list[AgentMessage] | None:
        """Compact when the next request would pass the threshold; the new history, or None."""
        window = self.window
        if not self.settings.enabled or window is None:
            return None
        fixed = self.fixed_tokens()  # the schemas are serialized once per request, not per check
        threshold = Budget.of(window, self.settings, fixed).threshold
        if context_tokens(messages, usage_from=self.host.usage_from) + fixed <= threshold:
            return None
        try:
            await self.compact(reason="threshold")
        except NotSmaller as error:
            if error.asked:  # the model's summary was thrown away: say why the request goes as it is
                self.host.ui.notify(f"automatic compaction: {error}", "warning")
            return None
        except NothingToCompact:
            return None
        except (SummaryError, SummaryOverflow) as error:
            self.host.ui.notify(f"compaction failed, the request goes as it is: {error}", "warning")
            return None
        return self.host.history()

    async def recover(self, reply: AssistantMessage) -> list[AgentMessage] | None:
        """After a failed reply: a context overflow is compacted and retried; anything else is not."""
        overflow = context_overflow(reply, self.window)
        if overflow is None or not self.settings.enabled or self.host.signal.aborted:
            return None
        store = self.host.store
        failed = store.leaf_id
        entry = store.tree.get(failed) if failed is not None else None
        if entry is not None:
            store.branch(entry.parent_id)  # detached: kept in the tree, not resent
        if overflow.window is not None:
            self.learned_window = min(self.learned_window or overflow.window, overflow.window)
        elif self.window is None:
            size = context_tokens(self.host.history()) + self.fixed_tokens()
            self.learned_window = size * UNKNOWN_WINDOW_SHARE // 100
        previous = store.context().compaction
        budget = self.budget()
        keep = None if previous is None or budget is None else budget.keep_recent // 2
        try:
            await self.compact(reason="overflow", keep_recent=keep)
        except (NothingToCompact, SummaryError, SummaryOverflow) as error:
            self.host.ui.notify(f"the context overflowed and could not be compacted: {error}", "error")
            if failed is not None:
                store.branch(failed)  # as it was: the failed reply ends the turn
            return None
        return self.host.history()

    async def leave_branch(
        self, entry_id: str | None, *, summarize: bool, instructions: str | None
    ) -> str | None:
        """Move the leaf to `entry_id`; with `summarize`, the branch left (from the fork point to the
        old leaf) is summarized into a `branch_summary` entry at the new place (its id returned)."""
        store = self.host.store
        old_leaf = store.leaf_id
        old, new = store.tree.active_path(), store.tree.path(entry_id)
        common = 0
        while common < min(len(old), len(new)) and old[common].id == new[common].id:
            common += 1
        if not summarize or old_leaf is None or not old[common:]:
            store.branch(entry_id)
            return None
        text, details = await self.summarize_branch(old[common:], instructions)
        store.branch(entry_id)
        return store.append_branch_summary(old_leaf, text, details=details)

    async def summarize_branch(self, left: Sequence[Entry], instructions: str | None) -> tuple[str, object]:
        """The summary of a branch being left (`left`: its entries from the fork point to the old leaf)
        and the details to store with it."""
        messages: list[AgentMessage] = build_context(left).convert(to_agent_message)
        budget = self.budget() or Budget.of(FALLBACK_WINDOW, self.settings, self.fixed_tokens())
        result = await summarize_chunked(
            [serialize(m) for m in messages],
            self._summarize(),
            window=budget.window,
            max_tokens=budget.summary,
            instructions=instructions,
            purpose="branch",
        )
        state = extract_state(messages)
        return compose(result.text, render_state(state), ()), {
            "state": state.to_json(),
            "requests": result.requests,
        }
