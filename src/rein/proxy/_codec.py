"""What one wire format gives the proxy: a `Codec` per client request, and the pieces (`Out`) it cuts the
upstream stream into.

The relay reads the upstream SSE stream, hands every event to the codec, and gets back the client's stream
as an ordered list of `Out`: structural events (a message start, a block stop, a finish) and pieces of
content (prose, thinking, one tool call's arguments) that the rules check. Content is released only once
no rule can still match across it; a piece may be released in parts, so `render(part)` must write a valid
client event for any prefix of the piece's text, and then for the rest. `render` is called exactly once per
released part, in the order the client receives them, and never for what a cut drops: it is where a codec
numbers events, rewrites ids to the client's and learns what the client has seen.

After a cut (a rule fired in held text) the relay calls `cut()`, builds the retry with `retry_body`, and
feeds the next attempt's events to the same codec, which stitches them into the one stream the client
sees: the first attempt's ids, no second message start, blocks continued or numbered on, usage summed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, cast

from rein.ai import JsonValue
from rein.ttsr import MatchContext

Api = Literal["chat", "responses", "messages"]
Json = dict[str, JsonValue]
Render = Callable[[str], bytes]


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One server-sent event: its `event:` name (None when absent) and its `data:` lines joined."""

    data: str
    event: str | None = None

    def encode(self) -> bytes:
        head = f"event: {self.event}\n" if self.event is not None else ""
        body = "".join(f"data: {line}\n" for line in self.data.split("\n"))
        return f"{head}{body}\n".encode()

    def json(self) -> JsonValue:
        """The data as JSON; raises `ValueError` when it is not."""
        return cast(JsonValue, json.loads(self.data))


def as_items(given: JsonValue | None) -> list[JsonValue]:
    """A request's `messages` or `input` as a list to add to: a Responses API string is one user
    message, and none is an empty list."""
    if isinstance(given, list):
        return list(given)
    return [] if given is None else [{"role": "user", "content": given}]


def sse(data: JsonValue, event: str | None = None) -> bytes:
    """An event written as the client receives it: compact JSON data."""
    return SseEvent(json.dumps(data, ensure_ascii=False, separators=(",", ":")), event).encode()


@dataclass(slots=True, kw_only=True)
class Out:
    """One piece of the client's stream.

    Structural (`stream` None): released when everything before it is, rendered with `render("")`.
    Content (`stream` set): `text` is checked against the rules under `context` (None: shown as it is,
    never checked, e.g. a thinking signature) and held per the stream's window; a tool stream is held
    whole until its `final` piece. `final` ends the stream (a block stop): the end-of-block check runs,
    and all of the stream may be released. `lane` separates independent replies of one response (Chat
    Completions' `n` choices): each lane is checked by its own rules manager.
    """

    render: Render
    text: str = ""
    stream: str | None = None
    context: MatchContext | None = None
    final: bool = False
    lane: int = 0


class Codec(Protocol):
    """One client request's translation between the upstream stream and the client's (see the module
    docstring). A codec never raises on upstream input: an event it does not understand passes through
    as a structural `Out` that renders it unchanged."""

    api: Api

    def start_attempt(self) -> None:
        """The next upstream stream begins (called before the first one too)."""

    def feed(self, event: SseEvent) -> list[Out]:
        """The pieces one upstream event becomes, in order (often one, sometimes none)."""

    def cut(self) -> None:
        """The current attempt was cut: every `Out` it produced that was not rendered is dropped. Keep
        its usage so far (it is summed into the usage the client gets); the next attempt continues the
        client's stream (same ids; blocks the client has open are continued or closed, never reopened)."""

    def closing(self, error: str | None = None) -> bytes:
        """End the client's stream now, validly: close what is open, then the format's finish (a stop
        reason, a completed response, `[DONE]`). With `error`, end it as the format reports a failure
        mid-stream instead. Called after a cut (no more attempts) or when a retry failed upstream."""

    def retry_body(self, body: Json, injection: str, shown: str) -> Json:
        """The request for the next attempt: the client's `body` (never changed in place), then, when
        `shown` (the prose the client already received) is not empty, an assistant message with it, then
        `injection` as a user message."""

    def contents(self, response: Json) -> Sequence[tuple[MatchContext, str]]:
        """A non-streamed response's content to check, per block: prose, thinking, each tool call's
        arguments (JSON text)."""

    def summed(self, response: Json, earlier: Sequence[Json]) -> Json:
        """The non-streamed `response` returned to the client, its usage summed with the `earlier`
        (rejected) responses' usage."""
