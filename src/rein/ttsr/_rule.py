"""The values a stream rule is made of. Every one is frozen: a rule is parsed once and read by everything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Source = Literal["text", "thinking", "tool"]
"""Which stream a delta belongs to: assistant prose, reasoning, or one tool call's arguments."""

Extent = Literal["line", "chunk", "accumulated"]
"""How far one match may reach. `line`: within one line. `chunk`: within one delta. `accumulated`:
anywhere in the stream so far (across lines and deltas). Rules in the mature format default to
`accumulated`; rules in the first format (`trigger`) default to `line`, as they always did."""

InterruptMode = Literal["always", "prose-only", "tool-only", "never"]
"""When a match cuts the generation: on every source, only on prose (text and thinking), only on tool
calls, or never (the rule is then delivered as a reminder instead)."""

RepeatMode = Literal["once", "after-gap"]
"""`once`: a rule is injected at most once per session. `after-gap`: again after `repeat_gap` turns."""

Engine = Literal["hyperscan", "prefilter", "fallback"]
"""The matching path of one condition: a hyperscan streaming database; hyperscan's prefilter mode (a
superset) confirmed by the `regex` module; or the `regex` module alone on a bounded window."""

RuleFormat = Literal["condition", "trigger"]
"""`condition`: the mature format (`condition`, `scope` tokens, `interruptMode`, ...). `trigger`: the
first design (`trigger`, `flags`, `maxFirings`, `cooldown`)."""

Severity = Literal["error", "warning", "info"]

Dialect = Literal["python", "javascript"]
"""How a condition's regular expression is read. `python`: rein's own rules (`.rein/rules`,
`~/.rein/rules`, built-in). `javascript`: rules from JavaScript agents' folders, read as `new RegExp`
reads them and translated (see `_jsregex`)."""

INTERRUPT_MODES: tuple[InterruptMode, ...] = ("always", "prose-only", "tool-only", "never")
REPEAT_MODES: tuple[RepeatMode, ...] = ("once", "after-gap")
EXTENTS: tuple[Extent, ...] = ("line", "chunk", "accumulated")


def normalize_key(name: str) -> str:
    """A key as every TTSR key is compared (frontmatter, settings, tool-call arguments): lower-cased,
    without `_` or `-`, so `filePath`, `file_path` and `file-path` are one key."""
    return name.lower().replace("_", "").replace("-", "")


@dataclass(frozen=True, slots=True, kw_only=True)
class Condition:
    """One regular expression of a rule. A rule's conditions are OR'd."""

    pattern: str
    """The expression the `regex` module runs, without its leading inline flag group: `(?i)foo` is stored
    as `foo` + `i`. For a JavaScript rule, its translation."""
    flags: str = ""
    """Sorted flag letters from `i` (ignore case), `m` (`^`/`$` at line ends), `s` (`.` matches newline),
    and for a JavaScript rule `u` (Unicode mode, already applied by the translation)."""
    written: str = ""
    """The condition as the author wrote it, for messages."""
    dialect: Dialect = "python"
    hyperscan_pattern: str | None = None
    """What hyperscan compiles, when it must differ from `pattern` (JavaScript's ASCII `\\b`)."""

    @property
    def for_hyperscan(self) -> str:
        return self.pattern if self.hyperscan_pattern is None else self.hyperscan_pattern


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolScope:
    """One tool token of a scope: a tool name, a path glob, or both (`tool:edit(*.py)`)."""

    name: str | None = None
    """Lower-cased tool name, or None for any tool."""
    glob: str | None = None
    """A glob the tool call's file path must match, or None."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Scope:
    """Which streams a rule watches. The default is prose and every tool, not thinking."""

    text: bool = True
    thinking: bool = False
    any_tool: bool = True
    tools: tuple[ToolScope, ...] = ()

    @property
    def watches_tools(self) -> bool:
        return self.any_tool or bool(self.tools)

    def watches(self, source: Source) -> bool:
        """Whether any delta of `source` can reach this rule (tool name and path are checked later)."""
        if source == "text":
            return self.text
        if source == "thinking":
            return self.thinking
        return self.watches_tools

    def tokens(self) -> tuple[str, ...]:
        """The scope written back as tokens, for listings."""
        out: list[str] = []
        if self.text:
            out.append("text")
        if self.thinking:
            out.append("thinking")
        if self.any_tool:
            out.append("tool")
        for tool in self.tools:
            head = f"tool:{tool.name}" if tool.name else "tool"
            out.append(f"{head}({tool.glob})" if tool.glob else head)
        return tuple(out)


DEFAULT_SCOPE = Scope()


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """A stream rule: conditions that watch the output, and the text injected when one matches."""

    name: str
    """The file name without its extension; unique after discovery (first source wins)."""
    body: str
    """The Markdown after the frontmatter."""
    conditions: tuple[Condition, ...]
    scope: Scope = DEFAULT_SCOPE
    extent: Extent = "accumulated"
    globs: tuple[str, ...] = ()
    """File globs; when set, a match counts only if the match context holds a matching file path."""
    interrupt_mode: InterruptMode | None = None
    """None: the global `interrupt_mode` alone decides."""
    repeat_mode: RepeatMode | None = None
    """None: the global `repeat_mode`."""
    repeat_gap: int | None = None
    """None: the global `repeat_gap`."""
    max_firings: int | None = None
    """First format: how many injections per session. Set together with `cooldown` or alone; when either
    is set it replaces the repeat mode for this rule."""
    cooldown: float | None = None
    """First format: seconds that must pass between two injections."""
    reminder: str | None = None
    """Replaces the body in the injection when set (at most 1024 bytes)."""
    description: str | None = None
    always_apply: bool = False
    enabled: bool = True
    path: str = ""
    """The file the rule came from (`builtin:<name>` for a built-in rule)."""
    origin: str = ""
    """The discovery source, e.g. `.rein/rules`, `~/.rein/rules`, `.cursor/rules`, `builtin`."""
    format: RuleFormat = "condition"
    warnings: tuple[RuleIssue, ...] = ()
    """Optional fields that were dropped because their value was invalid; the rule is used without them."""

    @property
    def content(self) -> str:
        """The text injected when the rule fires."""
        return self.reminder if self.reminder is not None else self.body

    @property
    def builtin(self) -> bool:
        return self.origin == "builtin"

    @property
    def counts_firings(self) -> bool:
        """True when `max_firings`/`cooldown` govern repeats instead of the repeat mode."""
        return self.max_firings is not None or self.cooldown is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleIssue:
    """A rule file (or one rule) that was not loaded, and why. Reported once."""

    path: str
    reason: str
    line: int | None = None
    rule: str | None = None
    severity: Severity = "error"
    """`error`: the file meant to be a stream rule and cannot be used. `warning`: the rule is used, but an
    invalid optional field was dropped. `info`: not a stream rule (no condition, disabled, shadowed by
    another source) and skipped on purpose."""

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.reason}"


def shadowed(rule: Rule, first: Rule) -> RuleIssue:
    """The `info` issue of `rule`, hidden by `first`, an earlier rule of the same name (the first wins)."""
    reason = f"shadowed by {first.path or first.origin} (same name, found first)"
    return RuleIssue(path=rule.path, rule=rule.name, reason=reason, severity="info")
