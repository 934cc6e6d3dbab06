"""Rules, observers and plugins: the values a steering policy is made of.

A rule fires on a command (or a file tool call) when its matcher matches and every `when` predicate
passes; the first rule that fires decides. Rules come from config files (`.rein/steering.toml`), from
plugins (Python modules), and from rein's defaults, in that order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from rein.steering._pattern import Pattern
from rein.steering._types import Context, ToolResult
from rein.steering.bash import CommandRef, Tracker, Unknown

Tri = bool | Unknown
"""A predicate's answer: True, False, or UNKNOWN when a value it needs cannot be known."""

OnUnknown = Literal["block", "allow"]
Decision = Literal["block", "ask"]
"""What a rule that fires does: block the call, or ask the person (blocking where nobody can answer)."""
Scope = Literal["agent_loop", "session", "tool_call"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Happened:
    """`when.happened`: an entry of type `event` exists in scope `in_` (and is newer than `since`)."""

    event: str
    in_: Scope = "agent_loop"
    since: str | None = None
    """Another entry type: the latest `event` must be newer than the latest `since` entry."""


@dataclass(frozen=True, slots=True, kw_only=True)
class When:
    """Predicates that must all pass for a rule to fire. Unset fields pass."""

    cwd: tuple[str, ...] = ()
    """Globs (`~` expanded); the command's effective cwd must match one."""
    branch: tuple[str, ...] = ()
    """Globs; the branch at the command's position must match one."""
    happened: Happened | None = None
    not_: When | None = None
    """Passes when this nested block does not pass."""
    plugin: Mapping[str, object] = dataclasses.field(default_factory=dict)
    """Plugin predicate name to its argument."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PredicateInput:
    """What a plugin predicate sees: the command (None for file tools), its context and the argument."""

    ref: CommandRef | None
    context: Context
    arg: object
    cwd: str | Unknown


Predicate = Callable[[PredicateInput], Tri]
"""A plugin predicate. May return UNKNOWN; must not raise (a raise is reported and blocks)."""

RefTest = Callable[[CommandRef, Context], Tri]
"""Extra structured test a Python-defined rule may add (for example the `rm` target check)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Matcher:
    """What a command must look like. Every set field must match; an empty matcher matches nothing.

    `pattern` is a regex searched in the canonical command line (`ref.text`) or, for file tools, in
    the chosen field. The structured fields read the canonical argv: `command` (basename),
    `subcommand` (leading positional words, global options skipped), `flags` (any present, bundled
    short flags split), `not_flags` (none present), `args` (some positional argument matches).
    """

    pattern: Pattern | None = None
    command: frozenset[str] = frozenset()
    subcommand: tuple[tuple[str, ...], ...] = ()
    flags: frozenset[str] = frozenset()
    not_flags: frozenset[str] = frozenset()
    args: tuple[Pattern, ...] = ()
    writes: tuple[Pattern, ...] = ()
    """Some file the command writes (its redirects, `cp`/`dd of=`/`tee` targets: `ref.writes`)
    matches one of these, by absolute path."""
    sql: frozenset[str] = frozenset()
    """Some statement of the SQL the command runs (a database client's queries, string literals of
    an interpreter one-liner) is of one of these kinds: `drop`, `truncate`, `delete-all`, `update-all`."""
    code: tuple[Pattern, ...] = ()
    """Searched in the code the command runs (`ref.code`: a client's queries, a one-liner's program)."""
    test: RefTest | None = None
    tests_any_name: bool = False
    """`test` itself answers for a command named only at run time (`$X ...`); otherwise, with no
    `command` list to try each name of, such a command is UNKNOWN to the rule."""
    name_alone: bool = True
    """A command named only at run time (`$X ...`) may be this rule's program by its name alone, so
    the rule is UNKNOWN for it. False (packs): only where a field beyond the name matches it
    (`$K delete ns x` may be kubectl deleting a namespace; `$X -i a.mp4` is no `blkdiscard`)."""
    tried_on: frozenset[str] = frozenset()
    """A gate for speed, not a field to match: when set, the rule is tried only on commands of these
    names and on programs rein does not know (which `test` reads by their arguments)."""

    @property
    def empty(self) -> bool:
        return (
            self.pattern is None
            and not self.command
            and not self.subcommand
            and not self.flags
            and not self.args
            and not self.writes
            and not self.sql
            and not self.code
            and self.test is None
        )


OnFire = Callable[[CommandRef | None, Context], Mapping[str, Mapping[str, object]] | None]
"""Called when a rule fires; may return entries to write (type to data), tagged with the loop index."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    name: str
    source: str
    """`user` for config files, the plugin's name for plugin rules, `defaults` for rein's own."""
    reason: str
    tool: str = "bash"
    """`bash`, `write`, `edit`, `read`, or any other tool's name or a glob of names (`mcp__github__*`),
    whose rules read the call's arguments."""
    field: str = "command"
    """What `pattern` is searched in: `command` (bash), `path` or `content` (file tools); for any other
    tool an argument, by a dotted path into the JSON (`options.branch`), or "" for all of them."""
    matcher: Matcher = dataclasses.field(default_factory=Matcher)
    requires: Pattern | None = None
    unless: Pattern | None = None
    when: When = dataclasses.field(default_factory=When)
    allow_override: bool = False
    """An agent may lift this rule with a `# steering-override: <rule> - <why>` comment (recorded).
    Off unless the person's configuration turns it on, here or in `allow_override = [...]`."""
    no_override: bool = False
    """Never overridable, whatever `allow_override` lists say."""
    on_unknown: OnUnknown = "block"
    verdict: Decision = "block"
    pack: str = ""
    """The pack the rule belongs to (`database`, `cloud`, ...); empty for a rule of no pack."""
    on_fire: OnFire | None = None
    writes_on_fire: tuple[str, ...] = ()
    origin: str = ""
    """Where the rule was defined (file and line, or module), for `rein explain` and errors."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Watch:
    """Which tool results an observer sees. Unset fields match anything."""

    tool: str = "bash"
    """A tool's name, or for a tool other than bash and the file tools a glob of names."""
    command: Pattern | None = None
    """Searched in the raw command and in every extracted (unwrapped) command."""
    path: tuple[str, ...] = ()
    exit_code: int | None = None
    field: str = ""
    """Another tool's argument (a dotted path) that `pattern` is searched in; "" for all of them."""
    pattern: Pattern | None = None


OnResult = Callable[[ToolResult, Context], Mapping[str, Mapping[str, object]] | None]
"""An observer's handler: returns entries to write (type to data). Default: one entry per `writes`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Observer:
    name: str
    source: str
    watch: Watch
    writes: tuple[str, ...] = ()
    """Entry types this observer writes; also what `&&` chains see speculatively."""
    on_result: OnResult | None = None
    origin: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Plugin:
    """What a plugin module exports as `plugin`: rules, predicates, trackers and observers."""

    name: str
    rules: tuple[Rule, ...] = ()
    predicates: Mapping[str, Predicate] = dataclasses.field(default_factory=dict)
    trackers: tuple[Tracker, ...] = ()
    observers: tuple[Observer, ...] = ()
