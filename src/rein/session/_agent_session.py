"""`AgentSession`: the agent loop, the session store and the extensions, joined.

One prompt at a time: input handlers and `/commands` first, then `before_agent_start` (system prompt
additions), then a run of the loop whose hooks are the extensions' (`tool_call`, `tool_result`,
`context`, stream hooks). Every message that joins the history is appended to the store as it
happens, so a crash loses at most the reply being streamed; each turn's entries are fsync'd at
`turn_end`. A write that fails aborts the run, and `prompt`/`run` raise `SessionWriteError` (naming
the file) once the loop has stopped; a store rein only reads is refused with `ReadOnlySessionError`.

The session is the one object hosts construct and extensions see; it is composed of its parts by role
(`rein.session._agent`): the extensions' host (`ExtensionHost`), their view of the session
(`BranchView`), the loop driver (`Driver`) and the event persister (`_persist`), with the compactor
beside them. What is left here is the wiring, and what moves several parts at once: `/commands`,
switching stores, moving in the tree, compacting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rein.agent import AgentMessage, CustomMessage, Tool
from rein.ai import AbortSignal, Model, Provider, StreamOptions, UserMessage
from rein.extensions import UI, ExtensionAPI, ExtensionContext, Factory, Handled
from rein.session._agent._drive import Driver, Listener
from rein.session._agent._host import ExtensionHost, SessionListener
from rein.session._agent._view import BranchView
from rein.session._compactor import Compactor
from rein.session._session import Session
from rein.session.compaction._budget import CompactionSettings
from rein.session.compaction._compact import Compacted
from rein.session.errors import UnknownEntryError


class AgentSession:
    def __init__(
        self,
        *,
        store: Session,
        provider: Provider,
        model: Model,
        cwd: str,
        ui: UI,
        tools: Sequence[Tool] = (),
        system_prompt: str = "",
        options: StreamOptions | None = None,
        compaction: CompactionSettings | None = None,
        context_window: int | None = None,
        max_repeated_calls: int = 4,
    ) -> None:
        store.require_writable()  # a file rein only reads is refused before any run (nothing lost)
        self.store = store
        self.provider = provider
        self.model = model
        self.cwd = cwd
        self.ui = ui
        self.system_prompt = system_prompt
        self.options = options or StreamOptions()
        self.max_repeated_calls = max_repeated_calls  # `[rein] max_repeated_calls`: `AgentConfig`'s
        self._extensions = ExtensionHost(ui, self._context)
        self.registry = self._extensions.registry
        self.runner = self._extensions.runner
        self._tools = list(tools)
        self._view = BranchView(lambda: self.store)
        self._driver = Driver(self, self._extensions)
        self._quit = False
        self.compactor = Compactor(self, compaction or CompactionSettings(), context_window)

    # -- extensions -----------------------------------------------------------------------------

    def load_extension(self, name: str, factory: Factory) -> None:
        """Run an extension's `extension(rein)`; a raise is reported and the others still load."""
        self._extensions.load(name, factory, self)

    def api(self, name: str) -> ExtensionAPI:
        return ExtensionAPI(name, self.registry, self)

    def _context(self) -> ExtensionContext:
        return ExtensionContext(ui=self.ui, session=self, abort=self.abort, system_prompt=self.system_prompt)

    # -- Host (for the extension API) -----------------------------------------------------------

    def append_entry(self, custom_type: str, data: Mapping[str, object]) -> None:
        self.store.append_custom(custom_type, dict(data))

    def send_message(
        self, custom_type: str, content: str, *, display: bool, details: Mapping[str, object]
    ) -> None:
        self._driver.steering.append(
            CustomMessage(custom_type=custom_type, content=content, display=display, details=details)
        )

    def emit_notice(self, event: str, payload: object) -> None:
        """Tell session listeners now, and extensions' handlers without waiting for them: this may be
        called from the stream hook, which must not block the stream (fire-and-forget, as in pi)."""
        self._extensions.notice(event, payload)
        self._extensions.notify_soon(event, payload)

    # -- SessionView ------------------------------------------------------------------------------

    @property
    def messages(self) -> list[AgentMessage]:
        """The model's context on the active branch (a compaction's summary and what it kept)."""
        return self._view.messages

    def history(self) -> list[AgentMessage]:
        return self._view.messages

    @property
    def usage_from(self) -> int:
        return self._view.usage_from

    @property
    def branch_messages(self) -> list[AgentMessage]:
        """Every message on the active branch, compactions ignored: what happened, for counting turns
        and tokens (a budget must not grow back when old turns are summarized)."""
        return self._view.branch_messages

    def custom_entries(self, custom_type: str) -> list[Mapping[str, object]]:
        return self._view.custom_entries(custom_type)

    def user_message_count(self) -> int:
        return self._view.user_message_count()

    # -- Host (for the compactor) -----------------------------------------------------------------

    @property
    def request_system_prompt(self) -> str:
        """The system prompt of the run going on (extensions add to it), else the session's."""
        return self._driver.system

    @property
    def signal(self) -> AbortSignal:
        return self._driver.signal

    def compacted(self, result: Compacted) -> None:
        self.ui.notify(result.describe())
        self._extensions.notice("compaction", result)
        self._extensions.notify_soon("session_compact", result)

    async def compact(self, instructions: str | None = None) -> Compacted:
        """Compact the active branch now (`/compact`, `rein compact`). Raises `NothingToCompact`,
        `SummaryError` or `SummaryOverflow` (the provider's text)."""
        if self._driver.running:
            raise RuntimeError("a run is going: compaction waits until it ends")
        self._driver.signal = AbortSignal()
        return await self.compactor.compact(reason="manual", instructions=instructions)

    async def navigate(
        self, entry_id: str | None, *, summarize: bool = False, instructions: str | None = None
    ) -> str | None:
        """Continue from `entry_id` (None: before the first entry). With `summarize`, the branch being
        left (from the fork point to the old leaf) becomes a `branch_summary` entry at the new place,
        whose id is returned. Extensions then restore their state for the branch (`session_tree`)."""
        if self._driver.running:
            raise RuntimeError("a run is going: wait for it to end, or abort it first")
        if entry_id is not None and entry_id not in self.store.tree:
            raise UnknownEntryError(f"no entry {entry_id!r} in this session")
        self._driver.signal = AbortSignal()
        summary_id = await self.compactor.leave_branch(
            entry_id, summarize=summarize, instructions=instructions
        )
        self._driver.clear_queues()
        await self.runner.notify("session_tree", self.store.leaf_id)
        self._extensions.notice("session_tree", self.store.leaf_id)
        return summary_id

    # -- lifecycle --------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        self._driver.listeners.append(listener)

    def subscribe_notices(self, listener: SessionListener) -> None:
        self._extensions.listeners.append(listener)

    @property
    def tools(self) -> list[Tool]:
        return [*self._tools, *self.registry.tools]

    async def start(self) -> None:
        await self.runner.notify("session_start")

    async def shutdown(self) -> None:
        await self.runner.notify("session_shutdown")

    async def switch_store(self, store: Session) -> None:
        """Carry on in another session file (`/new`, `/resume`): `session_shutdown` for the old one,
        the store swapped, `session_start` for the new one (extensions restore their state from it),
        then the `session_switched` notice with the new store as payload. Messages queued for the old
        session are dropped. A store rein only reads is refused (`ReadOnlySessionError`) before
        anything changes."""
        store.require_writable()
        await self.shutdown()
        self.store = store
        self._driver.clear_queues()
        await self.start()
        self._extensions.notice("session_switched", store)
        await self.runner.notify("session_switched", store)

    def request_quit(self) -> None:
        """Ask the host to end the session (`/quit`); the UI checks `quit_requested` after each prompt."""
        self._quit = True

    @property
    def quit_requested(self) -> bool:
        return self._quit

    def abort(self) -> None:
        """Stop the current run: the provider stream, tools and hooks see the signal at once."""
        self._driver.signal.abort("aborted by the user")

    async def prompt(self, text: str) -> list[AgentMessage]:
        """Handle one line of user input: a `/command`, an input handler, or a run of the agent."""
        if text.startswith("/"):
            name, _, args = text[1:].partition(" ")
            command = self.registry.commands.get(name)
            if command is None:
                self.ui.notify(f"unknown command /{name}; /help lists the commands", "warning")
                return []
            result = command.handler(args.strip(), self._context())
            if result is not None:
                await result
            return []
        handled = await self.runner.input(text)
        if isinstance(handled, Handled):
            return []
        return await self.run([UserMessage.of(handled)])

    async def run(self, prompts: Sequence[AgentMessage]) -> list[AgentMessage]:
        """Run the agent on `prompts` (after any messages queued while no run was going)."""
        return await self._driver.run(prompts)

    def steer(self, text: str) -> None:
        """Queue a user message for the running agent: it is read after the current tool batch."""
        self._driver.steering.append(UserMessage.of(text))

    def follow_up(self, text: str) -> None:
        """Queue a user message for when the agent would stop: the run goes on with it."""
        self._driver.follow_ups.append(UserMessage.of(text))
