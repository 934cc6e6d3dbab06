"""The values crossing the manager's surface: what the loop passes in, gets back, and persists."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rein.ttsr._rule import Engine, Rule, Source


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchContext:
    """Where a delta comes from. One stream per source, and one per tool call (keyed by its id)."""

    source: Source
    tool_name: str | None = None
    """The tool being called (`source="tool"`); compared case-insensitively with scope tokens."""
    tool_call_id: str | None = None
    """Separates the buffers of two tool calls; falls back to the tool name when missing."""
    file_paths: tuple[str, ...] = ()
    """Paths the host already knows this stream is about. A tool call's `path`-like argument is added
    by the decoder as soon as it streams in."""
    json_arguments: bool = True
    """Tool deltas are JSON argument fragments (decoded before matching). False: they are already the
    text the tool will write (a host that decoded them, or a free-form tool input)."""

    @property
    def stream_key(self) -> str:
        if self.source != "tool":
            return self.source
        return f"tool:{self.tool_call_id or self.tool_name or ''}"


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleMatch:
    """A rule that matched and passed every gate. The manager reports a rule at most once per turn."""

    rule: Rule
    source: Source
    interrupt: bool
    """Cut the generation now (global and rule interrupt modes both allow it for this source). False:
    deliver the rule as a reminder (on the tool result for `tool`, after the reply for prose)."""
    engine: Engine
    """The matching path of the condition that matched."""
    tool_name: str | None = None
    tool_call_id: str | None = None
    path: str | None = None
    """The file path that satisfied the rule's globs, else the first known path, else None."""
    argument: str | None = None
    """For a tool call: the top-level argument the match is in (`content`, `new_string`, ...)."""
    offset: int = 0
    """Character offset where the match starts, from the start of `argument`'s value (or of the stream)."""
    line: int = 1
    """1-based line of the match start, counted like `offset`."""
    column: int = 1
    excerpt: str = ""
    """The line the match starts on, trimmed."""
    matched: str = ""
    """The text the condition matched (empty when only its end is known)."""

    @property
    def name(self) -> str:
        return self.rule.name

    @property
    def content(self) -> str:
        return self.rule.content

    @property
    def description(self) -> str | None:
        return self.rule.description


@dataclass(frozen=True, slots=True, kw_only=True)
class InjectionRecord:
    """That a rule was injected: the loop persists these and hands them back to `restore`."""

    rule: str
    turn: int
    """Completed turns when it was injected (the manager's `turns`)."""
    at: float
    """The manager's clock when it was injected (seconds), for `cooldown`."""
    count: int = 1
    """Injections of this rule so far, for `max_firings`."""

    def to_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "turn": self.turn, "at": self.at, "count": self.count}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> InjectionRecord:
        """Read a persisted record. Raises ValueError naming the bad field."""
        rule, turn, at, count = (
            data.get("rule"),
            data.get("turn", 0),
            data.get("at", 0.0),
            data.get("count", 1),
        )
        if not isinstance(rule, str) or not rule:
            raise ValueError(f"injection record: 'rule' must be a rule name, not {rule!r}")
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0:
            raise ValueError(f"injection record {rule!r}: 'turn' must be a whole number, not {turn!r}")
        if isinstance(at, bool) or not isinstance(at, int | float):
            raise ValueError(f"injection record {rule!r}: 'at' must be a number, not {at!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"injection record {rule!r}: 'count' must be at least 1, not {count!r}")
        return cls(rule=rule, turn=turn, at=float(at), count=count)


@dataclass(frozen=True, slots=True, kw_only=True)
class TtsrState:
    """Everything a session must persist to resume repeat gates exactly: the turn count and the records."""

    turns: int = 0
    records: tuple[InjectionRecord, ...] = field(default=())

    def to_dict(self) -> dict[str, object]:
        return {"turns": self.turns, "records": [record.to_dict() for record in self.records]}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> TtsrState:
        turns, records = data.get("turns", 0), data.get("records", [])
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 0:
            raise ValueError(f"ttsr state: 'turns' must be a whole number, not {turns!r}")
        if not isinstance(records, list):
            raise ValueError("ttsr state: 'records' must be a list")
        parsed = []
        for item in records:
            if not isinstance(item, Mapping):
                raise ValueError(f"ttsr state: a record must be a mapping, not {item!r}")
            parsed.append(InjectionRecord.from_dict(item))
        return cls(turns=turns, records=tuple(parsed))
