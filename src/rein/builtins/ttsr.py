"""The built-in stream-rules extension: the TTSR lifecycle (seed 001) on rein's extension API.

- session_start: discover rules, build the manager, restore injected-rule state from the session.
- every assistant reply: buffers reset when it starts; each delta goes to the manager.
- an interrupting match: the reply is cut, a hidden `ttsr-injection` message is appended, a
  `ttsr_injection` entry is persisted, `ttsr_triggered` goes to extensions, and the loop retries.
- a non-interrupting match in a tool call: a reminder is prepended to that tool's result (dropped,
  and not persisted, if the reply ends aborted or in error, so the rule stays eligible).
- a non-interrupting match in prose: a hidden follow-up after the reply, if it succeeded.
- turn_end: the manager counts the turn (repeat gaps are in completed turns).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from rein.agent import AbortRetry, CustomMessage, StreamDelta, ToolOutput
from rein.ai import AssistantMessage
from rein.extensions import ExtensionAPI, ExtensionContext, Notice, ToolResultEvent
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
TRIGGERED = "ttsr_triggered"


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
        rein.on("session_start", self.on_session_start)
        rein.on("session_tree", self.on_session_start)  # another branch: its own records and turns
        rein.on("message_start", self.on_message_start)
        rein.on("message_end", self.on_message_end)
        rein.on("tool_result", self.on_tool_result)
        rein.on("turn_end", self.on_turn_end)
        rein.on_stream_delta(self.on_delta)

    def on_session_start(self, event: object, ctx: ExtensionContext) -> None:
        found = discover_rules(Path(self.cwd), Path(self.home), builtin=self.settings.builtin_rules)
        for issue in found.issues:
            ctx.ui.notify(f"stream rule skipped: {issue}", "warning")
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

    def on_message_start(self, event: object, ctx: ExtensionContext) -> None:
        if isinstance(event, Notice) and _assistant(event) is not None:
            self.manager.reset()  # a new provider call (a new turn, or a retry): fresh buffers

    def on_delta(self, delta: StreamDelta) -> AbortRetry | None:
        context = MatchContext(
            source=delta.source, tool_name=delta.tool_name, tool_call_id=delta.tool_call_id
        )
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
        self._persist(cut)
        self.rein.emit(TRIGGERED, tuple(m.rule for m in cut))
        injection = CustomMessage(
            custom_type=INJECTION_MESSAGE,
            content=self.manager.render_interrupt(cut),
            display=False,
            details={"rules": names},
        )
        keep = self.settings.context_mode == "keep"
        return AbortRetry(inject=[injection], keep_partial=keep, reason=f"stream rule: {', '.join(names)}")

    def on_message_end(self, event: object, ctx: ExtensionContext) -> None:
        reply = _assistant(event) if isinstance(event, Notice) else None
        if reply is None:
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

    def on_tool_result(self, event: object, ctx: ExtensionContext) -> ToolOutput | None:
        if not isinstance(event, ToolResultEvent):
            return None
        matches = self.per_tool.pop(event.info.call.id, [])
        if not matches:
            return None
        self._persist(matches)
        output = event.output
        reminder = self.manager.render_reminder(matches)
        return ToolOutput(
            text=f"{reminder}\n\n{output.text}", is_error=output.is_error, details=output.details
        )

    def on_turn_end(self, event: object, ctx: ExtensionContext) -> None:
        self.manager.turn_completed()

    def _persist(self, matches: list[RuleMatch]) -> None:
        records = self.manager.mark_injected(matches)
        self.rein.append_entry(
            INJECTION_ENTRY,
            {"rules": [m.name for m in matches], "records": [r.to_dict() for r in records]},
        )


def _assistant(event: Notice) -> AssistantMessage | None:
    message = getattr(event.payload, "message", None)
    return message if isinstance(message, AssistantMessage) else None
