"""The steering engine: `evaluate` a tool call before it runs, `dispatch` its result after.

One parse per call; every extracted command is tested against every rule in order; the first rule
whose every predicate passes decides. The engine does no I/O: session entries go through the
context's `EntryStore`, git through its `GitPort`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from rein.steering._gate import pattern_gate
from rein.steering._match import first_words, match_ref, subcommand_key, tri_all
from rein.steering._observe import speculative_entries, watch_matches
from rein.steering._pattern import TIMED_OUT, TIMEOUT, found
from rein.steering._rule import Observer, Plugin, Predicate, Rule, Tri, When
from rein.steering._types import TOOLS, Context, Entry, Override, RefDecision, ToolCall, ToolResult, Verdict
from rein.steering._when import Position, check_when
from rein.steering.bash import Analysis, CommandRef, Expansion, Tracker, Unknown, analyze

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
    overridable: frozenset[str] = frozenset()
    """Rules the person lets an agent lift with an override comment (`allow_override = [...]` in a
    config file); `unknown` names the catch-all for commands rein cannot read. Nothing by default."""

    def allows_override(self, rule: Rule) -> bool:
        """Whether an override comment may lift `rule`: only where the person's configuration says so."""
        return not rule.no_override and (rule.allow_override or rule.name in self.overridable)


@dataclass(slots=True)
class _Fired:
    rule: Rule
    ref: CommandRef | None
    unknown: bool
    timed_out: bool = False


def _tag(rule: Rule) -> str:
    return f"[steering:{rule.name}@{rule.source}]"


def _reason(fired: _Fired, policy: Policy, overrides: Mapping[str, str]) -> str:
    rule = fired.rule
    text = f"{_tag(rule)} {rule.reason}"
    if fired.ref is not None and fired.ref.origin:
        text += f" (`{fired.ref.text}` runs from {fired.ref.origin})"
    if fired.timed_out:
        text += (
            f" (this rule's pattern ran past rein's {TIMEOUT * 1000:.0f} ms limit on this command, so"
            " whether it applies is not known and it blocks; make the pattern simpler)"
        )
    elif fired.unknown:
        command = fired.ref.text if fired.ref else ""
        text += (
            f" (rein could not tell statically whether this rule applies to `{command}`:"
            f" {_unknowable(fired.ref)}, so it blocks; write the command with literal values)"
        )
    return text + _override_hint(rule, policy, overrides)


def _override_hint(rule: Rule, policy: Policy, overrides: Mapping[str, str]) -> str:
    """The override recipe, for a rule the person made overridable; for any other rule an agent tried
    to override, that the comment does not lift it (so it stops trying)."""
    if policy.allows_override(rule):
        return f" To proceed anyway, add the comment: # steering-override: {rule.name} - <why>"
    if rule.name in overrides:
        return " An override comment does not lift this rule: only the user's configuration can."
    return ""


def _unknowable(ref: CommandRef | None) -> str:
    """What about a command rein could not know, as a clause."""
    if ref is not None and ref.unknown:
        return "; ".join(ref.unknown)
    if ref is not None:
        options = [word.raw for word in ref.argv if word.parts and _is_option(word.parts[0])]
        if options:
            listed = ", ".join(f"`{word}`" for word in dict.fromkeys(options))
            return f"{listed} abbreviates more than one option"
        words = [word.raw for word in ref.argv if word.dynamic]
        if words:
            listed = ", ".join(f"`{word}`" for word in dict.fromkeys(words))
            return f"the value of {listed} is only known at run time"
    return "a value it needs is only known at run time"


def _is_option(part: object) -> bool:
    """An abbreviation that fits several long options (`git push --forc`)."""
    return isinstance(part, Expansion) and part.kind == "option"


UNKNOWN_RULE = Rule(
    name="unknown",
    source="rein",
    reason="rein cannot tell what this command runs, and a rule may apply to it, so it is not run.",
    origin="rein",
)
"""Decides a command whose content is only known at run time (`eval "$X"`, `bash -c "$CMD"`)."""


def _unknown_reason(fired: _Fired, policy: Policy, overrides: Mapping[str, str]) -> str:
    ref = fired.ref
    text = f"{_tag(UNKNOWN_RULE)} rein cannot tell what `{ref.text if ref else ''}` runs: {_unknowable(ref)}."
    if ref is not None and ref.origin:
        text += f" It runs from {ref.origin}."
    text += (
        " What it runs may be a command a rule blocks, so it is not run."
        " Write the command with literal values, or run the parts separately."
    )
    return text + _override_hint(UNKNOWN_RULE, policy, overrides)


class Steering:
    """Evaluate tool calls against a `Policy`. Stateless between calls; safe to reuse."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._bash = tuple(rule for rule in policy.rules if rule.tool == "bash")
        # Rules that name their command only need testing against refs of that command; the rest
        # (patterns, tests without a name) against every ref. Order is kept: first match wins.
        self._by_name: dict[tuple[str, bool, str | None], tuple[Rule, ...]] = {}
        self._firsts = first_words(self._bash)
        self._gate, self._gated = pattern_gate(self._bash)
        # The entries a `&&` chain's observers will have written are read by `when.happened` only:
        # with no such rule (or no observer) they are never worked out.
        self._speculate = bool(policy.observers) and any(_asks_happened(rule.when) for rule in self._bash)
        self._known = frozenset(name for rule in self._bash for name in rule.matcher.command)

    def _candidates(self, ref: CommandRef) -> tuple[Rule, ...]:
        if not ref.argv or ref.name_dynamic or ref.unknown:
            return self._bash  # the command could be anything: every rule may apply
        miss = self._gate is not None and found(self._gate, ref.text) is False
        sub = subcommand_key(ref, self._firsts)
        cached = self._by_name.get((ref.name, miss, sub))
        if cached is None:
            cached = tuple(
                rule
                for rule in self._bash
                if (not rule.matcher.command or ref.name in rule.matcher.command)
                and not (miss and id(rule) in self._gated)
                and (
                    sub is None
                    or not rule.matcher.subcommand
                    or any(s[:1] in ((), (sub,)) for s in rule.matcher.subcommand)
                )
            )
            self._by_name[(ref.name, miss, sub)] = cached
        return cached

    def analyze(self, command: str, context: Context) -> Analysis:
        return analyze(
            command,
            cwd=context.cwd,
            home=context.home,
            env=context.env,
            values={"branch": context.branch},
            trackers=self.policy.trackers,
            known=self._known,
        )

    def evaluate(self, call: ToolCall, context: Context) -> Verdict:
        """Decide whether `call` may run. Never raises for any input: what it cannot read it blocks,
        and a failure inside a rule or plugin blocks too (fail closed) with the error as the reason."""
        try:
            if call.tool == "bash":
                return self._evaluate_bash(call, context)
            if call.tool not in TOOLS:
                known = ", ".join(TOOLS)
                reason = f"[steering:error@rein] unknown tool {call.tool!r} (one of {known}): it is blocked"
                return Verdict(allow=False, reason=reason, rule="error", source="rein")
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
            results.append(found(rule.requires, text))
        if rule.unless is not None and position.ref is not None:
            unless = found(rule.unless, text)
            results.append(unless if isinstance(unless, Unknown) else not unless)
        if False not in results:
            results.append(check_when(rule.when, context, position, self.policy.predicates))
        verdict = tri_all(results)
        if verdict is True:
            return _Fired(rule=rule, ref=position.ref, unknown=False)
        if isinstance(verdict, Unknown) and rule.on_unknown == "block":
            return _Fired(rule=rule, ref=position.ref, unknown=True, timed_out=verdict is TIMED_OUT)
        return None

    def _evaluate_bash(self, call: ToolCall, context: Context) -> Verdict:
        """The first command a rule certainly applies to decides; else a walk that stopped early, or
        input not understood, blocks; else the first rule that may apply where a value is unknown;
        else a command whose content cannot be known at all."""
        analysis = self.analyze(call.command, context)
        overrides = _overrides(analysis.comments)
        decisions: list[RefDecision] = []
        waived: Override | None = None
        definite: _Fired | None = None
        maybe: _Fired | None = None
        opaque: _Fired | None = None
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
            if fired is None:
                decisions.append(RefDecision(ref=ref))
            elif fired.unknown and ref.unknown:
                decisions.append(
                    RefDecision(ref=ref, rule=UNKNOWN_RULE.name, source=UNKNOWN_RULE.source, unknown=True)
                )
                opaque = opaque or fired
            else:
                decisions.append(
                    RefDecision(
                        ref=ref, rule=fired.rule.name, source=fired.rule.source, unknown=fired.unknown
                    )
                )
                if fired.unknown:
                    maybe = maybe or fired
                else:
                    definite = definite or fired
        done = tuple(decisions)
        if definite is not None:
            return self._block(definite, _reason(definite, self.policy, overrides), analysis, done, context)
        if analysis.exhausted:
            reason = (
                f"[steering:budget@rein] rein stopped analysing this command: {analysis.exhausted}. What it"
                " runs was not fully checked, so it is not run. Split it into simpler commands."
            )
            return Verdict(
                allow=False, reason=reason, rule="budget", source="rein", analysis=analysis, decisions=done
            )
        if analysis.problems and self.policy.on_parse_error == "block":
            reason = (
                "[steering:unparsed@rein] rein could not understand this command, so it is not run: "
                f"{analysis.problems[0]}. Rewrite it in plain bash (or split it into simpler commands)."
            )
            return Verdict(
                allow=False, reason=reason, rule="unparsed", source="rein", analysis=analysis, decisions=done
            )
        if maybe is not None:
            return self._block(maybe, _reason(maybe, self.policy, overrides), analysis, done, context)
        if opaque is not None:
            reason = _unknown_reason(opaque, self.policy, overrides)
            verdict = self._block(opaque, reason, analysis, done, context)
            return replace(verdict, rule=UNKNOWN_RULE.name, source=UNKNOWN_RULE.source)
        if waived is not None:
            context.entries.append(
                AUDIT_ENTRY,
                {"rule": waived.rule, "source": waived.source, "why": waived.why, "command": call.command},
                context.agent_loop,
            )
        return Verdict(allow=True, analysis=analysis, override=waived, decisions=done)

    def _block(
        self,
        fired: _Fired,
        reason: str,
        analysis: Analysis,
        decisions: tuple[RefDecision, ...],
        context: Context,
    ) -> Verdict:
        _on_fire(fired, context)
        rule = fired.rule
        return Verdict(
            allow=False, reason=reason, rule=rule.name, source=rule.source, ref=fired.ref, analysis=analysis,
            decisions=decisions,
        )  # fmt: skip

    def _first_rule(
        self, rules: Sequence[Rule], context: Context, position: Position, overrides: Mapping[str, str]
    ) -> _Fired | Override | None:
        assert position.ref is not None
        waived: Override | None = None
        opaque = bool(position.ref.unknown)
        for rule in rules:
            matched = match_ref(rule.matcher, position.ref, context)
            if matched is False:
                continue
            fired = self._fires(rule, context, position, matched)
            if fired is None:
                continue
            decided = UNKNOWN_RULE if opaque and fired.unknown else rule
            name = decided.name
            if name in overrides and self.policy.allows_override(decided):
                waived = waived or Override(rule=name, why=overrides[name], source=decided.source)
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
                return Verdict(
                    allow=False, reason=_reason(fired, self.policy, {}), rule=rule.name, source=rule.source
                )
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
    hit = found(pattern, value)
    if hit is not False:
        return hit
    return rule.field == "path" and bool(absolute) and found(pattern, absolute)


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
