"""`/api/stream`, the run journal and server-side stream rules and compaction, against `rein serve` in a
subprocess on the faux provider (whose default script echoes the last user text)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from tests.server.helpers import running_server

pytestmark = pytest.mark.slow

FAUX = ("--provider", "faux", "--model", "faux-1")
STATIC = {"systemPrompt": "Be brief.", "tools": []}


def events(text: str) -> list[dict[str, object]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def user_entry(entry_id: str, text: str, parent: str | None = None) -> dict[str, object]:
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1},
    }  # fmt: skip


def test_a_reply_streams_is_journaled_and_replays_without_a_model_call(tmp_path: Path) -> None:
    with running_server(tmp_path, args=FAUX) as url, httpx2.Client(base_url=url, timeout=30) as client:
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        client.post(
            "/api/session/tree/append",
            json={"sessionId": "s1", "entries": [user_entry("u1", "hi")], "leafId": "u1"},
        )
        body = {"sessionId": "s1", "runId": "r1", "ephemeralMessages": [{"role": "user", "content": "hint"}]}
        answer = client.post("/api/stream", json=body)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        assert answer.text.startswith(": keep-alive\n\n")
        streamed = events(answer.text)
        assert streamed[0] == {"type": "start"} and streamed[-1]["type"] == "done"
        text = "".join(str(e["delta"]) for e in streamed if e["type"] == "text_delta")
        assert text == "You said: hint"  # the ephemeral message reached the model...
        history = client.get("/api/session/s1/history").json()
        assert [e["id"] for e in history["entries"]] == ["u1"]  # ...and never the tree
        run = client.get("/api/session/s1/runs/r1").json()
        assert run["status"] == "completed" and run["message"]["content"][0]["text"] == "You said: hint"
        # A replay: the same runId with another context gives the journaled reply, not a new one.
        replay = events(client.post("/api/stream", json={"sessionId": "s1", "runId": "r1"}).text)
        assert replay[-1]["type"] == "done" and replay[-1]["message"] == run["message"]
        missing = client.get("/api/session/s1/runs/nope")
        assert missing.status_code == 404 and missing.json()["code"] == "RUN_NOT_FOUND"
    with running_server(tmp_path, args=FAUX) as url:  # a restart on the same database
        assert httpx2.get(f"{url}/api/session/s1/runs/r1").json()["status"] == "completed"


def test_a_bad_request_is_refused_naming_the_field(tmp_path: Path) -> None:
    with running_server(tmp_path, args=FAUX) as url, httpx2.Client(base_url=url, timeout=30) as client:
        assert (
            client.post("/api/stream", json={"sessionId": "s9"}).json()["code"] == "SESSION_NO_STATIC_CONTEXT"
        )
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        bad = client.post("/api/stream", json={"sessionId": "s1", "contextOverlay": [{"role": "robot"}]})
        assert bad.status_code == 400 and "contextOverlay[0].role" in bad.json()["error"]
        other = client.post("/api/stream", json={"sessionId": "s1", "model": {"id": 9}})
        assert other.status_code == 400 and "model.id" in other.json()["error"]
        options = client.post("/api/stream", json={"sessionId": "s1", "options": {"maxTokens": "many"}})
        assert options.status_code == 400 and "options.maxTokens" in options.json()["error"]


def test_a_stream_rule_cuts_the_reply_and_the_injection_joins_the_session(tmp_path: Path) -> None:
    rules = tmp_path / ".rein" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-forbidden.md").write_text(
        "---\nname: no-forbidden\ncondition: forbidden\n---\nNever say it.\n"
    )
    with running_server(tmp_path, args=FAUX) as url, httpx2.Client(base_url=url, timeout=30) as client:
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        client.post(
            "/api/session/tree/append",
            json={"sessionId": "s1", "entries": [user_entry("u1", "say forbidden")], "leafId": "u1"},
        )
        plain = events(client.post("/api/stream", json={"sessionId": "s1"}).text)
        assert "stream_retry" not in [e["type"] for e in plain]  # a pi client: no rules
        got = events(client.post("/api/stream", json={"sessionId": "s1", "reinEvents": True}).text)
        retry = next(e for e in got if e["type"] == "stream_retry")
        entries = retry["entries"]
        assert isinstance(entries, list)
        assert [(e["type"], e["customType"]) for e in entries] == [
            ("custom", "ttsr_injection"), ("custom_message", "ttsr-injection"),
        ]  # fmt: skip
        assert "Never say it." in entries[1]["content"] and entries[1]["display"] is False
        cut = entries[0]["data"]["cut"]  # the dropped text, up to and with the matching delta
        assert cut["source"] == "text" and "toolName" not in cut
        assert "You said: say forbidden".startswith(cut["text"]) and "forbid" in cut["text"]
        after = got[got.index(retry) + 1 :]
        text = "".join(str(e["delta"]) for e in after if e["type"] == "text_delta")
        assert text.startswith("You said: <system-interrupt") and after[-1]["type"] == "done"
        history = client.get("/api/session/s1/history").json()
        assert [e["id"] for e in history["entries"]] == ["u1", entries[0]["id"], entries[1]["id"]]


def test_compaction_answers_a_tree_patch_or_the_whole_tree(tmp_path: Path) -> None:
    with running_server(tmp_path, args=FAUX) as url, httpx2.Client(base_url=url, timeout=30) as client:
        state = client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC}).json()
        assert client.post("/api/session/compact", json={"sessionId": "s1"}).status_code == 400  # nothing
        turns: list[dict[str, object]] = []
        parent = None
        for i in range(3):
            turns.append(user_entry(f"u{i}", f"question {i}", parent))
            turns.append({
                "type": "message", "id": f"a{i}", "parentId": f"u{i}",
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": f"answer {i}"}],
                            "provider": "faux", "model": "faux-1", "stopReason": "stop", "timestamp": 2},
            })  # fmt: skip
            parent = f"a{i}"
        state = client.post(
            "/api/session/tree/append", json={"sessionId": "s1", "entries": turns, "leafId": "a2"}
        ).json()
        answer = client.post(
            "/api/session/compact", json={"sessionId": "s1", "baseTreeHash": state["treeHash"]}
        )
        body = json.loads(answer.text)  # whitespace heartbeats first, then the JSON body
        assert body["success"] is True and body["treePatch"]["entriesFrom"] == 6
        assert body["treePatch"]["entries"][-1] == body["compactionEntry"]
        assert (
            body["compactionEntry"]["type"] == "compaction"
            and body["leafId"] == body["compactionEntry"]["id"]
        )
        client.post("/api/session/init", json={"sessionId": "s2", "staticContext": STATIC})
        client.post("/api/session/tree/append", json={"sessionId": "s2", "entries": turns, "leafId": "a2"})
        full = client.post(
            "/api/session/compact", json={"sessionId": "s2", "streamResponse": True, "fullResponse": True}
        )
        assert full.headers["content-type"].startswith("text/event-stream")
        data = next(line[6:] for line in full.text.splitlines() if line.startswith("data: "))
        assert "event: result" in full.text
        result = json.loads(data)
        assert "treePatch" not in result and len(result["entries"]) == result["entryCount"]
