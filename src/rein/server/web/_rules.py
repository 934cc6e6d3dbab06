"""The rules in force for a session's directory, for the page's Rules tab: the stream rules (found
as `rein rules list` finds them, with the `[ttsr]` settings) and the steering rules (the policy
`rein` loads there), each with its source file and how often it fired in this session (and whether
it blocks or asks).

    rules_body(cwd, home, entries)   # {"cwd", "stream": [R...], "steering": [R...], "problems": [...]}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rein.ai import JsonValue
from rein.html import STEERING_ENTRY, STEERING_OVERRIDE, STEERING_TAG, TTSR_RECORD
from rein.server._view import Entry
from rein.session import message_text
from rein.settings import SettingsFileError, load_settings, shown_path
from rein.steering import TOOLS, ConfigError, load_policy
from rein.steering import Rule as SteeringRule
from rein.ttsr import Rule as StreamRule
from rein.ttsr import SettingsError, TtsrSettings, discover_rules


def fired(entries: Sequence[Entry]) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """(stream rule -> injections, steering rule -> blocks, steering rule -> overrides) counted over the
    session's entries."""
    stream: Counter[str] = Counter()
    steering: Counter[str] = Counter()
    overridden: Counter[str] = Counter()
    for entry in entries:
        kind = entry.get("type")
        data = entry.get("data")
        custom = entry.get("customType", entry.get("custom_type"))
        if kind == "custom" and custom == TTSR_RECORD:
            names = data.get("rules") if isinstance(data, dict) else None
            if isinstance(names, list):
                stream.update(name for name in names if isinstance(name, str))
            continue
        if kind == "custom" and custom == STEERING_ENTRY and isinstance(data, dict):
            detail = data.get("data")
            if data.get("type") == STEERING_OVERRIDE and isinstance(detail, dict):
                overridden[str(detail.get("rule"))] += 1
            continue
        message = entry.get("message")
        if kind != "message" or not isinstance(message, dict):
            continue
        if message.get("role") not in ("toolResult", "tool_result"):
            continue
        found = STEERING_TAG.match(message_text(message.get("content")).lstrip())
        if found is not None:
            steering[found.group(1).split("@", 1)[0]] += 1
    return stream, steering, overridden


def _stream_detail(rule: StreamRule) -> str:
    trigger = " | ".join(c.written or c.pattern for c in rule.conditions)
    return trigger or rule.description or ("always" if rule.always_apply else "")


def _steering_detail(rule: SteeringRule) -> str:
    matcher = rule.matcher
    parts: list[str] = [rule.tool]
    if matcher.command:
        parts.append(" / ".join(sorted(matcher.command)))
    parts += [" ".join(words) for words in matcher.subcommand]
    if matcher.flags:
        parts.append(" ".join(sorted(matcher.flags)))
    if rule.tool not in TOOLS and rule.field:  # a rule on any tool (an MCP tool) reads one argument
        parts.append(f"field {rule.field}")
    if matcher.pattern is not None:
        parts.append(f"/{matcher.pattern.pattern}/")
    if matcher.sql:
        parts.append(f"sql {', '.join(sorted(matcher.sql))}")
    return f"{' '.join(parts)}: {rule.reason}"  # whole: the page wraps it


def rules_body(cwd: str, home: Path, entries: Sequence[Entry]) -> dict[str, JsonValue]:
    root = Path(cwd)
    stream_fired, steering_fired, overridden = fired(entries)
    problems: list[JsonValue] = []
    stream: list[JsonValue] = []
    steering: list[JsonValue] = []
    try:
        settings = TtsrSettings.from_mapping(
            load_settings(root, home, warn=lambda _m: None).get("ttsr", {}), source="[ttsr] settings"
        )
        found = discover_rules(root, home, builtin=settings.builtin_rules)
        problems += [f"{shown_path(i.path, root, home) or '(rule set)'}: {i.reason}" for i in found.issues]
        stream = [
            {"name": r.name, "source": shown_path(r.path, root, home) or r.origin,
             "detail": _stream_detail(r), "fired": stream_fired.get(r.name, 0)}
            for r in found.rules
        ]  # fmt: skip
    except (SettingsFileError, SettingsError) as error:
        problems.append(str(error))
    try:
        policy = load_policy(root, home).policy
        steering = [
            {"name": r.name, "source": shown_path(r.origin, root, home) if r.origin else r.source,
             "detail": _steering_detail(r), "fired": steering_fired.get(r.name, 0),
             "overridable": policy.allows_override(r), "overridden": overridden.get(r.name, 0),
             "verdict": r.verdict, "pack": r.pack or None}
            for r in policy.rules
        ]  # fmt: skip
    except ConfigError as error:
        problems.append(f"steering: {error}; every bash call is blocked")
    return {"cwd": cwd, "stream": stream, "steering": steering, "problems": problems}
