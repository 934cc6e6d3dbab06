"""Parse one rule file's text into a `Rule`. Pure: the caller reads the file.

Both formats are read. Keys are matched without regard to case, `_` or `-` (`interruptMode`,
`interrupt_mode` and `interrupt-mode` are one key); keys of other tools (Cursor's, Windsurf's) are ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from rein.ttsr._frontmatter import split_frontmatter
from rein.ttsr._jsregex import JsRegexError, translate
from rein.ttsr._jssets import parse_js_flags, split_js_flags
from rein.ttsr._regex import RegexError
from rein.ttsr._rule import (
    DEFAULT_SCOPE,
    INTERRUPT_MODES,
    REPEAT_MODES,
    Condition,
    Dialect,
    Extent,
    InterruptMode,
    RepeatMode,
    Rule,
    RuleFormat,
    RuleIssue,
    normalize_key,
)
from rein.ttsr._scope import ScopeError, check_globs, parse_scope, split_list
from rein.ttsr._syntax import (
    compile_condition,
    matches_empty,
    merge_flags,
    parse_flag_letters,
    split_inline_flags,
)
from rein.ttsr.errors import NotAStreamRule, RuleError

REMINDER_LIMIT = 1024
"""Most bytes (UTF-8) a `reminder` may hold: it is injected into a tool result, so it stays short."""

_CONDITION_KEYS = ("condition", "ttsrtrigger", "trigger")
_T = TypeVar("_T")


class _Fields:
    """Frontmatter values looked up by normalized key, raising `RuleError` at the key's line."""

    def __init__(self, fields: dict[str, object], lines: dict[str, int], path: str) -> None:
        self._values = {normalize_key(k): v for k, v in fields.items()}
        self._written = {normalize_key(k): k for k in fields}
        self._lines = {normalize_key(k): v for k, v in lines.items()}
        self.path = path
        self.warnings: list[RuleIssue] = []

    def optional(self, key: str, read: Callable[[], _T | None]) -> _T | None:
        """`read()` an optional field; an invalid value is dropped with a warning (the original agents
        keep the rule without the field), so the result is None."""
        try:
            return read()
        except RuleError as error:
            reason = f"{error.reason}; the field is ignored"
            self.warnings.append(
                RuleIssue(path=self.path, line=error.line, reason=reason, severity="warning")
            )
            return None

    def has(self, key: str) -> bool:
        return key in self._values and self._values[key] is not None

    def raw(self, key: str) -> object:
        return self._values.get(key)

    def error(self, key: str, reason: str) -> RuleError:
        return RuleError(
            f"{self._written.get(key, key)}: {reason}", path=self.path, line=self._lines.get(key)
        )

    def string(self, key: str) -> str | None:
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, not {type(value).__name__}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.raw(key)
        if value is None:
            return default
        if isinstance(value, str) and value.lower() in {"true", "false"}:
            return value.lower() == "true"
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, not {value!r}")
        return value

    def number(self, key: str, *, minimum: float, integer: bool) -> float | None:
        value = self.raw(key)
        if value is None:
            return None
        if isinstance(value, str):
            try:
                value = int(value) if integer else float(value)
            except ValueError:
                raise self.error(key, f"must be a number, not {value!r}") from None
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (integer and isinstance(value, float))
        ):
            kind = "a whole number" if integer else "a number"
            raise self.error(key, f"must be {kind}, not {value!r}")
        if value < minimum:
            raise self.error(key, f"must be at least {minimum:g}, not {value!r}")
        return value

    def choice(self, key: str, choices: tuple[str, ...]) -> str | None:
        value = self.string(key)
        if value is not None and value not in choices:
            raise self.error(key, f"must be one of {', '.join(choices)}, not {value!r}")
        return value

    def strings(self, key: str) -> list[str]:
        value = self.raw(key)
        if value is None:
            return []
        if isinstance(value, str):
            return [value] if value.strip() else []
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return [str(item) for item in value if str(item).strip()]
        raise self.error(key, "must be a string or a list of strings")


def parse_rule(
    text: str, *, name: str, path: str = "", origin: str = "", dialect: Dialect = "python"
) -> Rule:
    """Parse a rule file. Raises `RuleError` (file, line, reason), or `NotAStreamRule` for a file with no
    condition or with `enabled: false`.

    `dialect` says how conditions are read (rein's own `python`, or `javascript` for rules of JavaScript
    agents). The conditions and the text to inject are strict; an invalid optional field (`interruptMode`,
    `repeatMode`, `repeatGap`, `maxFirings`, `cooldown`, `reminder`, `description`, `alwaysApply`,
    `enabled`) is dropped and reported in `Rule.warnings`, as the original agents do."""
    if not name.strip():
        raise RuleError("a rule needs a name (its file name)", path=path)
    head = split_frontmatter(text, path)
    fields = _Fields(head.fields, head.lines, path)
    written = [c for key in _CONDITION_KEYS for c in fields.strings(key)]
    if fields.optional("enabled", lambda: fields.boolean("enabled", True)) is False:
        raise NotAStreamRule("disabled (enabled: false)", path=path)
    if not written:
        raise NotAStreamRule("no condition: not a stream rule", path=path)
    rule_format: RuleFormat = "condition"
    if fields.has("trigger") and not (fields.has("condition") or fields.has("ttsrtrigger")):
        rule_format = "trigger"

    scope, extent = DEFAULT_SCOPE, None
    if fields.has("scope"):
        try:
            parsed, extent = parse_scope(fields.raw("scope"))
        except ScopeError as error:
            raise fields.error("scope", str(error)) from None
        scope = parsed if parsed is not None else DEFAULT_SCOPE
    final_extent: Extent = extent or ("line" if rule_format == "trigger" else "accumulated")

    globs: tuple[str, ...] = ()
    if fields.has("globs"):
        try:
            globs = tuple(split_list(fields.raw("globs"), "globs"))
            check_globs(globs)
        except ScopeError as error:
            raise fields.error("globs", str(error)) from None

    rule_flags = ""
    if fields.has("flags"):
        try:
            read = parse_js_flags if dialect == "javascript" else parse_flag_letters
            rule_flags = read(fields.string("flags") or "")
        except ValueError as error:
            raise fields.error("flags", str(error)) from None

    conditions = tuple(
        _condition(
            c, rule_flags, final_extent, fields, next(k for k in _CONDITION_KEYS if fields.has(k)), dialect
        )
        for c in written
    )

    max_firings = fields.optional("maxfirings", lambda: fields.number("maxfirings", minimum=1, integer=True))
    cooldown = fields.optional("cooldown", lambda: fields.number("cooldown", minimum=0, integer=False))
    repeat_mode = fields.optional("repeatmode", lambda: fields.choice("repeatmode", REPEAT_MODES))
    repeat_gap = fields.optional("repeatgap", lambda: fields.number("repeatgap", minimum=0, integer=True))
    if (max_firings is not None or cooldown is not None) and (repeat_mode or repeat_gap is not None):
        raise fields.error(
            "maxfirings" if max_firings is not None else "cooldown",
            "cannot be combined with repeatMode/repeatGap: choose one repeat policy",
        )
    reminder = fields.optional("reminder", lambda: _reminder(fields))
    if not head.body.strip() and not (reminder and reminder.strip()):
        raise RuleError(
            "the rule has no text to inject: the body is empty and there is no reminder", path=path
        )

    return Rule(
        name=name,
        body=head.body,
        conditions=conditions,
        scope=scope,
        extent=final_extent,
        globs=globs,
        interrupt_mode=fields.optional("interruptmode", lambda: _interrupt_mode(fields)),
        repeat_mode=_repeat_mode(repeat_mode),
        repeat_gap=None if repeat_gap is None else int(repeat_gap),
        max_firings=None if max_firings is None else int(max_firings),
        cooldown=cooldown,
        reminder=reminder,
        description=fields.optional("description", lambda: fields.string("description")),
        always_apply=fields.optional("alwaysapply", lambda: fields.boolean("alwaysapply", False)) or False,
        enabled=True,
        path=path,
        origin=origin,
        format=rule_format,
        warnings=tuple(
            RuleIssue(path=w.path, line=w.line, reason=w.reason, rule=name, severity="warning")
            for w in fields.warnings
        ),
    )


def _reminder(fields: _Fields) -> str | None:
    reminder = fields.string("reminder")
    if reminder is not None:
        reminder = reminder.strip("\n")
        size = len(reminder.encode("utf-8"))
        if size > REMINDER_LIMIT:
            raise fields.error("reminder", f"is {size} bytes; at most {REMINDER_LIMIT} are allowed")
    return reminder


def _condition(
    written: str, rule_flags: str, extent: Extent, fields: _Fields, key: str, dialect: Dialect
) -> Condition:
    hyperscan: str | None = None
    if dialect == "javascript":
        source, inline = split_js_flags(written)
        flags = merge_flags(inline, rule_flags)
        try:
            translated = translate(source, flags, multiline=extent == "line")
        except JsRegexError as error:
            raise fields.error(key, f"{written!r} cannot be read as JavaScript: {error}") from None
        pattern = translated.regex
        hyperscan = None if translated.hyperscan == pattern else translated.hyperscan
    else:
        pattern, inline = split_inline_flags(written)
        flags = merge_flags(inline, rule_flags)
    try:
        compiled = compile_condition(pattern, flags, multiline=extent == "line")
    except RegexError as error:
        raise fields.error(key, f"{written!r} is not a valid regular expression: {error}") from None
    if matches_empty(compiled):
        raise fields.error(key, f"{written!r} can match the empty string, so it would fire on any text")
    return Condition(
        pattern=pattern, flags=flags, written=written, dialect=dialect, hyperscan_pattern=hyperscan
    )


def _interrupt_mode(fields: _Fields) -> InterruptMode | None:
    value = fields.choice("interruptmode", INTERRUPT_MODES)
    return next((mode for mode in INTERRUPT_MODES if mode == value), None)


def _repeat_mode(value: str | None) -> RepeatMode | None:
    return next((mode for mode in REPEAT_MODES if mode == value), None)
