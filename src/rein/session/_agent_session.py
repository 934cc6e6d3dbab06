"""`AgentSession`: the agent loop, the session store and the extensions, joined.

One prompt at a time: input handlers and `/commands` first, then `before_agent_start` (system prompt
additions), then a run of the loop whose hooks are the extensions' (`tool_call`, `tool_result`,
`context`, stream hooks). Every message that joins the history is appended to the store as it
happens, so a crash loses at most the reply being streamed; each turn's entries are fsync'd at
`turn_end`. A write that fails aborts the run, and `prompt`/`run` raise `SessionWriteError` (naming
the file) once the loop has stopped; a store rein only reads is refused with `ReadOnlySessionError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence

from rein.agent import (
    AbortRetry,
    AgentConfig,
    AgentEvent,
    AgentMessage,
    Block,
    CustomMessage,
    StreamDelta,
    Tool,
    ToolCallInfo,
    ToolOutput,
    run_agent,
)
from rein.ai import AbortSignal, Model, Provider, StreamOptions, UserMessage, message_to_json
from rein.extensions import UI, ExtensionAPI, ExtensionContext, ExtensionRunner, Factory, Handled, Registry
from rein.session._compactor import Compactor
from rein.session._context import SessionContext, build_context
from rein.session._convert import to_agent_message, view_messages
from rein.session._entries import MessageEntry
from rein.session._session import Session
from rein.session.compaction._budget import CompactionSettings
from rein.session.compaction._compact import Compacted
from rein.session.errors import SessionSyncError, SessionWriteError, UnknownEntryError

Listener = Callable[[AgentEvent], Awaitable[None] | None]
SessionListener = Callable[[str, object], None]
"""Told of session-level notices (`ttsr_triggered`, extension errors, ...): (name, payload)."""


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
        self.registry = Registry()
        self.runner = ExtensionRunner(self.registry, self._context, self._extension_failed)
        self._tools = list(tools)
        self._listeners: list[Listener] = []
        self._session_listeners: list[SessionListener] = []
        self._signal = AbortSignal()
        self._steering: list[AgentMessage] = []
        self._follow_ups: list[AgentMessage] = []
        self._background: set[asyncio.Task[None]] = set()
        self._cached: tuple[str | None, SessionContext, list[AgentMessage], int] | None = None
        self._branch: tuple[str | None, list[AgentMessage]] | None = None
        self._quit = False
        self._running = False
        self._system = system_prompt
        self.compactor = Compactor(self, compaction or CompactionSettings(), context_window)

    # -- extensions ---------------------------------------------------------------------------

    def load_extension(self, name: str, factory: Factory) -> None:
        """Run an extension's `extension(rein)`; a raise is reported and the others still load."""
        try:
            factory(ExtensionAPI(name, self.registry, self))
        except Exception as error:
            self.ui.notify(f"extension {name} failed to load: {error!r}", "error")

    def api(self, name: str) -> ExtensionAPI:
        return ExtensionAPI(name, self.registry, self)

    def _extension_failed(self, name: str, event: str, error: BaseException) -> None:
        self.ui.notify(f"extension {name} failed on {event}: {error!r}", "warning")
        self._notice("extension_error", (name, event, error))

    def _context(self) -> ExtensionContext:
        return ExtensionContext(ui=self.ui, session=self, abort=self.abort, system_prompt=self.system_prompt)

    # -- Host (for the extension API) ---------------------------------------------------------

    def append_entry(self, custom_type: str, data: Mapping[str, object]) -> None:
        self.store.append_custom(custom_type, dict(data))

    def send_message(
        self, custom_type: str, content: str, *, display: bool, details: Mapping[str, object]
    ) -> None:
        self._steering.append(
            CustomMessage(custom_type=custom_type, content=content, display=display, details=details)
        )

    def emit_notice(self, event: str, payload: object) -> None:
        """Tell session listeners now, and extensions' handlers without waiting for them: this may be
        called from the stream hook, which must not block the stream (fire-and-forget, as in pi)."""
        self._notice(event, payload)
        if self.runner.has(event):
            task = asyncio.get_running_loop().create_task(self.runner.notify(event, payload))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    def _notice(self, event: str, payload: object) -> None:
        for listener in self._session_listeners:
            listener(event, payload)

    # -- SessionView ----------------------------------------------------------------------------

    def _view(self) -> tuple[SessionContext, list[AgentMessage], int]:
        """The branch's context, built once per leaf: extensions ask on every tool call, and the leaf
        changes with every append or branch move, so it is the cache key."""
        leaf = self.store.leaf_id
        if self._cached is None or self._cached[0] != leaf:
            context = self.store.context()
            messages, usage_from = view_messages(self.store.tree.active_path(), context)
            self._cached = (leaf, context, messages, usage_from)
        return self._cached[1], self._cached[2], self._cached[3]

    @property
    def messages(self) -> list[AgentMessage]:
        """The model's context on the active branch (a compaction's summary and what it kept)."""
        return list(self._view()[1])

    def history(self) -> list[AgentMessage]:
        return self.messages

    @property
    def usage_from(self) -> int:
        return self._view()[2]

    @property
    def branch_messages(self) -> list[AgentMessage]:
        """Every message on the active branch, compactions ignored: what happened, for counting turns
        and tokens (a budget must not grow back when old turns are summarized)."""
        leaf = self.store.leaf_id
        if self._branch is None or self._branch[0] != leaf:
            path = [e for e in self.store.tree.active_path() if isinstance(e, MessageEntry)]
            self._branch = (leaf, build_context(path).convert(to_agent_message))
        return list(self._branch[1])

    def custom_entries(self, custom_type: str) -> list[Mapping[str, object]]:
        entries = self._view()[0].custom_of(custom_type)
        return [e.data if isinstance(e.data, dict) else {"value": e.data} for e in entries]

    def user_message_count(self) -> int:
        return sum(1 for m in self.branch_messages if isinstance(m, UserMessage))

    # -- Host (for the compactor) ---------------------------------------------------------------

    @property
    def request_system_prompt(self) -> str:
        """The system prompt of the run going on (extensions add to it), else the session's."""
        return self._system

    @property
    def signal(self) -> AbortSignal:
        return self._signal

    def compacted(self, result: Compacted) -> None:
        self.ui.notify(result.describe())
        self._notice("compaction", result)
        if self.runner.has("session_compact"):
            task = asyncio.get_running_loop().create_task(self.runner.notify("session_compact", result))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def compact(self, instructions: str | None = None) -> Compacted:
        """Compact the active branch now (`/compact`, `rein compact`). Raises `NothingToCompact`,
        `SummaryError` or `SummaryOverflow` (the provider's text)."""
        if self._running:
            raise RuntimeError("a run is going: compaction waits until it ends")
        self._signal = AbortSignal()
        return await self.compactor.compact(reason="manual", instructions=instructions)

    async def navigate(
        self, entry_id: str | None, *, summarize: bool = False, instructions: str | None = None
    ) -> str | None:
        """Continue from `entry_id` (None: before the first entry). With `summarize`, the branch being
        left (from the fork point to the old leaf) becomes a `branch_summary` entry at the new place,
        whose id is returned. Extensions then restore their state for the branch (`session_tree`)."""
        if self._running:
            raise RuntimeError("a run is going: wait for it to end, or abort it first")
        if entry_id is not None and entry_id not in self.store.tree:
            raise UnknownEntryError(f"no entry {entry_id!r} in this session")
        self._signal = AbortSignal()
        summary_id = await self.compactor.leave_branch(
            entry_id, summarize=summarize, instructions=instructions
        )
        self._steering.clear()
        self._follow_ups.clear()
        await self.runner.notify("session_tree", self.store.leaf_id)
        self._notice("session_tree", self.store.leaf_id)
        return summary_id

    # -- lifecycle ------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def subscribe_notices(self, listener: SessionListener) -> None:
        self._session_listeners.append(listener)

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
        self._cached = None
        self._steering.clear()
        self._follow_ups.clear()
        await self.start()
        self._notice("session_switched", store)
        await self.runner.notify("session_switched", store)

    def request_quit(self) -> None:
        """Ask the host to end the session (`/quit`); the UI checks `quit_requested` after each prompt."""
        self._quit = True

    @property
    def quit_requested(self) -> bool:
        return self._quit

    def abort(self) -> None:
        """Stop the current run: the provider stream, tools and hooks see the signal at once."""
        self._signal.abort("aborted by the user")

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
        self._running = True
        try:
            return await self._run(prompts)
        finally:
            self._running = False

    async def _run(self, prompts: Sequence[AgentMessage]) -> list[AgentMessage]:
        self._signal = AbortSignal()
        self.store.require_writable()
        self._check_store()
        # Messages sent while no run was going (by a command, say) come before the new prompt.
        prompts = [*_drain(self._steering), *prompts]
        prompt_text = "\n".join(custom_text(m) for m in prompts)
        system = await self.runner.before_agent_start(prompt_text, self.system_prompt)
        self._system = system
        config = AgentConfig(
            provider=self.provider,
            model=self.model,
            system_prompt=system,
            tools=self.tools,
            cwd=self.cwd,
            options=self.options,
            on_stream_delta=self._on_stream_delta if self.registry.stream_hooks else None,
            before_tool_call=self._before_tool_call,
            after_tool_call=self._after_tool_call,
            transform_context=self._transform_context,
            prepare_request=self.compactor.prepare_request,
            recover=self.compactor.recover,
            steering_messages=lambda: _drain(self._steering),
            follow_up_messages=lambda: _drain(self._follow_ups),
            max_repeated_calls=self.max_repeated_calls,
        )
        try:
            added = await run_agent(prompts, self.messages, config, self._signal, self._on_event)
        finally:
            await asyncio.gather(*self._background)
        self._check_store()
        return added

    def _check_store(self) -> None:
        """Raise the store's failed write, if any: the loop swallows listener errors, so a failed
        save ends the run through the abort signal and reaches the host from here."""
        failed = self.store.write_error
        if failed is not None:
            raise SessionWriteError(failed.path, failed.reason, saved=failed.saved)

    def steer(self, text: str) -> None:
        """Queue a user message for the running agent: it is read after the current tool batch."""
        self._steering.append(UserMessage.of(text))

    def follow_up(self, text: str) -> None:
        """Queue a user message for when the agent would stop: the run goes on with it."""
        self._follow_ups.append(UserMessage.of(text))

    def _on_stream_delta(self, delta: StreamDelta) -> AbortRetry | None:
        return self.runner.stream_delta(delta)

    async def _before_tool_call(self, info: ToolCallInfo) -> Block | None:
        return await self.runner.tool_call(info)

    async def _after_tool_call(self, info: ToolCallInfo, output: ToolOutput) -> ToolOutput:
        return await self.runner.tool_result(info, output)

    async def _transform_context(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        return await self.runner.context(messages)

    async def _on_event(self, event: AgentEvent) -> None:
        try:
            if event.type == "message_end" and event.message is not None:
                self._persist(event.message)
            elif event.type in ("turn_end", "agent_end"):
                self.store.sync()  # a finished turn is on disk (fsync) before the next one starts
                await self._flush()
        except SessionWriteError:
            pass  # the store keeps it (`write_error`); `run` raises it when the loop has stopped
        if self.store.write_error is not None:  # an extension's write may have failed too
            self._signal.abort("the session file cannot be written")
        if self.runner.has(event.type):
            await self.runner.notify(event.type, event)
        for listener in self._listeners:
            result = listener(event)
            if result is not None:
                await result

    async def _flush(self) -> None:
        """Sync a turn to the store's server (a no-op for a local file). A failure does not call the
        model again: the next flush recovers; a replaced history stops the run."""
        try:
            await self.store.flush()
        except SessionSyncError as error:
            self.ui.notify(str(error), "warning")
            if error.stops_run:
                self._signal.abort(str(error))

    def _persist(self, message: AgentMessage) -> None:
        if isinstance(message, CustomMessage):
            self.store.append_custom_message(
                message.custom_type,
                message.content,
                display=message.display,
                details=dict(message.details) or None,
            )
            return
        # Aborted and failed replies are kept for the record; providers skip them in requests.
        self.store.append_message(dict(message_to_json(message)))


def _drain(queue: list[AgentMessage]) -> list[AgentMessage]:
    taken = list(queue)
    queue.clear()
    return taken


def custom_text(message: AgentMessage) -> str:
    """The text a UI shows for a message (custom or model message)."""
    return message.content if isinstance(message, CustomMessage) else message.text
