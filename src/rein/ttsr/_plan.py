"""Compile a rule set once: choose each condition's matching path and build one database per source.

The path of a condition (`Engine`):

- `hyperscan`: compiled as is into the source's streaming database (block database for `chunk` extent).
  Exact, except a `line`-extent pattern that can match a newline (`\\s`, `\\W`, a negated class, ...): its
  stream hit is confirmed with `regex` on the line, since a stream scan lets `\\s*` cross lines.
- `prefilter`: hyperscan cannot compile it (backreference, lookaround, atomic group, possessive
  quantifier), so its `HS_FLAG_PREFILTER` form (a superset) goes into the same database, and each hit is
  confirmed with `regex` on the hit's line (`line`) or a bounded window (`accumulated`).
- `fallback`: even the prefilter is refused (`\\K`, `\\R`, `\\G`, conditionals, huge repeats), or the
  pattern means something else to hyperscan (`{,n}`), or it uses `\\A`/`\\Z`/`\\z` in `line` extent. It runs
  on `regex` alone, on the current line or a bounded window, with a timeout. When the pattern has a
  literal every match must contain (`old_\\Kname` contains `old_name`), that literal goes into the
  database as a gate and `regex` runs only after it appears; otherwise `regex` runs on every delta.

Databases are cached by their expression set (`compile_database`), so building a second manager over the
same rules costs nothing, and sources with equal rule sets (text and tools, usually) share one database.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from rein.ttsr._hyperscan import (
    MULTILINE,
    PREFILTER,
    SINGLEMATCH,
    Database,
    Expression,
    HyperscanFailure,
    Mode,
    compile_database,
    compile_error,
    flags_for,
)
from rein.ttsr._regex import Pattern
from rein.ttsr._rule import Condition, Engine, Extent, Rule, RuleIssue, Source
from rein.ttsr._syntax import compile_condition, pattern_facts, required_literal

LOOKAHEAD_MARGIN = 32
"""Characters that must follow a lookahead match on unfinished text before it counts."""

SOURCES: tuple[Source, ...] = ("text", "thinking", "tool")


@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedCondition:
    """One condition with everything the matcher needs. `key` is unique within a plan."""

    key: int
    rule_index: int
    condition: Condition
    extent: Extent
    engine: Engine
    confirm: bool
    """A hyperscan hit is only a candidate: `regex` must confirm it on its line or window."""
    margin: int
    """Characters that must follow a match on unfinished text before it counts (`\\b`, `$`, lookahead)."""
    regex: Pattern
    note: str = ""
    """Why this path: hyperscan's refusal, or the syntax that decided it."""
    gate: str | None = None
    """For `fallback`: a literal every match contains, scanned by hyperscan; `regex` runs only after it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SourcePlan:
    """The conditions of every rule that watches one source, split by how they are scanned."""

    stream_db: Database | None
    stream_ids: tuple[PlannedCondition, ...]
    """`stream_ids[i]` is the condition with hyperscan id `i` in `stream_db` (`line`, `accumulated`)."""
    block_db: Database | None
    block_ids: tuple[PlannedCondition, ...]
    """`chunk`-extent conditions, scanned one delta at a time in `block_db`."""
    stream_fallbacks: tuple[PlannedCondition, ...]
    """`regex`-only conditions without a gate (`line`, `accumulated`): a permanent check per stream."""
    chunk_fallbacks: tuple[PlannedCondition, ...]
    """`regex`-only conditions without a gate (`chunk`): searched in every delta."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RulePlan:
    """A compiled rule set: accepted rules, their conditions' paths, one `SourcePlan` per watched source."""

    rules: tuple[Rule, ...]
    conditions: tuple[PlannedCondition, ...]
    sources: Mapping[Source, SourcePlan]
    issues: tuple[RuleIssue, ...]


@dataclass(frozen=True, slots=True)
class _Choice:
    engine: Engine | None
    """None: the rule is rejected, `note` says why."""
    confirm: bool
    margin: int
    note: str
    gate: str | None = None


@functools.lru_cache(maxsize=8192)
def _choose(pattern: str, flags: str, extent: Extent) -> _Choice:
    facts = pattern_facts(pattern, flags)
    margin = LOOKAHEAD_MARGIN if facts.lookahead else 1
    hs_flags = _hs_flags(flags, extent)
    if facts.pcre_mismatch:
        return _fallback(pattern, flags, margin, "'{,n}' reads differently in hyperscan")
    if extent == "line" and facts.stream_anchor:
        return _fallback(pattern, flags, margin, "\\A, \\Z, \\z or \\G in line extent")
    error = compile_error(pattern, hs_flags)
    if error is None:
        confirm = extent == "line" and facts.may_cross_newline
        return _Choice("hyperscan", confirm, margin, "confirmed on its line" if confirm else "")
    if "empty" in error.lower():
        return _Choice(None, False, margin, "can match the empty string, so it would fire on any text")
    if compile_error(pattern, hs_flags | PREFILTER) is None:
        return _Choice("prefilter", True, margin, error)
    return _fallback(pattern, flags, margin, error)


def _fallback(pattern: str, flags: str, margin: int, note: str) -> _Choice:
    literal = required_literal(pattern)
    if literal is not None and compile_error(_escape(literal), flags_for(flags)) is None:
        return _Choice("fallback", True, margin, f"{note} (gated by {literal!r})", _escape(literal))
    return _Choice("fallback", False, margin, note)


def _escape(literal: str) -> str:
    return "".join(c if c.isalnum() or c == "_" or ord(c) > 127 else "\\" + c for c in literal)


def _hs_flags(flags: str, extent: Extent) -> int:
    return flags_for(flags) | (MULTILINE if extent == "line" else 0)


def plan_rules(rules: Sequence[Rule]) -> RulePlan:
    """Choose a path for every condition and compile the databases. Never raises: a rule whose condition
    is refused becomes an issue, and a database that fails to build sends its conditions to `fallback`."""
    accepted: list[Rule] = []
    planned: list[PlannedCondition] = []
    issues: list[RuleIssue] = []
    for rule in rules:
        choices = [_choose(c.for_hyperscan, c.flags, rule.extent) for c in rule.conditions]
        refused = next(
            (c for c, choice in zip(rule.conditions, choices, strict=True) if choice.engine is None), None
        )
        if refused is not None:
            reason = next(ch.note for ch in choices if ch.engine is None)
            issues.append(RuleIssue(path=rule.path, rule=rule.name, reason=f"{refused.written!r} {reason}"))
            continue
        index = len(accepted)
        accepted.append(rule)
        for condition, choice in zip(rule.conditions, choices, strict=True):
            assert choice.engine is not None
            planned.append(
                PlannedCondition(
                    key=len(planned),
                    rule_index=index,
                    condition=condition,
                    extent=rule.extent,
                    engine=choice.engine,
                    confirm=choice.confirm or choice.engine == "prefilter",
                    margin=choice.margin,
                    gate=choice.gate,
                    regex=compile_condition(
                        condition.pattern, condition.flags, multiline=rule.extent == "line"
                    ),
                    note=choice.note,
                )
            )
    sources: dict[Source, SourcePlan] = {}
    for source in SOURCES:
        mine = [c for c in planned if accepted[c.rule_index].scope.watches(source)]
        if mine:
            sources[source] = _source_plan(mine, issues)
    return RulePlan(
        rules=tuple(accepted),
        conditions=tuple(planned),
        sources=MappingProxyType(sources),
        issues=tuple(issues),
    )


def _source_plan(conditions: list[PlannedCondition], issues: list[RuleIssue]) -> SourcePlan:
    scanned = [c for c in conditions if c.engine != "fallback" or c.gate is not None]
    fallbacks = [c for c in conditions if c.engine == "fallback" and c.gate is None]
    streamed = [c for c in scanned if c.extent != "chunk"]
    blocks = [c for c in scanned if c.extent == "chunk"]
    stream_db, streamed = _database(streamed, "stream", fallbacks, issues)
    block_db, blocks = _database(blocks, "block", fallbacks, issues)
    return SourcePlan(
        stream_db=stream_db,
        stream_ids=tuple(streamed),
        block_db=block_db,
        block_ids=tuple(blocks),
        stream_fallbacks=tuple(c for c in fallbacks if c.extent != "chunk"),
        chunk_fallbacks=tuple(c for c in fallbacks if c.extent == "chunk"),
    )


def _database(
    conditions: list[PlannedCondition], mode: Mode, fallbacks: list[PlannedCondition], issues: list[RuleIssue]
) -> tuple[Database | None, list[PlannedCondition]]:
    if not conditions:
        return None, []
    expressions = tuple(
        Expression(c.gate or c.condition.for_hyperscan, _expression_flags(c)) for c in conditions
    )
    try:
        return compile_database(expressions, mode), conditions
    except HyperscanFailure as error:
        issues.append(
            RuleIssue(
                path="",
                reason=f"hyperscan could not build the {mode} database ({error}); "
                f"{len(conditions)} conditions run on the fallback matcher instead",
            )
        )
        fallbacks.extend(
            PlannedCondition(
                key=c.key,
                rule_index=c.rule_index,
                condition=c.condition,
                extent=c.extent,
                engine="fallback",
                confirm=False,
                margin=c.margin,
                regex=c.regex,
                note=str(error),
                gate=None,
            )
            for c in conditions
        )
        return None, []


def _expression_flags(condition: PlannedCondition) -> int:
    if condition.gate is not None:
        return flags_for(condition.condition.flags)
    flags = _hs_flags(condition.condition.flags, condition.extent)
    if condition.engine == "prefilter":
        return flags | PREFILTER
    return flags if condition.confirm else flags | SINGLEMATCH
