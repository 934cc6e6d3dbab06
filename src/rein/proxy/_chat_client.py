"""OpenAI Chat Completions: the client's side of the stream (what it has received, and how a piece of an
upstream chunk is rewritten onto it) and the usage arithmetic the codec needs."""

from __future__ import annotations

from dataclasses import dataclass, field

from rein.ai import JsonValue
from rein.proxy._codec import Json, SseEvent, sse

ID_KEYS = ("id", "created", "model", "system_fingerprint")
"""The fields every chunk repeats; the client keeps the first values it received."""

REASONING_KEYS = ("reasoning_content", "reasoning")
"""Where OpenAI-compatible servers put reasoning text (vLLM and DeepSeek, then vLLM, Ollama, OpenRouter)."""


def number(value: JsonValue) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def add_usage(earlier: JsonValue, usage: JsonValue) -> JsonValue:
    """`usage` with every count (nested ones too) of `earlier` added; other fields as in `usage`, fields
    only `earlier` has kept."""
    if earlier is None:
        return usage
    if usage is None:
        return earlier
    if isinstance(earlier, dict) and isinstance(usage, dict):
        out: Json = {key: add_usage(earlier.get(key), value) for key, value in usage.items()}
        for key, value in earlier.items():
            out.setdefault(key, value)
        return out
    if isinstance(earlier, int | float) and isinstance(usage, int | float):
        return earlier + usage if number(earlier) and number(usage) else usage
    return usage


def chunk_of(raw: Json, choices: list[JsonValue], *, usage: bool) -> Json:
    """`raw` (an upstream chunk) with `choices` instead of its own; its usage kept only when `usage`."""
    out: Json = {}
    for key, value in raw.items():
        if key == "choices":
            out[key] = choices
        elif key == "usage":
            out[key] = value if usage else None
        else:
            out[key] = value
    return out


@dataclass(slots=True)
class Part:
    """One choice of one upstream chunk, shared by the pieces it becomes. The first piece rendered carries
    the choice's other fields (role, logprobs, unknown ones); the later ones only their own content."""

    choice: Json
    delta: Json
    consumed: frozenset[str]
    """Delta keys whose values became content pieces (each piece puts back its own part)."""
    extras_sent: bool = False

    def build(self, items: Json, *, finish: bool) -> Json:
        """The client's choice for one piece: `items` in the delta, the finish reason only if `finish`."""
        extras = not self.extras_sent
        self.extras_sent = True
        out: Json = {}
        for key, value in self.choice.items():
            if key == "delta":
                delta: Json = {}
                for name, item in self.delta.items():
                    if name in items:
                        delta[name] = items[name]
                    elif extras and name not in self.consumed:
                        delta[name] = item
                out[key] = delta
            elif key == "finish_reason":
                out[key] = value if finish else None
            elif key == "index" or extras:
                out[key] = value
        if "delta" not in self.choice and items:
            out["delta"] = items
        return out


def tool_fragment(fragment: Json, part: str, index: int, *, head: bool) -> Json:
    """An upstream tool-call fragment as the client gets it: its index moved to `index`, `part` as its
    arguments, and (unless `head`) without the fields that must come once (the SDK concatenates ids)."""
    out: Json = {}
    for key, value in fragment.items():
        if key == "index":
            out[key] = index
        elif key == "function" and isinstance(value, dict):
            function: Json = {k: v for k, v in value.items() if k == "arguments" or head}
            function["arguments"] = part
            out[key] = function
        elif head:
            out[key] = value
    if "function" not in out and part:
        out["function"] = {"arguments": part}
    return out


@dataclass(slots=True)
class Client:
    """What the client has received; changed only while rendering, in the client's order."""

    ids: Json = field(default_factory=dict)
    roles: dict[int, int] = field(default_factory=dict)
    """Lane -> the attempt whose role delta the client received."""
    lanes: set[int] = field(default_factory=set)
    finished: set[int] = field(default_factory=set)
    tools: dict[int, int] = field(default_factory=dict)
    """Lane -> the highest tool call index the client received."""
    offsets: dict[tuple[int, int], int] = field(default_factory=dict)
    """(attempt, lane) -> what is added to that attempt's tool call indices."""
    done: bool = False
    """`[DONE]` or an error was sent: nothing may follow."""

    def tool_index(self, attempt: int, lane: int, upstream: int) -> int:
        offset = self.offsets.get((attempt, lane))
        if offset is None:
            top = self.tools.get(lane)
            offset = self.offsets[(attempt, lane)] = 0 if top is None else top + 1
        index = offset + upstream
        self.tools[lane] = max(self.tools.get(lane, -1), index)
        return index

    def emit(self, chunk: Json, raw: Json, event: SseEvent, attempt: int, earlier: JsonValue) -> bytes:
        """Write `chunk` (a fresh piece of the upstream chunk `raw`) onto the client's stream: the first
        ids, usage plus `earlier`'s, no second role. The upstream bytes when nothing changed."""
        for key in ID_KEYS:
            value = chunk.get(key)
            if value is None or value in {"", 0}:
                continue  # Azure's prompt-filter chunk has an empty id and model, created 0
            if key in self.ids:
                chunk[key] = self.ids[key]
            else:
                self.ids[key] = value
        usage = chunk.get("usage")
        if isinstance(usage, dict) and earlier is not None:
            chunk["usage"] = add_usage(earlier, usage)
        dropped = False
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict) or not isinstance(lane := choice.get("index"), int):
                continue
            self.lanes.add(lane)
            delta = choice.get("delta")
            if isinstance(delta, dict) and "role" in delta:
                seen = self.roles.setdefault(lane, attempt)
                if seen < attempt:
                    del delta["role"]  # a retry's role delta: the client has its message already
                    dropped = True
            if choice.get("finish_reason") is not None:
                self.finished.add(lane)
        if dropped and _pointless(chunk):
            return b""
        return event.encode() if chunk == raw else sse(chunk)

    def same(self, raw: Json, lane: int) -> bool:
        """Whether the upstream chunk `raw` (one content-only choice of `lane`) goes to the client as it
        is: its ids are those the client has (or the first), as `emit` would find. Records as `emit` does."""
        for key in ID_KEYS:
            value = raw.get(key)
            if value is None or value in {"", 0}:
                continue
            if self.ids.setdefault(key, value) != value:
                return False
        self.lanes.add(lane)
        return True

    def note(self, event: SseEvent) -> bytes:
        """An event passed through unchanged that ends the stream (`[DONE]`, an error)."""
        self.done = True
        return event.encode()


def _pointless(chunk: Json) -> bool:
    """Whether a chunk carries nothing (what is left of a retry's role-only chunk)."""
    if chunk.get("usage") is not None:
        return False
    choices = chunk.get("choices")
    for choice in choices if isinstance(choices, list) else ():
        if not isinstance(choice, dict):
            return False
        for key, value in choice.items():
            if key == "delta" and isinstance(value, dict):
                if any(item not in (None, "") for item in value.values()):
                    return False
            elif key != "index" and value is not None:
                return False
    return True
