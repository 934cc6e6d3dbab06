"""A mock of the Anthropic Messages API for the real Claude Code, scripted by prompt.

    with AnthropicApi({"go": [bash("ls", "call-1")]}) as api:
        box.env.update(api.env)
        box.run([host_bin["claude"], "-p", "go", "--allowedTools", "Bash"], timeout=60)
    assert LISTED in api.result("call-1").text

Each `POST /v1/messages` is answered by looking at the conversation it carries: the user's last prompt
names the script (the list of tool calls for that prompt; ids unique across the script), and the tool
results already sent back say how far along it is. The next call without a result is streamed as a
`tool_use` reply, and once all have one, a closing text `DONE`. A prompt the script does not know
(and any side request without tools, such as a title) gets a text answer; any other path a 404,
recorded in `unexpected`. The server runs on its own event loop in a thread, so the test can run
the host with `subprocess`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rein.ai import TextContent, ToolCall
from rein.ai.testing import Reply, Request, anthropic_reply
from tests.hosts._threaded import ThreadedApi

Script = Mapping[str, Sequence[ToolCall]]
DONE = "All done."
"""The model's closing text, once every call of a prompt has a result."""
ENV = {
    "ANTHROPIC_API_KEY": "sk-ant-test",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
}
"""What keeps Claude Code on the mock: a dummy key, no telemetry, update or error reporting, and a
dead proxy for anything else it might reach for (the mock on 127.0.0.1 is exempt)."""


def bash(command: str, ident: str) -> ToolCall:
    return ToolCall(id=ident, name="Bash", arguments={"command": command, "description": "run it"})


def write(path: str, content: str, ident: str) -> ToolCall:
    return ToolCall(id=ident, name="Write", arguments={"file_path": path, "content": content})


@dataclass(frozen=True, slots=True)
class Result:
    """A tool result as Claude Code sent it back to the model."""

    text: str
    is_error: bool
    block: Mapping[str, object]
    """The `tool_result` content block as it was on the wire."""


def _messages(body: object) -> list[object]:
    messages = body.get("messages") if isinstance(body, dict) else None
    return list(messages) if isinstance(messages, list) else []


def _blocks(message: object) -> list[Mapping[str, object]]:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or () if isinstance(block, dict)]


def _is_prompt(block: Mapping[str, object]) -> bool:
    text = block.get("text")
    return block.get("type") == "text" and isinstance(text, str) and not text.startswith("<")


def prompts(body: object) -> list[str]:
    """The user's prompts in a request's conversation, oldest first (Claude Code's own context
    blocks, `<system-reminder>` and the like, left out)."""
    return [
        str(block["text"]).strip()
        for message in _messages(body)
        if isinstance(message, dict) and message.get("role") == "user"
        for block in _blocks(message)
        if _is_prompt(block)
    ]


def _progress(messages: Sequence[object]) -> tuple[str | None, set[str]]:
    """The last prompt, and the ids of every call that has a result. (Ids, not positions: a resumed
    conversation comes back with its user messages merged, results before the new prompt.)"""
    prompt: str | None = None
    answered: set[str] = set()
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        for block in _blocks(message):
            if _is_prompt(block):
                prompt = str(block["text"]).strip()
            elif block.get("type") == "tool_result":
                answered.add(str(block.get("tool_use_id")))
    return prompt, answered


class AnthropicApi(ThreadedApi):
    """See the module docstring."""

    def __init__(self, script: Script, *, tokens: int = 12) -> None:
        super().__init__()
        self.script = script
        self.tokens = tokens
        """Input tokens each reply reports in its usage (what a token budget counts)."""

    @property
    def env(self) -> dict[str, str]:
        return {**ENV, "ANTHROPIC_BASE_URL": self.url}

    def _route(self, request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if request.method != "POST" or not request.path.startswith("/v1/messages"):
            self.unexpected.append(request)
            return Reply(status=404, body={"type": "error", "error": {"type": "not_found_error"}})
        prompt, answered = _progress(_messages(body))
        calls = self.script.get(prompt or "", ()) if body.get("tools") else ()
        block: TextContent | ToolCall = next(
            (call for call in calls if call.id not in answered), TextContent(text=DONE)
        )
        stop = "tool_use" if isinstance(block, ToolCall) else "end_turn"
        # A reply id of its own: Claude Code's transcript (and so rein's token count) keys replies by it.
        ident = f"msg_{len(self.requests)}"
        return Reply(
            steps=anthropic_reply(block, stop_reason=stop, usage=(self.tokens, 34, 0), message_id=ident)
        )

    def results(self) -> dict[str, Result]:
        """Every tool result Claude Code sent, by tool-use id."""
        found: dict[str, Result] = {}
        for request in self.requests:
            for message in _messages(request.body):
                for block in _blocks(message):
                    if block.get("type") == "tool_result":
                        found[str(block.get("tool_use_id"))] = Result(
                            text=_text(block.get("content")),
                            is_error=block.get("is_error") is True,
                            block=block,
                        )
        return found

    def result(self, ident: str) -> Result:
        found = self.results()
        assert ident in found, f"no tool result for {ident}; the mock saw:\n{self.log()}"
        return found[ident]

    def prompts(self) -> list[str]:
        """Every prompt that reached the model, in the order first seen."""
        seen: dict[str, None] = {}
        for request in self.requests:
            seen.update(dict.fromkeys(prompts(request.body)))
        return list(seen)

    def log(self) -> str:
        """The requests, summarized, for a failure message."""
        return "\n".join(_summary(request) for request in self.requests)


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(block.get("text", "")) for block in _blocks({"content": content}))


def _summary(request: Request) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    tail = (_messages(body) or [None])[-1]
    return f"{request.method} {request.path} tools={bool(body.get('tools'))} last={json.dumps(tail)[-400:]}"
