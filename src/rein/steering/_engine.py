"""The steering engine: `evaluate` a tool call before it runs, `dispatch` its result after.

One parse per call; every extracted command is tested against every rule in order; the first rule
whose every predicate passes decides. The engine does no I/O: session entries go through the
context's `EntryStore`, git through its `GitPort`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from rein.steering._gate import pattern_gate
from rein.steering._match import match_ref, tri_all
from rein.steering._observe import speculative_entries, watch_matches
from rein.steering._rule import Observer, Plugin, Predicate, Rule, Tri, When
from rein.steering._types import Context, Entry, Override, RefDecision, ToolCall, ToolResult, Verdict
from rein.steering._when import Position, check_when
from rein.steering.bash import Analysis, CommandRef, Tracker, Unknown, analyze

OVERRIDE = re.compile(r"steering-override:\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s+[-\u2013\u2014]+\s+(\S.*)")
AUDIT_ENTRY = "steering-override"


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """A compiled, validated set of rules and the plugins that supply predicates and trackers."""

    rules: tuple[Rule, ...]
    observers: tuple[Observer, ...] = ()
    plugins: tuple[Plugin, ...] = ()
    on_parse_error: Literal["block", "allow"] = "block"
    predicates: Mapping[str, Predicate] = field(default_factory=lambda: MappingProxyType({}))
    trackers: tuple[Tracker, ...] = ()


@dataclass(slots=True)
class _Fired:
    rule: Rule
    ref: CommandRef | None
    unknown: bool


def _tag(rule: Rule) -> str:
    return f"[steering:{rule.name}@{rule.source}]"


def _reason(fired: _Fired) -> str:
    rule = fired.rule
    text = f"{_tag(rule)} {rule.reason}"
    if fired.unknown:
        what = "; ".join(fired.ref.unknown) if fired.ref and fired.ref.unknown else "a value it needs"
        text += (
            f" (rein could not tell statically whether this rule applies: {what} is only known at run"
            " time, so it blocks; write the command with literal values)"
        )
    if not rule.no_override:
        text += f" To proceed anyway, add the comment: # steering-override: {rule.name} - <why>"
    return text


class Steering:
    """Evaluate tool calls against a `Policy`. Stateless between calls; safe to reuse."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._bash = tuple(rule for rule in policy.rules if rule.tool == "bash")
        # Rules that name their command only need testing against refs of that command; the rest
        # (patterns, tests without a name) against every ref. Order is kept: first match wins.
        self._by_name: dict[tuple[str, bool], tuple[Rule, ...]] = {}
        self._gate, self._gated = pattern_gate(self._bash)
        # The entries a `&&` chain's observers will have written are read by `when.happened` only:
        # with no such rule (or no observer) they are never worked out.
        self._speculate = bool(policy.observers) and any(_asks_happened(rule.when) for rule in self._bash)

    def _candidates(self, ref: CommandRef) -> tuple[Rule, ...]:
        if not ref.argv or ref.argv[0].dynamic or ref.unknown:
            return self._bash  # the command could be anything: every rule may apply
        miss = self._gate is not None and self._gate.search(ref.text) is None
        cached = self._by_name.get((ref.name, miss))
        if cached is None:
            cached = tuple(
                rule
                for rule in self._bash
                if (not rule.matcher.command or ref.name in rule.matcher.command)
                and not (miss and id(rule) in self._gated)
            )
            self._by_name[(ref.name, miss)] = cached
        return cached

    def analyze(self, command: str, context: Context) -> Analysis:
        return analyze(
            command,
            cwd=context.cwd,
            home=context.home,
            env=context.env,
            values={"branch": context.branch},
            trackers=self.policy.trackers,
        )

    def evaluate(self, call: ToolCall, context: Context) -> Verdict:
        """Decide whether `call` may run. Never raises for any input: what it cannot read it blocks,
        and a failure inside a rule or plugin blocks too (fail closed) with the error as the reason."""
        try:
            if call.tool == "bash":
                return self._evaluate_bash(call, context)
            return self._evaluate_file(call, context)
        except Exception as error:
            return Verdict(
                allow=False,
                reason=f"[steering:error@rein] checking this call failed, so it is blocked: {error!r}",
                rule="error",
                source="rein",
            )

    def _fires(self, rule: Rule, context: Context, position: Position, matched: Tri) -> _Fired | None:
        results: list[Tri] = [matched]
        text = position.ref.text if position.ref is not None else ""
        if rule.requires is not None and position.ref is not None:
            results.append(rule.requires.search(text) is not None)
        if rule.unless is not None and position.ref is not None:
            results.append(rule.unless.search(text) is None)
        if False not in results:
            results.append(check_when(rule.when, context, position, self.policy.predicates))
        verdict = tri_all(results)
        if verdict is True:
            return _Fired(rule=rule, ref=position.ref, unknown=False)
        if isinstance(verdict, Unknown) and rule.on_unknown == "block":
            return _Fired(rule=rule, ref=position.ref, unknown=True)
        return None

    def _evaluate_bash(self, call: ToolCall, context: Context) -> Verdict:
        analysis = self.analyze(call.command, context)
        overrides = _overrides(analysis.comments)
        decisions: list[RefDecision] = []
        waived: Override | None = None
        first: _Fired | None = None
        for ref in analysis.refs:
            speculative = (
                speculative_entries(ref, analysis, self.policy.observers, context) if self._speculate else ()
            )
            position = Position(ref=ref, cwd=ref.state.cwd, branch=ref.state.branch, speculative=speculative)
            fired = self._first_rule(self._candidates(ref), context, position, overrides)
            if isinstance(fired, Override):
                waived = waived or fired
                decisions.append(RefDecision(ref=ref))
                continue
            decisions.append(
                RefDecision(
                    ref=ref,
                    rule=fired.rule.name if fired else None,
                    source=fired.rule.source if fired else None,
                    unknown=bool(fired and fired.unknown),
                )
            )
            if fired is not None and first is None:
                first = fired
        if first is not None:
            _on_fire(first, context)
            return Verdict(
                allow=False,
                reason=_reason(first),
                rule=first.rule.name,
                source=first.rule.source,
                ref=first.ref,
                analysis=analysis,
                decisions=tuple(decisions),
            )
        if not analysis.understood and self.policy.on_parse_error == "block":
            return Verdict(
                allow=False,
                reason=(
                    "[steering:unparsed@rein] rein could not understand this command, so it is not run: "
                    f"{analysis.problems[0]}. Rewrite it in plain bash (or split it into simpler commands)."
                ),
                rule="unparsed",
                source="rein",
                analysis=analysis,
                decisions=tuple(decisions),
            )
        if waived is not None:
            context.entries.append(
                AUDIT_ENTRY,
                {"rule": waived.rule, "why": waived.why, "command": call.command},
                context.agent_loop,
            )
        return Verdict(allow=True, analysis=analysis, override=waived, decisions=tuple(decisions))

    def _first_rule(
        self, rules: Sequence[Rule], context: Context, position: Position, overrides: Mapping[str, str]
    ) -> _Fired | Override | None:
        assert position.ref is not None
        waived: Override | None = None
        for rule in rules:
            matched = match_ref(rule.matcher, position.ref, context)
            if matched is False:
                continue
            fired = self._fires(rule, context, position, matched)
            if fired is None:
                continue
            if rule.name in overrides and not rule.no_override:
                waived = waived or Override(rule=rule.name, why=overrides[rule.name])
                continue
            return fired
        return waived

    def _evaluate_file(self, call: ToolCall, context: Context) -> Verdict:
        path = call.path or ""
        absolute = posixpath.normpath(posixpath.join(context.cwd, path)) if path else ""
        position = Position(ref=None, cwd=context.cwd, branch=context.branch)
        for rule in self.policy.rules:
            if rule.tool != call.tool:
                continue
            value = (call.content or "") if rule.field == "content" else path
            matched = _file_match(rule, value, absolute, context.cwd)
            if matched is False:
                continue
            fired = self._fires(rule, context, position, matched)
            if fired is not None:
                _on_fire(fired, context)
                return Verdict(allow=False, reason=_reason(fired), rule=rule.name, source=rule.source)
        return Verdict(allow=True)

    def dispatch(self, result: ToolResult, context: Context) -> list[Entry]:
        """Run every observer whose watch matches `result`; returns the entries written."""
        written: list[Entry] = []
        if not self.policy.observers:
            return written
        call = result.call
        parsed: tuple[CommandRef, ...] | None = None

        def refs() -> tuple[CommandRef, ...]:
            # Parsed at most once, and only for a watch the raw command does not match already.
            nonlocal parsed
            if parsed is None:
                parsed = self.analyze(call.command, context).refs if call.tool == "bash" else ()
            return parsed

        for observer in self.policy.observers:
            if not watch_matches(observer.watch, result, refs, context.cwd):
                continue
            produced = _observer_entries(observer, result, context)
            for entry_type, data in produced.items():
                written.append(context.entries.append(entry_type, data, context.agent_loop))
        return written


def _asks_happened(when: When) -> bool:
    """Whether `when` reads entries (`happened`, also under `not`), so speculative ones matter."""
    return when.happened is not None or (when.not_ is not None and _asks_happened(when.not_))


def _file_match(rule: Rule, value: str, absolute: str, cwd: str) -> Tri:
    pattern = rule.matcher.pattern
    if pattern is None:
        return False
    if pattern.search(value) is not None:
        return True
    return rule.field == "path" and bool(absolute) and pattern.search(absolute) is not None


def _observer_entries(
    observer: Observer, result: ToolResult, context: Context
) -> Mapping[str, Mapping[str, object]]:
    if observer.on_result is not None:
        return observer.on_result(result, context) or {}
    data: dict[str, object] = {"observer": observer.name, "tool": result.call.tool}
    if result.call.tool == "bash":
        data.update(command=result.call.command, exit_code=result.exit_code)
    else:
        data.update(path=result.call.path)
    return dict.fromkeys(observer.writes, data)


def _overrides(comments: Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for comment in comments:
        match = OVERRIDE.search(comment)
        if match:
            found.setdefault(match.group(1), match.group(2).strip())
    return found


def _on_fire(fired: _Fired, context: Context) -> None:
    rule = fired.rule
    entries: dict[str, Mapping[str, object]] = {t: {"rule": rule.name} for t in rule.writes_on_fire}
    if rule.on_fire is not None:
        entries.update(rule.on_fire(fired.ref, context) or {})
    for entry_type, data in entries.items():
        context.entries.append(entry_type, data, context.agent_loop)
