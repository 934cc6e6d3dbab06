"""The loop driver: one run of the agent loop, with the session's queues and abort signal.

A run puts the messages queued while no run was going before its prompts, asks `before_agent_start` for
the system prompt, and runs the loop with an `AgentConfig` whose hooks are the extension runner's own
methods (`tool_call`, `tool_result`, `context`, the stream hooks) and the compactor's. Each event is
written to the store first (`_persist`), then told to the extensions' handlers, then to subscribers.
The session's model, provider and tools are read at each run: a command may change them between runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from rein.agent import AgentConfig, AgentEvent, AgentMessage, CustomMessage, Tool, run_agent
from rein.ai import AbortSignal, Model, Provider, StreamOptions
from rein.extensions import UI
from rein.session._agent._host import ExtensionHost
from rein.session._agent._persist import raise_write_error, record
from rein.session._compactor import Compactor
from rein.session._session import Session

Listener = Callable[[AgentEvent], Awaitable[None] | None]


class Owner(Protocol):
    """What the driver reads of the session, at each run."""

    store: Session
    provider: Provider
    model: Model
    cwd: str
    ui: UI
    system_prompt: str
    options: StreamOptions
    max_repeated_calls: int
    compactor: Compactor

    @property
    def tools(self) -> list[Tool]: ...
    @property
    def messages(self) -> list[AgentMessage]: ...


class Driver:
    def __init__(self, owner: Owner, extensions: ExtensionHost) -> None:
        self.owner = owner
        self.extensions = extensions
        self.signal = AbortSignal()
        """The run's (or the compaction's) abort; a new one for each."""
        self.steering: list[AgentMessage] = []
        """Read after each tool batch; what is queued while no run goes comes before the next prompt."""
        self.follow_ups: list[AgentMessage] = []
        """Read when the run would stop: the run goes on with them."""
        self.listeners: list[Listener] = []
        self.running = False
        self.system = owner.system_prompt
        """The system prompt of the run going on (extensions add to it), else the session's."""

    def clear_queues(self) -> None:
        self.steering.clear()
        self.follow_ups.clear()

    async def run(self, prompts: Sequence[AgentMessage]) -> list[AgentMessage]:
        """Run the loop on `prompts`; the messages it added. Raises `SessionWriteError` when a write
        failed (the run was aborted by it)."""
        self.running = True
        try:
            return await self._run(prompts)
        finally:
            self.running = False

    async def _run(self, prompts: Sequence[AgentMessage]) -> list[AgentMessage]:
        self.signal = AbortSignal()
        store = self.owner.store
        store.require_writable()
        raise_write_error(store)
        # Messages sent while no run was going (by a command, say) come before the new prompt.
        prompts = [*_drain(self.steering), *prompts]
        prompt_text = "\n".join(custom_text(m) for m in prompts)
        self.system = await self.extensions.runner.before_agent_start(prompt_text, self.owner.system_prompt)
        try:
            added = await run_agent(prompts, self.owner.messages, self._config(), self.signal, self._on_event)
        finally:
            await self.extensions.settle()
        raise_write_error(self.owner.store)
        return added

    def _config(self) -> AgentConfig:
        owner, runner = self.owner, self.extensions.runner
        return AgentConfig(
            provider=owner.provider,
            model=owner.model,
            system_prompt=self.system,
            tools=owner.tools,
            cwd=owner.cwd,
            options=owner.options,
            on_stream_delta=runner.stream_delta if self.extensions.registry.stream_hooks else None,
            before_tool_call=runner.tool_call,
            after_tool_call=runner.tool_result,
            transform_context=runner.context,
            prepare_request=owner.compactor.prepare_request,
            recover=owner.compactor.recover,
            steering_messages=lambda: _drain(self.steering),
            follow_up_messages=lambda: _drain(self.follow_ups),
            max_repeated_calls=owner.max_repeated_calls,
        )

    async def _on_event(self, event: AgentEvent) -> None:
        await record(event, self.owner.store, self.signal, self.owner.ui)
        runner = self.extensions.runner
        if runner.has(event.type):
            await runner.notify(event.type, event)
        for listener in self.listeners:
            result = listener(event)
            if result is not None:
                await result


def _drain(queue: list[AgentMessage]) -> list[AgentMessage]:
    taken = list(queue)
    queue.clear()
    return taken


def custom_text(message: AgentMessage) -> str:
    """The text a UI shows for a message (custom or model message)."""
    return message.content if isinstance(message, CustomMessage) else message.text
