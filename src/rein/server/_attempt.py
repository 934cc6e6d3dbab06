"""One server-side reply: provider calls with stream rules, as rein's loop does them (`_Run.reply`).

With stream rules on (the client sent `reinEvents` and the server has rules), each delta goes to a
TTSR manager restored from the branch; an interrupting match cuts the provider stream at once, the
partial reply is dropped, the injection is persisted on the session exactly as a local run persists it
(a `custom` entry `ttsr_injection` with the records and the `cut` text, then a hidden
`custom_message` `ttsr-injection` with the rule text), a `stream_retry` event tells the client which
entries to add, and the next provider call has the injection appended. At most `max_retries` cuts
per request, like the loop's `max_retries_per_turn`. The final reply's bash calls get steering's
verdicts in its `done` event.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.applications import Starlette

from rein.agent import DeltaEvent, EndEvent, StreamDelta, stream_delta
from rein.ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    JsonValue,
    Provider,
    StartEvent,
    StreamOptions,
    UserMessage,
)
from rein.builtins.ttsr import INJECTION_ENTRY, INJECTION_MESSAGE, StreamedText
from rein.server._engines import Engines
from rein.server._wire import proxy_event
from rein.session import timestamp
from rein.ttsr import MatchContext, RuleMatch, TtsrManager

if TYPE_CHECKING:
    from rein.server._stream import StreamRequest

Emit = Callable[[dict[str, JsonValue] | None], None]
Progress = Callable[[AssistantMessage], None]
"""Told the reply so far after each event (the run's journal keeps it, should the process die)."""
Cut = tuple[list[RuleMatch], dict[str, JsonValue]]
"""The interrupting matches of a cut reply, and the record's `cut` (what it dropped)."""


async def run_reply(
    app: Starlette,
    prepared: StreamRequest,
    provider: Provider,
    engines: Engines,
    emit: Emit,
    progress: Progress = lambda _partial: None,
) -> AssistantMessage:
    """The final reply of the request (its events emitted), after any stream-rule retries."""
    manager: TtsrManager | None = None
    if prepared.rein_events and engines.rules:
        view = await app.state.service.get(prepared.owner, prepared.session_id)
        manager = engines.ttsr_manager(view.branch() if view is not None else [])
    context = prepared.context
    retries = 0
    avoid: tuple[str, ...] = ()  # what the cuts matched: no retry may write it (`StreamOptions.avoid`)
    while True:
        hooked = manager if retries < engines.max_retries else None
        options = dataclasses.replace(prepared.options, avoid=prepared.options.avoid + avoid)
        reply, cut = await _attempt(provider, prepared, options, context, hooked, emit, engines, progress)
        if cut is None or manager is None:
            return reply
        retries += 1
        avoid = tuple(dict.fromkeys((*avoid, *(m.matched for m in cut[0] if m.matched))))
        text = manager.render_interrupt(cut[0])
        entries = await _persist(app, prepared, manager, cut, text)
        names = ", ".join(m.name for m in cut[0])
        emit({"type": "stream_retry", "reason": f"stream rule: {names}", "entries": entries})
        context = Context(
            system_prompt=context.system_prompt,
            messages=(*context.messages, UserMessage.of(text)),
            tools=context.tools,
        )


async def _attempt(
    provider: Provider,
    prepared: StreamRequest,
    options: StreamOptions,
    context: Context,
    manager: TtsrManager | None,
    emit: Emit,
    engines: Engines,
    progress: Progress,
) -> tuple[AssistantMessage, Cut | None]:
    signal = AbortSignal()
    options = dataclasses.replace(options, signal=signal)
    if manager is not None:
        manager.reset()  # a new provider call: fresh buffers
    streamed = StreamedText()
    cut: Cut | None = None
    final: AssistantMessage | None = None
    # `start` waits for the next event: a call that fails before any output is only its `error`, as
    # pi-ai's providers send it (their `start` follows the response's headers)
    start: dict[str, JsonValue] | None = None
    async with provider.stream(prepared.model, context, options) as events:
        async for event in events:
            if isinstance(event, DoneEvent | ErrorEvent):
                final = event.message
                if start is not None and (isinstance(event, DoneEvent) or event.message.content):
                    emit(start)
                if cut is None:
                    emit(_final(event, engines, prepared))
                continue
            if cut is not None:
                continue  # the cut reply is dropped: nothing more of it reaches the client
            progress(event.partial)
            payload = proxy_event(event)
            if isinstance(event, StartEvent):
                start = payload
                continue
            if start is not None:
                emit(start)
                start = None
            if payload is not None:
                emit(payload)
            if manager is not None and isinstance(event, DeltaEvent | EndEvent):
                delta = stream_delta(event)
                streamed.add(delta)
                interrupting = [m for m in _check(manager, delta) if m.interrupt]
                if interrupting:
                    cut = (interrupting, streamed.cut(delta))
                    signal.abort("stream rule")
    assert final is not None, "a provider stream ends with a final event"
    return final, cut


def _check(manager: TtsrManager, delta: StreamDelta) -> tuple[RuleMatch, ...]:
    context = MatchContext(source=delta.source, tool_name=delta.tool_name, tool_call_id=delta.tool_call_id)
    return manager.check_delta(delta.delta, context, final=delta.final)


def _final(event: DoneEvent | ErrorEvent, engines: Engines, prepared: StreamRequest) -> dict[str, JsonValue]:
    payload = proxy_event(event)
    assert payload is not None
    if isinstance(event, DoneEvent):
        blocked = engines.steer(event.message, prepared.cwd)
        if blocked:
            payload["steering"] = list(blocked)
    return payload


async def _persist(
    app: Starlette, prepared: StreamRequest, manager: TtsrManager, cut: Cut, text: str
) -> list[JsonValue]:
    """The injection as a local run records it: the records entry, then the hidden message."""
    service = app.state.service
    view = await service.get(prepared.owner, prepared.session_id)
    leaf = view.row.leaf_id if view is not None else None
    matches, dropped = cut
    names: list[JsonValue] = [m.name for m in matches]
    records = manager.mark_injected(matches)
    record: dict[str, JsonValue] = {
        "type": "custom", "id": _new_id(), "parentId": leaf, "timestamp": timestamp(),
        "customType": INJECTION_ENTRY,
        "data": {"rules": names, "records": [_plain(r.to_dict()) for r in records], "cut": dropped},
    }  # fmt: skip
    message: dict[str, JsonValue] = {
        "type": "custom_message", "id": _new_id(), "parentId": record["id"], "timestamp": timestamp(),
        "customType": INJECTION_MESSAGE, "content": text, "display": False, "details": {"rules": names},
    }  # fmt: skip
    for entry in (record, message):
        await service.append_entry(prepared.owner, prepared.session_id, entry)
    return [record, message]


def _plain(data: dict[str, object]) -> JsonValue:
    return {
        key: value
        for key, value in data.items()
        if isinstance(value, str | int | float | bool) or value is None
    }


def _new_id() -> str:
    return secrets.token_hex(4)
