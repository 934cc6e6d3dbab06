"""The steering engine: `evaluate` a tool call before it runs, `dispatch` its result after.

One parse per call; every extracted command is tested against every rule in order; the first rule
whose every predicate passes decides. The engine does no I/O: session entries go through the
context's `EntryStore`, git through its `GitPort`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from rein.steering._anyname import may_run_something
from rein.steering._anytool import any_tool, command_elsewhere, match_args, tool_matches
from rein.steering._gate import pattern_gate
from rein.steering._match import first_words, match_ref, subcommand_key, tri_all
from rein.steering._observe import observer_entries, speculative_entries, watch_matches
from rein.steering._packs import PackState
from rein.steering._pattern import TIMED_OUT, found
from rein.steering._provenance import SessionDisk, record
from rein.steering._reasons import UNKNOWN_RULE, Fired, rule_reason, unknown_reason
from rein.steering._rule import Observer, Plugin, Predicate, Rule, Tri, When
from rein.steering._types import Context, Entry, Override, RefDecision, ToolCall, ToolResult, Verdict
from rein.steering._when import Position, check_when
from rein.steering.bash import Analysis, CommandRef, Tracker, Unknown, analyze
from rein.steering.bash.commands import KNOWN

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
    packs: tuple[PackState, ...] = ()
    """rein's packs and each rule's verdict after the person's settings (for `rein packs`)."""

    def allows_override(self, rule: Rule) -> bool:
        """Whether an override comment may lift `rule`: only where the person's configuration says so."""
        return not rule.no_override and (rule.allow_override or rule.name in self.overridable)


class Steering:
    """Evaluate tool calls against a `Policy`. Stateless between calls; safe to reuse."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._bash = tuple(rule for rule in policy.rules if rule.tool == "bash")
        self._any = tuple(rule for rule in policy.rules if any_tool(rule.tool))
        self._steers: dict[str, bool] = {}
        # Rules that name their command only need testing against refs of that command; the rest
        # (patterns, tests without a name) against every ref. Order is kept: first match wins.
        self._by_name: dict[tuple[str, bool, str | None, bool, bool], tuple[Rule, ...]] = {}
        self._firsts = first_words(self._bash)
        self._gate, self._gated = pattern_gate(self._bash)
        # The entries a `&&` chain's observers will have written are read by `when.happened` only:
        # with no such rule (or no observer) they are never worked out.
        self._speculate = bool(policy.observers) and any(_asks_happened(rule.when) for rule in self._bash)
        # Names an unknown program's arguments are read as commands by (`hyperfine 'git push -f'`):
        # the programs rules are about, but not a pack's, whose names are verbs of many tools too
        # (`qm shutdown 100`, `VBoxManage controlvm vm poweroff`, `lxc init`).
        self._known = frozenset(name for rule in self._bash if not rule.pack for name in rule.matcher.command)
        self._all_known = KNOWN | self._known

    def steers(self, tool: str) -> bool:
        """Whether a rule or an observer may apply to calls of `tool` (always, for bash and the file
        tools): a host need not pass the calls of other tools to `evaluate` and `dispatch`."""
        if not any_tool(tool):
            return True
        known = self._steers.get(tool)
        if known is None:
            globs = [rule.tool for rule in self._any] + [o.watch.tool for o in self.policy.observers]
            known = self._steers[tool] = any(tool_matches(glob, tool) for glob in globs)
        return known

    def _may_run(self, ref: CommandRef) -> bool:
        """A program named only at run time that no rule applies to under any name it is about: it
        is unknown only when its arguments could hand it a command to run (`_anyname`), or when more
        than its name is unknown."""
        dynamic_name = f"command name is dynamic: {ref.argv[0].raw}"
        return any(why != dynamic_name for why in ref.unknown) or may_run_something(ref, self._all_known)

    def _candidates(self, ref: CommandRef) -> tuple[Rule, ...]:
        if not ref.argv or ref.name_dynamic or ref.unknown:
            return self._bash  # the command could be anything: every rule may apply
        miss = self._gate is not None and found(self._gate, ref.text) is False
        sub = subcommand_key(ref, self._firsts)
        stranger = ref.kind == "unknown"
        writes = bool(ref.writes)
        cached = self._by_name.get((ref.name, miss, sub, stranger, writes))
        if cached is None:
            cached = tuple(
                rule
                for rule in self._bash
                if (not rule.matcher.command or ref.name in rule.matcher.command)
                and (writes or not rule.matcher.writes)  # a rule about files written, for a writer
                and (not rule.matcher.tried_on or stranger or ref.name in rule.matcher.tried_on)
                and not (miss and id(rule) in self._gated)
                and (
                    sub is None
                    or not rule.matcher.subcommand
                    or any(s[:1] in ((), (sub,)) for s in rule.matcher.subcommand)
                )
            )
            self._by_name[(ref.name, miss, sub, stranger, writes)] = cached
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
            disk=SessionDisk(context.files, context) if context.files is not None else None,
        )

    def evaluate(self, call: ToolCall, context: Context) -> Verdict:
        """Decide whether `call` may run. Never raises for any input: what it cannot read it blocks,
        and a failure inside a rule or plugin blocks too (fail closed) with the error as the reason."""
        try:
            if any_tool(call.tool):
                return command_elsewhere(call) or self._evaluate_any(call, context)
            verdict = (
                self._evaluate_bash(call, context)
                if call.tool == "bash"
                else self._evaluate_file(call, context)
            )
            if verdict.allow:
                record(call, verdict.analysis, context)
            return verdict
        except Exception as error:
            return Verdict(
                allow=False,
                reason=(
                    f"[steering:error@rein] checking this call failed, so it is blocked: {error!r}."
                    " Split it into simpler commands, or ask the user."
                ),
                rule="error",
                source="rein",
            )

    def _fires(self, rule: Rule, context: Context, position: Position, matched: Tri) -> Fired | None:
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
            return Fired(rule=rule, ref=position.ref, unknown=False)
        if isinstance(verdict, Unknown) and rule.on_unknown == "block":
            return Fired(rule=rule, ref=position.ref, unknown=True, timed_out=verdict is TIMED_OUT)
        return None

    def _evaluate_bash(self, call: ToolCall, context: Context) -> Verdict:
        """The first command a rule certainly applies to decides; else a walk that stopped early, or
        input not understood, blocks; else the first rule that may apply where a value is unknown;
        else a command whose content cannot be known at all."""
        analysis = self.analyze(call.command, context)
        overrides = _overrides(analysis.comments)
        decisions: list[RefDecision] = []
        waived: Override | None = None
        definite: Fired | None = None
        maybe: Fired | None = None
        opaque: Fired | None = None
        asked: Fired | None = None  # the first rule that asks: only when nothing blocks
        for ref in analysis.refs:
            speculative = (
                speculative_entries(ref, analysis, self.policy.observers, context) if self._speculate else ()
            )
            position = Position(ref=ref, cwd=ref.state.cwd, branch=ref.state.branch, speculative=speculative)
            fired = self._first_rule(self._candidates(ref), context, position, overrides)
            if fired is None and ref.name_dynamic and not ref.lenient and self._may_run(ref):
                fired = Fired(rule=UNKNOWN_RULE, ref=ref, unknown=True)  # `$X -c '...'`: a shell, maybe
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
                rule = fired.rule
                ask = rule.verdict == "ask"
                decisions.append(
                    RefDecision(
                        ref=ref, rule=rule.name, source=rule.source, unknown=fired.unknown,
                        pack=rule.pack or None, ask=ask,
                    )
                )  # fmt: skip
                if ask:  # a definite ask says more than one on a value rein cannot read
                    asked = fired if asked is None or (asked.unknown and not fired.unknown) else asked
                elif fired.unknown:
                    maybe = maybe or fired
                else:
                    definite = definite or fired
        done = tuple(decisions)
        if definite is not None:
            return self._block(
                definite, rule_reason(definite, self.policy, overrides), analysis, done, context
            )
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
            return self._block(maybe, rule_reason(maybe, self.policy, overrides), analysis, done, context)
        if opaque is not None:
            reason = unknown_reason(opaque, self.policy, overrides)
            verdict = self._block(opaque, reason, analysis, done, context)
            return replace(verdict, rule=UNKNOWN_RULE.name, source=UNKNOWN_RULE.source)
        if asked is not None:
            verdict = self._block(asked, rule_reason(asked, self.policy, overrides), analysis, done, context)
            return replace(verdict, ask=True)
        if waived is not None:
            context.entries.append(
                AUDIT_ENTRY,
                {"rule": waived.rule, "source": waived.source, "why": waived.why, "command": call.command},
                context.agent_loop,
            )
        return Verdict(allow=True, analysis=analysis, override=waived, decisions=done)

    def _block(
        self,
        fired: Fired,
        reason: str,
        analysis: Analysis,
        decisions: tuple[RefDecision, ...],
        context: Context,
    ) -> Verdict:
        _on_fire(fired, context)
        rule = fired.rule
        return Verdict(
            allow=False, reason=reason, rule=rule.name, source=rule.source, ref=fired.ref, analysis=analysis,
            decisions=decisions, pack=rule.pack or None,
        )  # fmt: skip

    def _first_rule(
        self, rules: Sequence[Rule], context: Context, position: Position, overrides: Mapping[str, str]
    ) -> Fired | Override | None:
        assert position.ref is not None
        waived: Override | None = None
        opaque = bool(position.ref.unknown)
        for rule in rules:
            matched = match_ref(rule.matcher, position.ref, context)
            if matched is False:
                continue
            fired = self._fires(rule, context, position, matched)
            if fired is None or (fired.unknown and position.ref.lenient):
                continue  # in a file of the person's only a definite finding blocks
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

        def match(rule: Rule) -> Tri:
            if rule.tool != call.tool:
                return False
            value = (call.content or "") if rule.field == "content" else path
            return _file_match(rule, value, absolute, context.cwd)

        return self._first_call_rule(self.policy.rules, match, context)

    def _evaluate_any(self, call: ToolCall, context: Context) -> Verdict:
        """A call of any other tool (MCP, an extension's): the rules on its name, on its arguments."""
        if not self._any:
            return Verdict(allow=True)
        return self._first_call_rule(
            self._any,
            lambda rule: match_args(rule, call) if tool_matches(rule.tool, call.tool) else False,
            context,
        )

    def _first_call_rule(
        self, rules: Sequence[Rule], match: Callable[[Rule], Tri], context: Context
    ) -> Verdict:
        """The first rule that blocks a call that is no command decides; else the first that asks."""
        position = Position(ref=None, cwd=context.cwd, branch=context.branch)
        asked: Fired | None = None  # a rule that asks decides only when none blocks
        for rule in rules:
            if asked is not None and rule.verdict == "ask":
                continue
            matched = match(rule)
            if matched is False:
                continue
            fired = self._fires(rule, context, position, matched)
            if fired is not None and rule.verdict == "ask":
                asked = fired
            elif fired is not None:
                return self._file_verdict(fired, context)
        return Verdict(allow=True) if asked is None else self._file_verdict(asked, context)

    def _file_verdict(self, fired: Fired, context: Context) -> Verdict:
        _on_fire(fired, context)
        rule = fired.rule
        return Verdict(
            allow=False, ask=rule.verdict == "ask", reason=rule_reason(fired, self.policy, {}),
            rule=rule.name, source=rule.source, pack=rule.pack or None,
        )  # fmt: skip

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
            produced = observer_entries(observer, result, context)
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


def _overrides(comments: Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for comment in comments:
        match = OVERRIDE.search(comment)
        if match:
            found.setdefault(match.group(1), match.group(2).strip())
    return found


def _on_fire(fired: Fired, context: Context) -> None:
    rule = fired.rule
    entries: dict[str, Mapping[str, object]] = {t: {"rule": rule.name} for t in rule.writes_on_fire}
    if rule.on_fire is not None:
        entries.update(rule.on_fire(fired.ref, context) or {})
    for entry_type, data in entries.items():
        context.entries.append(entry_type, data, context.agent_loop)
