"""The scripted model upstream of the fork harness: an OpenAI chat-completions server on 127.0.0.1
whose reply is a function of the request alone, so the fork's server and `rein serve` get the same
answers in any order, and which keeps the fields of every request a provider call is judged by.

The reply is chosen from the request's messages:

- a summarization request (pi's and rein's summarizer system prompts both say "summar"): after a
  1.5 s pause, so a server that answers a compaction only once the summary is done is seen, the
  fixed `SUMMARY`;
- the last user text has `[[error]]`: a 400 error (no provider retries a 400);
- `[[tool]]`: a `read` tool call (stop reason toolUse); `[[think]]`: reasoning, then the echo;
- otherwise the echo: `echo <message count>: <the last user text, ASCII-escaped, 48 characters>
  (<length> chars)`, which shows what context the server built;
- a system prompt with `[[slow]]` pauses 1.5 s before any of these (a heartbeat must come first).

    with Upstream() as upstream:        # a thread with its own event loop
        upstream.base_url               # "http://127.0.0.1:PORT/v1"
        upstream.take()                 # the fields of the requests since the last take()
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from types import TracebackType
from typing import TypeVar

from rein.ai import TextContent, ThinkingContent, ToolCall
from rein.ai._messages import JsonValue
from rein.ai.testing import Pause, Reply, Request, SseServer, Step, chat_reply, openai_http_error

T = TypeVar("T")

SUMMARY = "## Goal\nDrive the fork's client against a server.\n\n## Progress\n- Synced, streamed, branched."
SUMMARY_PAUSE = 1.5
FIELDS = ("model", "max_completion_tokens", "max_tokens", "temperature", "reasoning_effort")
"""The body fields recorded as they are; `messages` is recorded as its length, `tools` as names."""


def reply_for(request: Request) -> Reply:
    body = request.body if isinstance(request.body, dict) else {}
    raw = body.get("messages")
    messages = [m for m in raw if isinstance(m, dict)] if isinstance(raw, list) else []
    system = " ".join(_text(m) for m in messages if m.get("role") in ("system", "developer"))
    if "summar" in system.lower():
        paused: list[Step] = [Pause(seconds=SUMMARY_PAUSE), *chat_reply(TextContent(text=SUMMARY), chunk=40)]
        return Reply(steps=paused)
    users = [_text(m) for m in messages if m.get("role") == "user"]
    last = users[-1] if users else ""
    if "[[error]]" in last:
        return openai_http_error(400, "the fake upstream refuses this request")
    if "[[tool]]" in last:
        call = ToolCall(id="call_drive_1", name="read", raw_arguments='{"path": "README.md"}')
        steps = chat_reply(TextContent(text="Reading."), call, finish_reason="tool_calls", chunk=8)
        return Reply(steps=steps)
    echo = TextContent(text=_echo(len(messages), last))
    pause: list[Step] = [Pause(seconds=SUMMARY_PAUSE)] if "[[slow]]" in system else []
    if "[[think]]" in last:
        return Reply(steps=[*pause, *chat_reply(ThinkingContent(thinking="Weighing it."), echo, chunk=8)])
    return Reply(steps=[*pause, *chat_reply(echo, chunk=8)])


def fields(request: Request) -> dict[str, JsonValue]:
    """What a comparison of two servers' provider calls looks at."""
    body = request.body if isinstance(request.body, dict) else {}
    found: dict[str, JsonValue] = {"path": request.path}
    found.update({name: body[name] for name in FIELDS if name in body})
    messages = body.get("messages")
    found["messages"] = len(messages) if isinstance(messages, list) else 0
    tools = body.get("tools")
    names: list[JsonValue] = []
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        names.append(function.get("name") if isinstance(function, dict) else None)
    found["tools"] = names
    return found


def _text(message: dict[str, JsonValue]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part for part in content if isinstance(part, dict) and part.get("type") == "text"]
        return "".join(str(part.get("text", "")) for part in texts)
    return ""


def _echo(count: int, text: str) -> str:
    shown = text.encode("ascii", "backslashreplace").decode("ascii")[:48]
    return f"echo {count}: {shown} ({len(text)} chars)"


class Upstream:
    """`SseServer` routed by `reply_for`, on its own event loop in a thread."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server = SseServer(route=reply_for)
        self._taken = 0

    def __enter__(self) -> Upstream:
        self._thread.start()
        self._call(self._server.start())
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._call(self._server.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def _call(self, coroutine: Coroutine[object, object, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    @property
    def base_url(self) -> str:
        return self._server.url + "/v1"

    def take(self) -> list[dict[str, JsonValue]]:
        """The fields of each request that arrived since the previous call, in arrival order."""
        requests = list(self._server.requests)
        new, self._taken = requests[self._taken :], len(requests)
        return [fields(request) for request in new]
