"""The stream-rules manager: what the agent loop calls on every delta.

Lifecycle, per turn: `check_delta` for every text, thinking and tool-call delta (with `final=True`, or
`end_block`, when a block ends); a match with `interrupt` means cut the generation, inject
`render_interrupt(...)`, `mark_injected(...)` and retry; `reset()` before the next provider call;
`turn_completed()` at each turn end. Persist `snapshot()` and hand it to `restore()` on resume.

No method raises on stream input. The manager does no I/O, reads no clock of its own (one is injected),
and is not thread-safe: one manager per session, used from one thread at a time.
"""

from __future__ import annotations

import functools
import json
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from rein.ttsr._jsonargs import JsonArgsDecoder
from rein.ttsr._matcher import Hit, StreamMatcher
from rein.ttsr._plan import PlannedCondition, RulePlan, SourcePlan, plan_rules
from rein.ttsr._rule import InterruptMode, Rule, RuleIssue, Source
from rein.ttsr._scope import glob_matches
from rein.ttsr._settings import TtsrSettings, select_rules
from rein.ttsr._snapshots import KEPT_SCANS, Kept, Skip, TailPlan
from rein.ttsr._templates import INTERRUPT_TEMPLATE, REMINDER_TEMPLATE, Templates, render
from rein.ttsr._values import InjectionRecord, MatchContext, RuleMatch, TtsrState

_Gate = Literal["ok", "scope", "paths", "repeat", "cooldown"]


@dataclass(slots=True)
class _Stream:
    matcher: StreamMatcher
    decoder: JsonArgsDecoder | None
    paths: list[str]
    pending: dict[int, Hit] = field(default_factory=dict)
    """Rules matched but held by a gate that can still open in this stream (a path, a cooldown)."""
    recheck_each_delta: bool = False


@functools.lru_cache(maxsize=16)
def _cached_plan(rules: tuple[Rule, ...]) -> RulePlan:
    return plan_rules(rules)


def allows_interrupt(mode: InterruptMode, source: Source) -> bool:
    """Whether `mode` lets a match on `source` cut the generation."""
    if mode == "always":
        return True
    if mode == "prose-only":
        return source in ("text", "thinking")
    if mode == "tool-only":
        return source == "tool"
    return False


class TtsrManager:
    """Stream rules for one session. Build it once per rule set; rules compile once (cached in memory)."""

    def __init__(
        self,
        rules: Iterable[Rule] = (),
        settings: TtsrSettings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        templates: Templates | None = None,
        root: str | None = None,
        eager: bool = False,
    ) -> None:
        """`clock` gives seconds for `cooldown`; `root` (the project directory) lets globs such as
        `src/**/*.py` match absolute paths under it. `eager` confirms every candidate on the delta that
        completes it, never later (a proxy holding text back relies on that; it costs more per delta)."""
        self.settings = settings or TtsrSettings()
        kept, skipped = select_rules(rules, self.settings)
        self._plan = _cached_plan(tuple(kept))
        self.issues: tuple[RuleIssue, ...] = (*skipped, *self._plan.issues)
        """Rules not loaded by this manager (shadowed, disabled, refused by the matcher), each once."""
        self._rules = self._plan.rules
        self._names = tuple(rule.name for rule in self._rules)
        self._sources: Mapping[Source, SourcePlan] = self._plan.sources
        self._clock = clock
        self._eager = eager
        self._root = root.replace("\\", "/").rstrip("/") if root else None
        self.templates = templates or Templates(
            interrupt=self.settings.interrupt_template or INTERRUPT_TEMPLATE,
            reminder=self.settings.reminder_template or REMINDER_TEMPLATE,
        )
        self._streams: dict[str, _Stream] = {}
        self._snapshots: dict[str, Kept[_Stream]] = {}
        self._tails: dict[Source, TailPlan] = {}
        self._reported: set[str] = set()
        self._records: dict[str, InjectionRecord] = {}
        self._turns = 0
        self._disabled: set[int] = set()
        self._runtime: list[RuleIssue] = []

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules this manager watches for, in discovery order."""
        return self._rules

    @property
    def plan(self) -> RulePlan:
        return self._plan

    @property
    def turns(self) -> int:
        """Completed turns (`turn_completed` calls, or as restored)."""
        return self._turns

    @property
    def runtime_issues(self) -> tuple[RuleIssue, ...]:
        """Conditions switched off while matching (a regex timeout), each reported once."""
        return tuple(self._runtime)

    def check_delta(self, delta: str, context: MatchContext, final: bool = False) -> tuple[RuleMatch, ...]:
        """Feed the next delta of a stream; return the rules that match now and pass every gate.

        `final=True` marks the end of the block (a text block, a thinking block, a tool call): it runs the
        end-of-block check (`$`, a trailing `\\b`) and closes the stream. Never raises.
        """
        if not self.settings.enabled:
            return ()
        plan = self._sources.get(context.source)
        if plan is None:
            return ()
        key = context.source if context.source != "tool" else context.stream_key
        try:
            stream = self._streams.get(key)
            if stream is None:
                stream = self._streams[key] = self._open(plan, context)
            hits, paths_changed = self._feed(stream, delta, context)
            if final:
                hits += stream.matcher.finish()
                del self._streams[key]
            if not hits and not (stream.pending and (paths_changed or final or stream.recheck_each_delta)):
                return ()
            return self._admit(stream, hits, context, final=final)
        except Exception as error:  # pragma: no cover - a bug must not kill the turn; it is reported
            self._runtime.append(RuleIssue(path="", reason=f"internal error while matching: {error!r}"))
            self._streams.pop(key, None)
            return ()

    def end_block(self, context: MatchContext) -> tuple[RuleMatch, ...]:
        """The end-of-block check alone: `check_delta("", context, final=True)`."""
        return self.check_delta("", context, final=True)

    def check_snapshot(
        self, arguments: str | Mapping[str, object], context: MatchContext
    ) -> tuple[RuleMatch, ...]:
        """Check a tool call's arguments (JSON text or a mapping) as they stand, as one finished block.

        For hosts that see tool input whole (a pre-tool-use hook), or as a growing snapshot. Independent
        of the streams of `check_delta`. A snapshot that extends the previous one of the same stream (same
        context, its text starts with the previous text) continues that scan, so a tool call whose
        arguments grow snapshot by snapshot costs linear time; any other snapshot starts over. Either way
        it reports what a scan of the snapshot alone would. Never raises.
        """
        plan = self._sources.get(context.source)
        if not self.settings.enabled or plan is None:
            return ()
        text = arguments if isinstance(arguments, str) else json.dumps(dict(arguments), ensure_ascii=False)
        try:
            if plan.block_db is not None or plan.chunk_fallbacks:
                # A `chunk` rule reads the snapshot as one chunk: only a whole scan keeps that meaning.
                return self._scan_whole(plan, text, context)
            return self._scan_snapshot(plan, text, context)
        except Exception as error:  # pragma: no cover - a bug must not kill the call; it is reported
            self._runtime.append(RuleIssue(path="", reason=f"internal error while matching: {error!r}"))
            self._drop_snapshot(context.stream_key)
            return ()

    def _scan_whole(self, plan: SourcePlan, text: str, context: MatchContext) -> tuple[RuleMatch, ...]:
        stream = self._open(plan, context)
        hits, _ = self._feed(stream, text, context)
        hits += stream.matcher.finish()
        return self._admit(stream, hits, context, final=True)

    def _scan_snapshot(self, plan: SourcePlan, text: str, context: MatchContext) -> tuple[RuleMatch, ...]:
        key = context.stream_key
        state = self._snapshots.pop(key, None)
        if state is None or not state.continues(text, context):
            if state is not None:
                state.stream.matcher.close()
            stream = self._open(plan, context)
            state = Kept(stream, stream.matcher, context)
        self._snapshots[key] = state
        while len(self._snapshots) > KEPT_SCANS:
            self._drop_snapshot(next(iter(self._snapshots)))
        state.extend(text, lambda piece: self._feed(state.stream, piece, context)[0])
        tail = self._tails.get(context.source)
        if tail is None:
            tail = self._tails[context.source] = TailPlan.build(plan)
        skip = Skip(state.seen, self._names, self._reported)
        ended = tail.peek(state.matcher, state.tail, skip, (self._disabled, self._on_issue))
        return self._admit(state.stream, [*state.seen.values(), *ended], context, final=True)

    def _drop_snapshot(self, key: str) -> None:
        state = self._snapshots.pop(key, None)
        if state is not None:
            state.stream.matcher.close()

    def reset(self) -> None:
        """Start a new turn's streams: drop every buffer (open streams are closed unreported) and forget
        which rules were reported this turn. Injection records and the turn count stay."""
        for stream in self._streams.values():
            stream.matcher.close()
        self._streams.clear()
        for key in list(self._snapshots):
            self._drop_snapshot(key)
        self._reported.clear()

    def turn_completed(self) -> None:
        """Count one completed turn (for `after-gap`)."""
        self._turns += 1

    def mark_injected(self, rules: Iterable[Rule | RuleMatch | str]) -> tuple[InjectionRecord, ...]:
        """Record that these rules were injected now; returns the new records (persist them)."""
        out: list[InjectionRecord] = []
        for item in rules:
            name = item if isinstance(item, str) else item.name
            old = self._records.get(name)
            record = InjectionRecord(
                rule=name, turn=self._turns, at=self._clock(), count=(old.count + 1) if old else 1
            )
            self._records[name] = record
            out.append(record)
        return tuple(out)

    def injection_records(self) -> tuple[InjectionRecord, ...]:
        return tuple(self._records.values())

    def snapshot(self) -> TtsrState:
        return TtsrState(turns=self._turns, records=self.injection_records())

    def restore(self, state: TtsrState) -> None:
        """Resume from persisted state: the turn count and, per rule, its latest record. Does nothing
        while stream rules are disabled (`settings.enabled` false), as the original ignores it then."""
        if not self.settings.enabled:
            return
        self._turns = state.turns
        self._records.clear()
        for record in state.records:
            old = self._records.get(record.rule)
            if old is None or (record.turn, record.at, record.count) >= (old.turn, old.at, old.count):
                self._records[record.rule] = record

    def can_fire(self, rule: Rule | str) -> bool:
        """Whether the repeat policy (or `max_firings`/`cooldown`) lets `rule` fire now."""
        found = rule if isinstance(rule, Rule) else next((r for r in self._rules if r.name == rule), None)
        return found is not None and self._repeat_gate(found) == "ok"

    def interrupts(self, rule: Rule, source: Source) -> bool:
        """The interrupt decision: the global mode and the rule's mode must both allow `source`."""
        return allows_interrupt(self.settings.interrupt_mode, source) and allows_interrupt(
            rule.interrupt_mode or "always", source
        )

    def render_interrupt(self, matches: Iterable[RuleMatch]) -> str:
        return render(self.templates.interrupt, matches)

    def render_reminder(self, matches: Iterable[RuleMatch]) -> str:
        return render(self.templates.reminder, matches)

    def _open(self, plan: SourcePlan, context: MatchContext) -> _Stream:
        decoder = JsonArgsDecoder() if context.source == "tool" and context.json_arguments else None
        matcher = StreamMatcher(plan, self._disabled, self._on_issue, eager=self._eager)
        return _Stream(matcher=matcher, decoder=decoder, paths=self._expand(context.file_paths))

    def _feed(self, stream: _Stream, delta: str, context: MatchContext) -> tuple[list[Hit], bool]:
        changed = False
        if context.file_paths:
            for path in self._expand(context.file_paths):
                if path not in stream.paths:
                    stream.paths.append(path)
                    changed = True
        if stream.decoder is None:
            return stream.matcher.feed(delta), changed
        text, paths = stream.decoder.feed(delta)
        if paths:
            stream.paths.extend(p for p in self._expand(paths) if p not in stream.paths)
            changed = True
        return stream.matcher.feed(text), changed

    def _expand(self, paths: Iterable[str]) -> list[str]:
        out: list[str] = []
        for path in paths:
            out.append(path)
            normalized = path.replace("\\", "/")
            if self._root and normalized.startswith(self._root + "/"):
                out.append(normalized[len(self._root) + 1 :])
        return out

    def _admit(
        self, stream: _Stream, hits: list[Hit], context: MatchContext, *, final: bool
    ) -> tuple[RuleMatch, ...]:
        candidates = [*hits, *stream.pending.values()]
        stream.pending.clear()
        stream.recheck_each_delta = False
        out: list[RuleMatch] = []
        for hit in candidates:
            rule = self._rules[hit.condition.rule_index]
            if rule.name in self._reported:
                continue
            gate, path = self._gate(rule, context, stream.paths)
            if gate == "ok":
                self._reported.add(rule.name)
                out.append(self._match(stream, hit, rule, context, path))
            elif gate in ("paths", "cooldown") and not final:
                stream.pending[hit.condition.rule_index] = hit
                stream.recheck_each_delta |= gate == "cooldown"
        return tuple(out)

    def _gate(self, rule: Rule, context: MatchContext, paths: list[str]) -> tuple[_Gate, str | None]:
        path: str | None = None
        if context.source == "tool" and not rule.scope.any_tool:
            name = (context.tool_name or "").lower()
            tools = [t for t in rule.scope.tools if t.name is None or t.name == name]
            if not tools:
                return "scope", None
            unguarded = any(t.glob is None for t in tools)
            path = next((p for t in tools if t.glob for p in [glob_matches(t.glob, paths)] if p), None)
            if not unguarded and path is None:
                return "paths", None
        if rule.globs:
            found = next((p for g in rule.globs for p in [glob_matches(g, paths)] if p), None)
            if found is None:
                return "paths", None
            path = path or found
        gate = self._repeat_gate(rule)
        if gate != "ok":
            return gate, None
        return "ok", path or (paths[0] if paths else None)

    def _repeat_gate(self, rule: Rule) -> _Gate:
        record = self._records.get(rule.name)
        if record is None:
            return "ok"
        if rule.counts_firings:
            if rule.max_firings is not None and record.count >= rule.max_firings:
                return "repeat"
            if rule.cooldown and self._clock() - record.at < rule.cooldown:
                return "cooldown"
            return "ok"
        if (rule.repeat_mode or self.settings.repeat_mode) == "once":
            return "repeat"
        gap = rule.repeat_gap if rule.repeat_gap is not None else self.settings.repeat_gap
        return "ok" if self._turns - record.turn >= gap else "repeat"

    def _match(
        self, stream: _Stream, hit: Hit, rule: Rule, context: MatchContext, path: str | None
    ) -> RuleMatch:
        text = stream.matcher.text.text()
        start, end = stream.matcher.locate(hit, text)
        argument, base = None, 0
        spans = stream.decoder.spans if stream.decoder is not None else []
        if spans:
            span = spans[max(0, bisect_right([s.offset for s in spans], start) - 1)]
            argument, base = (span.key or None), span.offset
        line_start = max(text.rfind("\n", 0, start) + 1, base)
        line_end = text.find("\n", start)
        excerpt = text[line_start : line_end if line_end >= 0 else len(text)].strip()
        return RuleMatch(
            rule=rule,
            source=context.source,
            interrupt=self.interrupts(rule, context.source),
            engine=hit.condition.engine,
            tool_name=context.tool_name,
            tool_call_id=context.tool_call_id,
            path=path,
            argument=argument,
            offset=start - base,
            line=text.count("\n", base, start) + 1,
            column=start - line_start + 1,
            excerpt=excerpt[:160],
            matched=text[start:end],
        )

    def _on_issue(self, condition: PlannedCondition | None, reason: str) -> None:
        rule = self._rules[condition.rule_index] if condition is not None else None
        self._runtime.append(
            RuleIssue(path=rule.path if rule else "", rule=rule.name if rule else None, reason=reason)
        )
