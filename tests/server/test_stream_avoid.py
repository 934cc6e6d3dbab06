"""A server-side stream rule on the local model: the retry is asked to avoid what the rule matched, and
llama.cpp's grammar keeps it out, as in the agent loop (`StreamOptions.avoid`)."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from rein.ai.providers.local_files import SYSTEM_PROMPT
from tests.server.helpers import running_server
from tests.server.test_stream import events, user_entry

pytestmark = [pytest.mark.slow, pytest.mark.local]


def test_the_retry_of_a_cut_reply_cannot_write_the_matched_text(tmp_path: Path) -> None:
    rules = tmp_path / ".rein" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-console-log.md").write_text(
        "---\ncondition: 'console\\.log\\('\n---\nUse the project's logger, not the console.\n"
    )
    static = {"systemPrompt": SYSTEM_PROMPT, "tools": []}
    args = ("--provider", "local", "--model", "smollm2")
    with running_server(tmp_path, args=args) as url, httpx2.Client(base_url=url, timeout=120) as client:
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": static})
        prompt = user_entry("u1", "Write JavaScript that prints hello to the console.")
        client.post("/api/session/tree/append", json={"sessionId": "s1", "entries": [prompt], "leafId": "u1"})
        body = {"sessionId": "s1", "reinEvents": True, "options": {"temperature": 0, "maxTokens": 60}}
        got = events(client.post("/api/stream", json=body).text)
        retry = next(e for e in got if e["type"] == "stream_retry")
        before = "".join(str(e["delta"]) for e in got[: got.index(retry)] if e["type"] == "text_delta")
        assert "console.log(" in before  # the model's own text tripped the rule
        assert got[-1]["type"] == "done", got[-1]
        text = "".join(str(e["delta"]) for e in got[got.index(retry) :] if e["type"] == "text_delta")
        assert text and "console.log(" not in text
