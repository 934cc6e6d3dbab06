"""The faux provider as the registry builds it: the echo script, or a JSON script file from
REIN_FAUX_SCRIPT whose replies are served in order across the process."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from rein.ai import Context, Model, TextContent, ToolCall, UserMessage, get_provider
from rein.ai.providers import faux_script

MODEL = Model(provider="faux", id="faux-1")


async def reply_of(context: Context) -> tuple[str, list[ToolCall], str]:
    async with get_provider("faux").stream(MODEL, context) as events:
        message = await events.result()
    text = "".join(b.text for b in message.content if isinstance(b, TextContent))
    return (
        text,
        list(message.tool_calls),
        message.stop_reason if not message.error_message else message.error_message,
    )


def script(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_replies_are_served_in_order_across_providers_then_echo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = script(
        tmp_path,
        {
            "chunkSize": 2,
            "replies": [
                [{"text": "looking"}, {"tool": "bash", "id": "c1", "arguments": {"command": "ls"}}],
                {"blocks": [{"text": "half"}], "error": "connection reset"},
            ],
        },
    )
    monkeypatch.setenv(faux_script.SCRIPT_VARIABLE, str(path))
    context = Context(messages=(UserMessage.of("hi"),))
    text, calls, stop = asyncio.run(reply_of(context))
    assert (text, [c.arguments for c in calls], stop) == ("looking", [{"command": "ls"}], "tool_use")
    assert asyncio.run(reply_of(context))[2] == "connection reset"
    assert asyncio.run(reply_of(context))[0] == "You said: hi"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ("{not json", "cannot read the faux script"),
        ({"replies": [[{"image": 1}]]}, "replies[0][0]: expected"),
        ({"delay": -1}, "delay: expected a number"),
        ({"replies": [{"blocks": [], "stopReason": "later"}]}, "replies[0].stopReason"),
    ],
)
def test_a_bad_script_fails_each_stream_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: object, problem: str
) -> None:
    path = script(tmp_path, data)
    monkeypatch.setenv(faux_script.SCRIPT_VARIABLE, str(path))
    error = asyncio.run(reply_of(Context(messages=(UserMessage.of("hi"),))))[2]
    assert str(path) in error and problem in error
