"""A mock of the Gemini API for the real Gemini CLI, scripted by prompt.

    with GeminiApi({"go": [shell("ls")]}) as api:
        box.env.update(api.env)
        box.run([host_bin["gemini"], "-p", "go", "--yolo"], timeout=60)
    assert LISTED in api.results()[0].text

`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` is answered by looking at the conversation
it carries: the user's last prompt names the script (the function calls for that prompt), and the
function responses already sent after it say how far along it is. The next call is streamed as a
`functionCall` part, and once all have been answered, a closing text `DONE`. A request that asks for
JSON (Gemini CLI's model router and next-speaker check, `responseMimeType: application/json`) gets one
object that satisfies both. `:generateContent` and `:countTokens` answer in kind; any other path is a
404, recorded in `unexpected`. The server runs on its own event loop in a thread, so the test can run
the host with `subprocess`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rein.ai import JsonValue
from rein.ai.testing import Event, Reply, Request
from tests.hosts._threaded import ThreadedApi

DONE = "All done."
"""The model's closing text, once every call of a prompt has a response."""
ROUTED = {
    "reasoning": "scripted",
    "model_choice": "flash",
    "complexity_reasoning": "scripted",
    "complexity_score": 10,
    "next_speaker": "user",
}
"""The answer to every JSON request: both model routers' keys and the next-speaker check's (each
reads its own)."""


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    args: Mapping[str, JsonValue]


Script = Mapping[str, Sequence[Call]]


def shell(command: str) -> Call:
    return Call("run_shell_command", {"command": command, "description": "run it"})


def write_file(path: str, content: str) -> Call:
    return Call("write_file", {"file_path": path, "content": content})


@dataclass(frozen=True, slots=True)
class Result:
    """A function response as Gemini CLI sent it back to the model."""

    name: str
    response: Mapping[str, object]
    """The `functionResponse.response` object as it was on the wire."""

    @property
    def text(self) -> str:
        return json.dumps(self.response)


def _parts(content: object) -> list[Mapping[str, object]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [part for part in parts or () if isinstance(part, dict)]


def _contents(body: object) -> list[object]:
    contents = body.get("contents") if isinstance(body, dict) else None
    return list(contents) if isinstance(contents, list) else []


def _wants_json(body: object) -> bool:
    config = body.get("generationConfig") if isinstance(body, dict) else None
    return isinstance(config, dict) and config.get("responseMimeType") == "application/json"


def _candidate(parts: list[JsonValue]) -> dict[str, JsonValue]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-test",
    }


class GeminiApi(ThreadedApi):
    """See the module docstring."""

    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = script

    @property
    def env(self) -> dict[str, str]:
        """What points Gemini CLI at this mock with a dummy key."""
        return {"GOOGLE_GEMINI_BASE_URL": self.url, "GEMINI_API_KEY": "test-key"}

    def results(self) -> list[Result]:
        """Every function response of the longest conversation the host sent, in order."""
        longest: list[object] = []
        for request in self.requests:
            contents = _contents(request.body)
            if "streamGenerateContent" in request.path and len(contents) > len(longest):
                longest = contents
        found: list[Result] = []
        for content in longest:
            for part in _parts(content):
                response = part.get("functionResponse")
                if isinstance(response, dict):
                    name, body = response.get("name"), response.get("response")
                    found.append(Result(str(name), body if isinstance(body, dict) else {}))
        return found

    def _route(self, request: Request) -> Reply:
        if request.method != "POST" or "/models/" not in request.path:
            self.unexpected.append(request)
            return Reply(status=404, body={"error": {"code": 404, "message": "not mocked"}})
        if ":countTokens" in request.path:
            return Reply(body={"totalTokens": 10})
        parts = self._next(request.body)
        if ":streamGenerateContent" in request.path:
            return Reply(steps=[Event(data=_candidate(parts))])
        if ":generateContent" in request.path:
            return Reply(body=_candidate(parts))
        self.unexpected.append(request)
        return Reply(status=404, body={"error": {"code": 404, "message": "not mocked"}})

    def _next(self, body: object) -> list[JsonValue]:
        if _wants_json(body):
            return [{"text": json.dumps(ROUTED)}]
        prompt, answered = self._progress(_contents(body))
        calls = self.script.get(prompt, ()) if prompt is not None else ()
        if answered < len(calls):
            call = calls[answered]
            return [{"functionCall": {"name": call.name, "args": dict(call.args)}}]
        return [{"text": DONE}]

    def _progress(self, contents: Sequence[object]) -> tuple[str | None, int]:
        """The script named in the user's last prompt and how many responses came after it."""
        answered = 0
        for content in reversed(contents):
            if not isinstance(content, dict) or content.get("role") != "user":
                continue
            parts = _parts(content)
            answered += sum("functionResponse" in part for part in parts)
            said = " ".join(str(part["text"]) for part in parts if isinstance(part.get("text"), str))
            named = [key for key in self.script if key in said]
            if named:
                return named[0], answered
        return None, answered
