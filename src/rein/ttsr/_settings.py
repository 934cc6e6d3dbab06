"""The `[ttsr]` settings group, validated once at the boundary."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Literal

from rein.ttsr._rule import (
    INTERRUPT_MODES,
    REPEAT_MODES,
    InterruptMode,
    RepeatMode,
    Rule,
    RuleIssue,
    normalize_key,
    shadowed,
)
from rein.ttsr.errors import SettingsError

ContextMode = Literal["discard", "keep"]
CONTEXT_MODES: tuple[ContextMode, ...] = ("discard", "keep")


@dataclass(frozen=True, slots=True, kw_only=True)
class TtsrSettings:
    """How stream rules behave in a session. Read from `[ttsr]` in `~/.rein/settings.toml` and
    `.rein/settings.toml`; keys may be written `snake_case` or `camelCase`."""

    enabled: bool = True
    """Run stream rules at all. When false, `check_delta` returns nothing and nothing is scanned."""
    disabled_rules: tuple[str, ...] = ()
    """Rule names never loaded, wherever they come from."""
    builtin_rules: bool = True
    """Load rein's built-in rules (after every user source)."""
    context_mode: ContextMode = "discard"
    """After an interrupt: `discard` drops the cut reply from the context before the retry; `keep` keeps
    it and appends the rule after it. The agent loop reads this; the engine only carries it."""
    interrupt_mode: InterruptMode = "always"
    """Which sources may cut the generation. A rule's own `interruptMode` can only narrow this: a source
    interrupts when both allow it."""
    repeat_mode: RepeatMode = "once"
    """The default repeat policy of rules that set none: `once`, or `after-gap` (again after
    `repeat_gap` completed turns)."""
    repeat_gap: int = 10
    """Completed turns between two injections of one rule under `after-gap`."""
    interrupt_template: str | None = None
    """Replaces the interrupt template (`{{name}}`, `{{path}}`, `{{content}}`, ...); None keeps rein's."""
    reminder_template: str | None = None
    """Replaces the tool reminder template; None keeps rein's."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], *, source: str = "[ttsr]") -> TtsrSettings:
        """Validate a mapping (the `[ttsr]` table). Raises `SettingsError` naming `source` and the key."""
        known = {normalize_key(f.name): f.name for f in fields(cls)}
        values: dict[str, object] = {}
        for raw_key, value in data.items():
            name = known.get(normalize_key(raw_key))
            if name is None:
                raise SettingsError(
                    f"{source}: unknown key {raw_key!r}; known keys: {', '.join(sorted(known.values()))}"
                )
            values[name] = _check(name, value, f"{source}.{raw_key}")
        return cls(**values)  # type: ignore[arg-type]


def _check(name: str, value: object, where: str) -> object:
    if name in {"enabled", "builtin_rules"}:
        if not isinstance(value, bool):
            raise SettingsError(f"{where} must be true or false, not {value!r}")
        return value
    if name == "disabled_rules":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
            raise SettingsError(f"{where} must be a list of rule names, not {value!r}")
        return tuple(str(item) for item in value)
    if name == "repeat_gap":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise SettingsError(f"{where} must be a whole number of turns (0 or more), not {value!r}")
        return value
    if name in {"interrupt_template", "reminder_template"}:
        if not isinstance(value, str) or not value.strip():
            raise SettingsError(f"{where} must be a non-empty string")
        return value
    choices: tuple[str, ...] = {
        "context_mode": CONTEXT_MODES,
        "interrupt_mode": INTERRUPT_MODES,
        "repeat_mode": REPEAT_MODES,
    }[name]
    if value not in choices:
        raise SettingsError(f"{where} must be one of {', '.join(choices)}, not {value!r}")
    return value


def select_rules(rules: Iterable[Rule], settings: TtsrSettings) -> tuple[list[Rule], list[RuleIssue]]:
    """Keep the rules `settings` allow, first of each name; the others come back as `info` issues.

    `discover_rules` already keeps one rule per name and reports the rest; the check here covers rules
    handed to `TtsrManager` any other way (its per-rule state is keyed by name)."""
    kept: list[Rule] = []
    skipped: list[RuleIssue] = []
    seen: dict[str, Rule] = {}
    disabled = set(settings.disabled_rules)
    for rule in rules:
        reason = None
        first = seen.get(rule.name)
        if first is not None:
            skipped.append(shadowed(rule, first))
            continue
        if rule.name in disabled:
            reason = "disabled in settings (disabled_rules)"
        elif rule.builtin and not settings.builtin_rules:
            reason = "built-in rules are off (builtin_rules = false)"
        elif not rule.enabled:
            reason = "disabled (enabled: false)"
        if reason is None:
            seen[rule.name] = rule
            kept.append(rule)
        else:
            skipped.append(RuleIssue(path=rule.path, rule=rule.name, reason=reason, severity="info"))
    return kept, skipped
