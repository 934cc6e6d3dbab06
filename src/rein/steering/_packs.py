"""Packs: rein's default rules for destructive operations beyond git, as data a person can read.

Each pack is one TOML file in `rein/steering/packs/` (`disk.toml`, `database.toml`, ...): a name, a
line on what it stops and one on what it lets through, a default verdict, and `[[rule]]` tables in
the schema of `.rein/steering.toml` (programs, subcommands, options, targets, the files a command
writes, SQL statement kinds, code patterns). A rule names its programs, so a pack costs nothing for a
command none of them appears in.

A person sets a pack's or a rule's verdict in `.rein/steering.toml`:
`packs = { database = "ask", cloud = "block", publish = "off", "containers-system-prune" = "block" }`.
A rule's own setting wins over its pack's; within each, the file closest to the cwd wins.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Literal, cast, get_args

from rein.steering._names import check_name
from rein.steering._rule import Decision, Rule
from rein.steering._schema import Reader, read_rule, table_lines
from rein.steering.errors import ConfigError

Setting = Literal["block", "ask", "off"]
SETTINGS: tuple[Setting, ...] = get_args(Setting)
SOURCE = "packs"
PACKS = Path(__file__).with_name("packs")
"""rein's pack files, shipped beside this module."""
PACK_KEYS = frozenset({"name", "summary", "allows", "verdict", "rule"})
ORDER = (
    "disk", "permissions", "system", "database", "containers", "kubernetes", "cloud", "iac", "hosting",
    "publish",
)  # fmt: skip
"""How `rein packs` and the docs list them; a pack not named here comes after, by name."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Pack:
    name: str
    summary: str
    """What it blocks or asks about, in a line."""
    allows: str
    """What it lets through that looks alike, in a line."""
    verdict: Decision
    rules: tuple[Rule, ...]
    file: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleState:
    """One pack rule as it stands in a policy: its verdict (or off) and where that came from."""

    name: str
    verdict: Setting
    source: str
    """`default`, or the config file (and key) that set it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PackState:
    pack: Pack
    verdict: Setting
    source: str
    rules: tuple[RuleState, ...]


def read_pack(text: str, file: str, *, lazy: bool = False) -> Pack:
    """One pack file's text as a `Pack`; errors name the file and the rule's line. `lazy`: its
    regexes compile at their first search (rein's own packs, whose patterns the tests compile)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"not valid TOML: {error}", file=file) from None
    top = Reader(data, file=file, line=None, what="pack")
    top.known(PACK_KEYS)
    name = check_name("pack", data.get("name"), file=file)
    verdict = top.choice("verdict", get_args(Decision), "block")
    tables = data.get("rule", [])
    if not isinstance(tables, list) or not tables:
        raise ConfigError("pack: needs [[rule]] tables", file=file)
    lines = table_lines(text, "rule")
    rules: list[Rule] = []
    for index, table in enumerate(cast(list[object], tables)):
        if not isinstance(table, dict):
            raise ConfigError("pack: each [[rule]] must be a table", file=file)
        line = lines[index] if index < len(lines) else None
        rule = read_rule(
            cast(dict[str, object], table),
            file=file,
            line=line,
            index=index,
            default_verdict=verdict,
            lazy=lazy,
        )
        if not rule.name.startswith(f"{name}-"):
            problem = f"rule {rule.name!r}: a pack's rule names start with {name + '-'!r}"
            raise ConfigError(problem, file=file, line=line)
        if rule.tool != "bash":
            raise ConfigError(f"rule {rule.name!r}: pack rules are about bash commands", file=file, line=line)
        matcher = replace(rule.matcher, name_alone=False)  # see `Matcher.name_alone`
        rules.append(replace(rule, source=SOURCE, pack=name, matcher=matcher))
    return Pack(
        name=name,
        summary=top.string("summary") or "",
        allows=top.string("allows") or "",
        verdict=cast(Decision, verdict),
        rules=tuple(rules),
        file=file,
    )


@cache
def default_packs() -> tuple[Pack, ...]:
    """rein's own packs, read once from the files shipped with it."""
    found = [
        read_pack(entry.read_text(encoding="utf-8"), f"rein/steering/packs/{entry.name}", lazy=True)
        for entry in PACKS.glob("*.toml")
    ]
    rank = {name: index for index, name in enumerate(ORDER)}
    return tuple(sorted(found, key=lambda pack: (rank.get(pack.name, len(ORDER)), pack.name)))


Settings = Sequence[tuple[str, Mapping[str, Setting]]]
"""Each config file's `packs` table, innermost file first: (file, key to setting)."""


def pack_states(packs: Sequence[Pack], settings: Settings, disabled: frozenset[str]) -> tuple[PackState, ...]:
    """Each pack's and each rule's verdict after the person's settings. Raises `ConfigError` for a
    key that names no pack and no pack rule."""
    names = {pack.name for pack in packs} | {rule.name for pack in packs for rule in pack.rules}
    for file, table in settings:
        for key in table:
            if key not in names:
                known = ", ".join(pack.name for pack in packs)
                raise ConfigError(f"packs: no pack or pack rule is named {key!r} (packs: {known})", file=file)
    states: list[PackState] = []
    for pack in packs:
        verdict, source = _setting(pack.name, settings) or (pack.verdict, "default")
        rules: list[RuleState] = []
        for rule in pack.rules:
            own = _setting(rule.name, settings)
            if rule.name in disabled:
                rules.append(RuleState(name=rule.name, verdict="off", source="disabled_rules"))
            elif own is not None:
                rules.append(RuleState(name=rule.name, verdict=own[0], source=own[1]))
            elif source != "default" or rule.verdict == pack.verdict:
                rules.append(RuleState(name=rule.name, verdict=verdict, source=source))
            else:  # the pack file gives this rule its own verdict
                rules.append(RuleState(name=rule.name, verdict=rule.verdict, source="default"))
        states.append(PackState(pack=pack, verdict=verdict, source=source, rules=tuple(rules)))
    return tuple(states)


def _setting(key: str, settings: Settings) -> tuple[Setting, str] | None:
    for file, table in settings:
        if key in table:
            return table[key], f"{file} (packs.{key})"
    return None


def pack_rules(states: Sequence[PackState]) -> list[Rule]:
    """The rules in force, block rules first (a command that both blocks and asks is blocked)."""
    rules: list[Rule] = []
    for state in states:
        by_name = {rule.name: rule for rule in state.pack.rules}
        for rule_state in state.rules:
            if rule_state.verdict != "off":
                rules.append(replace(by_name[rule_state.name], verdict=rule_state.verdict))
    return sorted(rules, key=lambda rule: rule.verdict != "block")
