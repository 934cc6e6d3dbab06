"""The page's read API against a real `rein serve`: sessions written by protocol clients, escaping,
pagination of a long session, the rules, and `/api/stream` runs seen live by the page."""

from __future__ import annotations

import time
from pathlib import Path

import httpx2
import pytest

from tests.server.web.helpers import web_server

pytestmark = pytest.mark.slow
STAMP = "2026-01-01T00:00:00.000Z"


def _message(entry_id: str, parent: str | None, role: str, text: str) -> dict[str, object]:
    if role == "user":
        message: dict[str, object] = {"role": "user", "content": text, "timestamp": 1}
    else:
        message = {
            "role": "assistant", "content": [{"type": "text", "text": text}], "api": "faux",
            "provider": "faux", "model": "faux-1", "stopReason": "stop", "timestamp": 2,
            "usage": {"input": 10, "output": 5, "cacheRead": 1, "cacheWrite": 0, "totalTokens": 16,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.25}},
        }  # fmt: skip
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": STAMP, "message": message}


def _chain(count: int, text: str = "turn") -> list[dict[str, object]]:
    entries: list[dict[str, object]] = []
    for i in range(count):
        parent = entries[-1]["id"] if entries else None
        role = "user" if i % 2 == 0 else "assistant"
        entries.append(_message(f"e{i}", str(parent) if parent else None, role, f"{text} {i}"))
    return entries


def _sync(client: httpx2.Client, sid: str, entries: list[dict[str, object]]) -> None:
    body = {"sessionId": sid, "entries": entries, "leafId": entries[-1]["id"]}
    answer = client.post("/api/session/tree/sync", json=body)
    assert answer.status_code == 200, answer.text


def test_session_text_is_escaped_in_the_html_fragment(tmp_path: Path) -> None:
    with web_server(tmp_path) as web:
        evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
        _sync(web.client, "s1", [_message("u1", None, "user", evil), _message("a1", "u1", "assistant", evil)])
        html = str(web.get("/sessions/s1")["html"])
        assert "<script>" not in html and "<img" not in html
        assert html.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") == 2
        listed = web.get("/sessions")["sessions"]
        assert (
            isinstance(listed, list) and listed[0]["firstPrompt"] == evil
        )  # JSON: the page sets textContent
        tree = str(web.get("/sessions/s1/tree")["html"])
        assert "<script>" not in tree and "&lt;script&gt;" in tree


def test_a_ten_thousand_entry_session_shows_the_newest_entries_fast(tmp_path: Path) -> None:
    with web_server(tmp_path, args=["--max-request-kb", "16384"]) as web:
        _sync(web.client, "big", _chain(10_000))
        first = web.get("/sessions/big", limit=200)  # loads the session into the server's cache
        assert first["branchLength"] == 10_000 and first["shownFrom"] == 9_800 and first["hasEarlier"] is True
        html = str(first["html"])
        assert html.count("<article") == 200 and "turn 9999" in html and "turn 9799" not in html
        counters = first["counters"]
        assert isinstance(counters, dict)
        assert counters["turns"] == 5_000 and counters["totalTokens"] == 80_000 and counters["cost"] == 1250.0
        timings = []
        for _ in range(5):
            started = time.perf_counter()
            web.get("/sessions/big", limit=200)
            timings.append(time.perf_counter() - started)
        assert min(timings) < 0.2, timings
        earlier = web.get("/sessions/big", limit=200, before=9_800)
        assert earlier["shownFrom"] == 9_600 and "turn 9799" in str(earlier["html"])
        start = web.get("/sessions/big", limit=50, before=30)
        assert start["shownFrom"] == 0 and start["hasEarlier"] is False
        assert str(start["html"]).count("<article") == 30
        tree = str(web.get("/sessions/big/tree")["html"])
        assert tree.count("<li") == 1 and "10000 entries" in tree and len(tree) < 1000


def test_sessions_are_created_in_a_directory_and_unknown_ones_are_404(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with web_server(tmp_path) as web:
        sid = str(web.post("/sessions", {"cwd": str(project)}, status=201)["id"])
        bad = web.post("/sessions", {"cwd": str(tmp_path / "missing")}, status=400)
        assert bad["code"] == "INVALID_REQUEST" and "cwd" in str(bad["error"])
        listed = web.get("/sessions")["sessions"]
        assert isinstance(listed, list) and [s["cwd"] for s in listed] == [str(project)]
        page = web.get(f"/sessions/{sid}")
        assert page["cwd"] == str(project) and page["html"] == "" and page["leafId"] is None
        assert page["eventSeq"] == 0
        # A session a client made in a directory this machine does not have: nowhere to run tools.
        gone = tmp_path / "gone"
        gone.mkdir()
        elsewhere = str(web.post("/sessions", {"cwd": str(gone)}, status=201)["id"])
        gone.rmdir()
        refused = web.post(f"/sessions/{elsewhere}/prompt", {"text": "x"}, status=409)
        assert refused["code"] == "NO_DIRECTORY" and str(gone) in str(refused["error"])
        assert web.get("/sessions/nope", status=404)["code"] == "SESSION_NOT_FOUND"
        assert web.post("/sessions/nope/prompt", {"text": "x"}, status=404)["code"] == "SESSION_NOT_FOUND"
        assert web.post(f"/sessions/{sid}/prompt", {}, status=400)["code"] == "REQUIRED_FIELD_MISSING"
        assert web.post(f"/sessions/{sid}/answer", {"questionId": "q", "value": "x"}, status=404)["code"] == (
            "QUESTION_NOT_FOUND"
        )
        assert web.post(f"/sessions/{sid}/follow-up", {"text": "x"}, status=409)["code"] == "NO_RUN"
        info = web.get("/info")
        assert info["cwd"] == str(tmp_path.resolve()) and info["provider"] == "faux"
        assert info["approve"] == "auto"


def test_the_rules_tab_lists_both_kinds_with_sources(tmp_path: Path) -> None:
    (tmp_path / ".rein" / "rules").mkdir(parents=True)
    (tmp_path / ".rein" / "rules" / "no-todo.md").write_text(
        "---\nname: no-todo\ncondition: TODO\n---\nNo.\n"
    )
    (tmp_path / ".rein" / "rules" / "broken.md").write_text("---\nname: [\n---\n")
    (tmp_path / ".rein" / "steering.toml").write_text(
        '[[rule]]\nname = "no-curl"\ncommand = "curl"\nreason = "Offline."\n'
    )
    with web_server(tmp_path) as web:
        sid = web.new_session()
        rules = web.get(f"/sessions/{sid}/rules")
        assert rules["cwd"] == str(tmp_path.resolve())
        stream, steering = rules["stream"], rules["steering"]
        assert isinstance(stream, list) and isinstance(steering, list)
        todo = next(r for r in stream if r["name"] == "no-todo")
        assert todo == {"name": "no-todo", "source": ".rein/rules/no-todo.md", "detail": "TODO", "fired": 0}
        curl = next(r for r in steering if r["name"] == "no-curl")
        assert "curl" in str(curl["detail"]) and "Offline." in str(curl["detail"]) and curl["fired"] == 0
        assert any(r["source"] == "rein defaults" or r["source"] == "defaults" for r in steering)
        problems = rules["problems"]
        assert isinstance(problems, list) and any("broken.md" in str(p) for p in problems)


def test_a_protocol_stream_run_is_seen_live_by_the_page(tmp_path: Path) -> None:
    with web_server(tmp_path, replies=[[{"text": "streamed for the protocol"}]]) as web:
        init = {"sessionId": "s1", "staticContext": {"systemPrompt": "Be brief.", "tools": []}}
        web.client.post("/api/session/init", json=init)
        _sync(web.client, "s1", [_message("u1", None, "user", "hi")])
        with web.events("s1") as reader:
            web.client.post("/api/stream", json={"sessionId": "s1"})
            reader.wait_until(lambda events: "protocol" in _deltas(events))
        assert _deltas(reader.events) == "streamed for the protocol"
        assert {e["source"] for e in reader.of("delta")} == {"text"}


def _deltas(events: list[dict[str, object]]) -> str:
    return "".join(str(e["text"]) for e in events if e.get("type") == "delta")
