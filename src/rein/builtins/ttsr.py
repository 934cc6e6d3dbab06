"""The built-in stream-rules extension: the TTSR lifecycle (seed 001) on rein's extension API.

- session_start: discover rules, build the manager, restore injected-rule state from the session.
- every assistant reply: buffers reset when it starts; each delta goes to the manager.
- an interrupting match: the reply is cut, a hidden `ttsr-injection` message is appended, a
  `ttsr_injection` entry is persisted (with the `cut`: the tail of the text it dropped),
  `ttsr_triggered` goes to extensions, and the loop retries.
- a non-interrupting match in a tool call: a reminder is prepended to that tool's result (dropped,
  and not persisted, if the reply ends aborted or in error, so the rule stays eligible).
- a non-interrupting match in prose: a hidden follow-up after the reply, if it succeeded.
- turn_end: the manager counts the turn (repeat gaps are in completed turns).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from rein.agent import AbortRetry, CustomMessage, StreamDelta, ToolOutput
from rein.ai import AssistantMessage, JsonValue
from rein.extensions import (
    ExtensionAPI,
    ExtensionContext,
    MessageEndEvent,
    MessageStartEvent,
    SessionStartEvent,
    SessionTreeEvent,
    ToolResultEvent,
    TurnEndEvent,
)
from rein.ttsr import (
    InjectionRecord,
    MatchContext,
    RuleMatch,
    TtsrManager,
    TtsrSettings,
    TtsrState,
    discover_rules,
)

INJECTION_MESSAGE = "ttsr-injection"
INJECTION_ENTRY = "ttsr_injection"
TRIGGERED: Final = "ttsr_triggered"
CUT_CHARS = 2_000
"""How much of the cut source a `ttsr_injection` record keeps: its last characters."""


class StreamedText:
    """What one reply streamed so far, per source (each tool call on its own), kept as pieces and
    joined only when a stream rule cuts the reply: the `cut` of its `ttsr_injection` record. Shared
    by this extension and the session server's stream rules (`rein.server._attempt`)."""

    def __init__(self) -> None:
        self._pieces: dict[tuple[str, str | None], list[str]] = {}

    def reset(self) -> None:
        """A new provider call: nothing streamed yet."""
        self._pieces.clear()

    def add(self, delta: StreamDelta) -> None:
        if delta.delta:
            self._pieces.setdefault((delta.source, delta.tool_call_id), []).append(delta.delta)

    def cut(self, delta: StreamDelta) -> dict[str, JsonValue]:
        """`{"source", "text", "toolName"?}`: the last CUT_CHARS characters of the source `delta` is
        from, `delta` included (add it first)."""
        tail: list[str] = []
        size = 0
        for piece in reversed(self._pieces.get((delta.source, delta.tool_call_id), [])):
            tail.append(piece)
            size += len(piece)
            if size >= CUT_CHARS:
                break
        cut: dict[str, JsonValue] = {"source": delta.source, "text": "".join(reversed(tail))[-CUT_CHARS:]}
        if delta.tool_name:
            cut["toolName"] = delta.tool_name
        return cut


class TtsrExtension:
    def __init__(
        self,
        rein: ExtensionAPI,
        *,
        cwd: str,
        home: str,
        settings: Mapping[str, object],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.rein = rein
        self.cwd = cwd
        self.home = home
        self.settings = TtsrSettings.from_mapping(settings)
        self.clock = clock
        self.manager = TtsrManager((), self.settings, clock=clock, root=cwd)
        self.per_tool: dict[str, list[RuleMatch]] = {}
        self.prose: list[RuleMatch] = []
        self.streamed = StreamedText()
        rein.on("session_start", self.on_session_start)
        rein.on("session_tree", self.on_session_start)  # another branch: its own records and turns
        rein.on("message_start", self.on_message_start)
        rein.on("message_end", self.on_message_end)
        rein.on("tool_result", self.on_tool_result)
        rein.on("turn_end", self.on_turn_end)
        rein.on_stream_delta(self.on_delta)

    def on_session_start(self, event: SessionStartEvent | SessionTreeEvent, ctx: ExtensionContext) -> None:
        found = discover_rules(Path(self.cwd), Path(self.home), builtin=self.settings.builtin_rules)
        for issue in found.issues:
            head = (
                "stream rule loaded with a warning" if issue.severity == "warning" else "stream rule skipped"
            )
            ctx.ui.notify(f"{head}: {issue}", "warning")
        self.manager = TtsrManager(found.rules, self.settings, clock=self.clock, root=self.cwd)
        records: dict[str, InjectionRecord] = {}
        for data in ctx.session.custom_entries(INJECTION_ENTRY):
            items = data.get("records")
            for item in items if isinstance(items, list) else []:
                if isinstance(item, Mapping):
                    record = InjectionRecord.from_dict(item)
                    records[record.rule] = record  # the latest record of a rule carries its count
        # Turns since the branch began, compactions ignored: repeat gaps are counted in real turns.
        turns = sum(1 for m in ctx.session.branch_messages if isinstance(m, AssistantMessage))
        self.manager.restore(TtsrState(turns=turns, records=tuple(records.values())))

    def fired(self) -> dict[str, int]:
        """How many times each rule fired (was injected) in this session, resumed ones included."""
        return {record.rule: record.count for record in self.manager.injection_records()}

    def on_message_start(self, event: MessageStartEvent, ctx: ExtensionContext) -> None:
        if isinstance(event.payload.message, AssistantMessage):
            self.manager.reset()  # a new provider call (a new turn, or a retry): fresh buffers
            self.streamed.reset()

    def on_delta(self, delta: StreamDelta) -> AbortRetry | None:
        context = MatchContext(
            source=delta.source, tool_name=delta.tool_name, tool_call_id=delta.tool_call_id
        )
        self.streamed.add(delta)
        matches = self.manager.check_delta(delta.delta, context, final=delta.final)
        if not matches:
            return None
        cut = [m for m in matches if m.interrupt]
        for match in matches:
            if match.interrupt:
                continue
            if match.source == "tool" and match.tool_call_id:
                self.per_tool.setdefault(match.tool_call_id, []).append(match)
            elif match.source != "tool":
                self.prose.append(match)
        if not cut:
            return None
        names = [m.name for m in cut]
        self._persist(cut, self.streamed.cut(delta))
        self.rein.emit(TRIGGERED, tuple(m.rule for m in cut))
        injection = CustomMessage(
            custom_type=INJECTION_MESSAGE,
            content=self.manager.render_interrupt(cut),
            display=False,
            details={"rules": names},
        )
        keep = self.settings.context_mode == "keep"
        return AbortRetry(
            inject=[injection],
            keep_partial=keep,
            reason=f"stream rule: {', '.join(names)}",
            avoid=tuple(m.matched for m in cut if m.matched),
        )

    def on_message_end(self, event: MessageEndEvent, ctx: ExtensionContext) -> None:
        reply = event.payload.message
        if not isinstance(reply, AssistantMessage):
            return
        if reply.stop_reason in ("aborted", "error"):
            self.per_tool.clear()  # those tools never ran: the rules stay eligible
            self.prose.clear()
            return
        if self.prose:
            pending, self.prose = self.prose, []
            self._persist(pending)
            self.rein.send_message(
                INJECTION_MESSAGE,
                self.manager.render_interrupt(pending),
                display=False,
                details={"rules": [m.name for m in pending]},
            )

    def on_tool_result(self, event: ToolResultEvent, ctx: ExtensionContext) -> ToolOutput | None:
        matches = self.per_tool.pop(event.info.call.id, [])
        if not matches:
            return None
        self._persist(matches)
        output = event.output
        reminder = self.manager.render_reminder(matches)
        return ToolOutput(
            text=f"{reminder}\n\n{output.text}", is_error=output.is_error, details=output.details
        )

    def on_turn_end(self, event: TurnEndEvent, ctx: ExtensionContext) -> None:
        self.manager.turn_completed()

    def _persist(self, matches: list[RuleMatch], cut: dict[str, JsonValue] | None = None) -> None:
        records = self.manager.mark_injected(matches)
        rules = [m.name for m in matches]
        data: dict[str, object] = {"rules": rules, "records": [r.to_dict() for r in records]}
        if cut is not None:
            data["cut"] = cut
        self.rein.append_entry(INJECTION_ENTRY, data)
