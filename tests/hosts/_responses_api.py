"""A mock of the OpenAI Responses API for the real Codex CLI, scripted by prompt.

    with ResponsesApi({"go": [shell("ls"), patch(ADD)]}) as api:
        box.run([host_bin["codex"], "exec", *api.flags, "go"], timeout=60)
    assert LISTED in api.outputs()[0].text

Codex 0.169 (`model_provider` in `$CODEX_HOME/config.toml`, `wire_api = "responses"`) sends
`POST /v1/responses` with the whole conversation in `input`, uncompressed, over plain HTTP. The user's
last prompt names the script; the tool outputs already in `input` say how far along it is. The next
call is streamed as one output item: `exec_command` (a `function_call` with `{"cmd": ...}`, Codex's
shell) or `apply_patch` (a freeform `custom_tool_call` whose `input` is the patch; Codex offers it
only to models it knows, hence `MODEL`). Once every call has an output, a closing text `DONE`. Any
other path is a 404, recorded in `unexpected`. The server runs on its own event loop in a thread, so
the test can run the host with `subprocess`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rein.ai import JsonValue, TextContent
from rein.ai.testing import Event, Reply, Request, response_object, responses_reply
from tests.hosts._threaded import ThreadedApi

MODEL = "gpt-5.5"
"""A model Codex 0.169 has metadata for, so it offers `apply_patch` (unknown models get only the shell)."""
DONE = "All done."
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


@dataclass(frozen=True, slots=True)
class Call:
    kind: str
    """`function_call` or `custom_tool_call`."""
    name: str
    payload: str
    """The JSON arguments of a function call, the raw input of a custom tool call."""


Script = Mapping[str, Sequence[Call]]


def shell(command: str, *, login: bool = True) -> Call:
    """Codex's shell; `login=False` keeps the caller's PATH (a login shell resets it)."""
    return Call("function_call", "exec_command", json.dumps({"cmd": command, "login": login}))


def patch(text: str) -> Call:
    return Call("custom_tool_call", "apply_patch", text)


@dataclass(frozen=True, slots=True)
class Output:
    """A tool output as Codex sent it back to the model."""

    call_id: str
    text: str


def _input(body: object) -> list[Mapping[str, object]]:
    items = body.get("input") if isinstance(body, dict) else None
    return [item for item in items or () if isinstance(item, dict)]


def _said(item: Mapping[str, object]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return " ".join(str(part.get("text", "")) for part in parts if isinstance(part, dict))


def _text(output: object) -> str:
    """An output's text: a string, or the text parts of a content list."""
    if isinstance(output, str):
        return output
    parts = output if isinstance(output, list) else []
    return "".join(str(part.get("text", "")) for part in parts if isinstance(part, dict))


def _call_events(index: int, call: Call) -> list[Event]:
    ident = f"call_{index}"
    field = "arguments" if call.kind == "function_call" else "input"
    item: dict[str, JsonValue] = {
        "type": call.kind,
        "id": f"item_{index}",
        "call_id": ident,
        "name": call.name,
        field: call.payload,
        "status": "completed",
    }
    output: list[JsonValue] = [item]
    return [
        Event(event="response.created", data={"type": "response.created", "sequence_number": 0,
                                              "response": response_object(MODEL, "in_progress", [])}),
        Event(event="response.output_item.added", data={"type": "response.output_item.added",
                                                        "sequence_number": 1, "output_index": 0,
                                                        "item": {**item, "status": "in_progress"}}),
        Event(event="response.output_item.done", data={"type": "response.output_item.done",
                                                       "sequence_number": 2, "output_index": 0,
                                                       "item": item}),
        Event(event="response.completed", data={"type": "response.completed", "sequence_number": 3,
                                                "response": response_object(MODEL, "completed", output,
                                                                            (30, 15, 0))}),
    ]  # fmt: skip


class ResponsesApi(ThreadedApi):
    """See the module docstring."""

    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = script

    def config(self) -> str:
        """The `config.toml` lines that point Codex at this mock (the key comes from `MOCK_API_KEY`)."""
        return (
            f'model = "{MODEL}"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\n'
            f'base_url = "{self.url}/v1"\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n'
        )

    def outputs(self) -> list[Output]:
        """Every tool output of the longest conversation the host sent, in order."""
        longest: list[Mapping[str, object]] = []
        for request in self.requests:
            items = _input(request.body)
            if request.path.endswith("/responses") and len(items) > len(longest):
                longest = items
        return [
            Output(str(item.get("call_id")), _text(item.get("output")))
            for item in longest
            if item.get("type") in _OUTPUTS
        ]

    def _route(self, request: Request) -> Reply:
        if request.method != "POST" or not request.path.endswith("/responses"):
            self.unexpected.append(request)
            return Reply(status=404, body={"error": {"message": "not mocked", "type": "not_found"}})
        prompt, answered = self._progress(_input(request.body))
        calls = self.script.get(prompt, ()) if prompt is not None else ()
        if answered < len(calls):
            return Reply(steps=_call_events(answered, calls[answered]))
        return Reply(steps=responses_reply(TextContent(text=DONE), model=MODEL))

    def _progress(self, items: Sequence[Mapping[str, object]]) -> tuple[str | None, int]:
        """The script named in the user's last prompt and how many tool outputs came after it."""
        answered = 0
        for item in reversed(items):
            if item.get("type") in _OUTPUTS:
                answered += 1
            elif item.get("type") == "message" and item.get("role") == "user":
                named = [key for key in self.script if key in _said(item)]
                if named:
                    return named[0], answered
        return None, answered
