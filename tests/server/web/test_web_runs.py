"""Runs started from the web page: rein's agent on the server, its events over the session's event
stream, stream rules, steering, approval, abort, steer, follow-up and switching branches."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.server.helpers import process_of
from tests.server.web.helpers import IDLE, web_server

pytestmark = pytest.mark.slow

BASH = {"tool": "bash", "id": "c1", "arguments": {"command": "echo from-bash"}}


def test_a_prompt_runs_and_its_events_arrive_in_order(tmp_path: Path) -> None:
    replies = [[{"text": "Let me look."}, BASH], [{"text": "All done."}]]
    with web_server(tmp_path, replies=replies) as web:
        sid = web.new_session()
        reader = web.run(sid, "hello")
        kinds = [e["type"] for e in reader.events]
        assert kinds[0] == "run" and reader.events[-1] == IDLE
        text = "".join(str(e["text"]) for e in reader.of("delta") if e["source"] == "text")
        assert "Let me look." in text and "All done." in text
        assert [e["role"] for e in reader.of("message")] == ["user", "assistant", "toolResult", "assistant"]
        assert [(e["phase"], e["name"]) for e in reader.of("tool")] == [("start", "bash"), ("end", "bash")]
        assert reader.ids == sorted(reader.ids) and len(set(reader.ids)) == len(reader.ids)
        usage = reader.of("usage")[-1]["counters"]
        assert isinstance(usage, dict) and usage["turns"] == 2 and usage["output"] > 0
        page = web.get(f"/sessions/{sid}")
        assert page["run"] == {"state": "idle", "question": None}
        html = str(page["html"])
        assert html.count("<article") == 3  # the tool result is folded into its call
        assert "from-bash" in html and "All done." in html
        assert page["counters"] == usage
        # replay: a page that reconnects with ?after= gets what it missed
        with web.events(sid, after=reader.ids[-3]) as again:
            assert again.wait_for(lambda e: e == IDLE) and len(again.events) == 2
        listed = web.get("/sessions")["sessions"]
        assert isinstance(listed, list)
        assert listed[0]["id"] == sid and listed[0]["firstPrompt"] == "hello"
        assert listed[0]["model"] == "faux/faux" and listed[0]["running"] is False


def test_a_stream_rule_cuts_the_reply_and_the_retry_follows(tmp_path: Path) -> None:
    rules = tmp_path / ".rein" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-forbidden.md").write_text(
        "---\nname: no-forbidden\ncondition: forbidden\n---\nNever say it.\n"
    )
    replies = [[{"text": "this is the forbidden word"}], [{"text": "A clean answer."}]]
    with web_server(tmp_path, replies=replies) as web:
        sid = web.new_session()
        reader = web.run(sid, "go")
        cut = reader.of("cut")
        assert len(cut) == 1 and cut[0]["rules"] == ["no-forbidden"]
        assert "forbid" in str(cut[0]["text"]) and "no-forbidden" in str(cut[0]["reason"])
        html = str(web.get(f"/sessions/{sid}")["html"])
        record, injected, retried = (
            html.index(s) for s in ("ttsr record", "ttsr injection", "A clean answer.")
        )
        assert record < injected < retried
        assert "cut-text" in html and "forbid" in html and "no-forbidden" in html
        stream = web.get(f"/sessions/{sid}/rules")["stream"]
        assert isinstance(stream, list)
        rule = next(r for r in stream if r["name"] == "no-forbidden")
        assert rule["fired"] == 1 and rule["source"] == ".rein/rules/no-forbidden.md"


def test_a_bash_call_steering_blocks_is_reported_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / ".rein").mkdir()
    (tmp_path / ".rein" / "steering.toml").write_text(
        '[[rule]]\nname = "no-curl"\ncommand = "curl"\nreason = "Do not fetch from the network."\n'
    )
    call = {"tool": "bash", "id": "c1", "arguments": {"command": "curl https://example.com"}}
    with web_server(tmp_path, replies=[[call], [{"text": "ok"}]]) as web:
        sid = web.new_session()
        reader = web.run(sid, "fetch it")
        blocked = reader.of("blocked")
        assert len(blocked) == 1 and blocked[0]["tool"] == "bash"
        assert str(blocked[0]["reason"]).startswith("[steering:no-curl@") and "network" in str(
            blocked[0]["reason"]
        )
        html = str(web.get(f"/sessions/{sid}")["html"])
        assert "steering blocked" in html and "no-curl" in html
        steering = web.get(f"/sessions/{sid}/rules")["steering"]
        assert isinstance(steering, list)
        rule = next(r for r in steering if r["name"] == "no-curl")
        assert rule["fired"] == 1 and str(rule["source"]).startswith(".rein/steering.toml")


def test_an_override_the_user_allowed_is_shown_in_the_conversation_and_the_rules_tab(tmp_path: Path) -> None:
    (tmp_path / ".rein").mkdir()
    (tmp_path / ".rein" / "steering.toml").write_text(
        'allow_override = ["no-curl"]\n[[rule]]\nname = "no-curl"\ncommand = "curl"\nreason = "Offline."\n'
    )
    command = "curl --version  # steering-override: no-curl - only prints its version"
    call = {"tool": "bash", "id": "c1", "arguments": {"command": command}}
    with web_server(tmp_path, replies=[[call], [{"text": "ok"}]]) as web:
        sid = web.new_session()
        reader = web.run(sid, "check curl")
        assert not reader.of("blocked")
        html = str(web.get(f"/sessions/{sid}")["html"])
        assert "override: no-curl" in html and "only prints its version" in html
        steering = web.get(f"/sessions/{sid}/rules")["steering"]
        assert isinstance(steering, list)
        rule = next(r for r in steering if r["name"] == "no-curl")
        assert rule["overridable"] is True and rule["overridden"] == 1 and rule["fired"] == 0
        assert not next(r for r in steering if r["name"] == "no-force-push")["overridable"]
        asks = next(r for r in steering if r["name"] == "kubernetes-delete-namespace")
        assert (asks["verdict"], asks["pack"]) == ("ask", "kubernetes")
        assert next(r for r in steering if r["name"] == "no-force-push")["verdict"] == "block"


def test_with_approve_ask_a_write_asks_the_page_and_allow_once_runs_it(tmp_path: Path) -> None:
    call = {"tool": "write", "id": "w1", "arguments": {"path": "note.txt", "content": "written"}}
    deny = {"tool": "write", "id": "w2", "arguments": {"path": "no.txt", "content": "never"}}
    replies = [[call], [deny], [{"text": "done"}]]
    with web_server(tmp_path, replies=replies, args=["--approve", "ask"]) as web:
        assert web.get("/info")["approve"] == "ask"
        sid = web.new_session()
        with web.events(sid) as reader:
            web.post(f"/sessions/{sid}/prompt", {"text": "write it"}, status=202)
            question = reader.wait_for(lambda e: e.get("type") == "question")[0]
            assert question["kind"] == "select" and "note.txt" in str(question["title"])
            options = question["options"]
            assert isinstance(options, list) and options[:2] == ["Allow once", "Allow for this session"]
            assert options[-1] == "Deny"
            parts = question["parts"]  # the dialog's pieces: the file in a code block, not in the title
            assert isinstance(parts, dict) and parts["command"] == "note.txt"
            assert parts["ask"] == "Allow the agent to write this file?"
            pending = web.get(f"/sessions/{sid}")["run"]
            assert pending == {"state": "running", "question": question}
            web.post(f"/sessions/{sid}/answer", {"questionId": question["id"], "value": "Allow once"})
            web.post(f"/sessions/{sid}/answer", {"questionId": question["id"], "value": "Deny"}, status=404)
            second = reader.wait_for(lambda e: e.get("type") == "question", count=2)[1]
            web.post(f"/sessions/{sid}/answer", {"questionId": second["id"], "value": "Deny"})
            reason = reader.wait_for(lambda e: e.get("type") == "question", count=3)[2]
            assert reason["kind"] == "input" and reason["options"] is None and reason["parts"] is None
            web.post(f"/sessions/{sid}/answer", {"questionId": reason["id"], "value": "not that file"})
            reader.wait_for(lambda e: e == IDLE)
        assert (tmp_path / "note.txt").read_text() == "written"
        assert not (tmp_path / "no.txt").exists()
        blocked = reader.of("blocked")
        assert len(blocked) == 1 and "not that file" in str(blocked[0]["reason"])
        assert len(reader.of("answered")) == 3


def test_abort_stops_a_slow_run(tmp_path: Path) -> None:
    slow = [{"text": "word " * 400}]
    with web_server(tmp_path, replies=[slow], delay=0.05) as web:
        sid = web.new_session()
        with web.events(sid) as reader:
            web.post(f"/sessions/{sid}/prompt", {"text": "talk"}, status=202)
            reader.wait_for(lambda e: e.get("type") == "delta")
            assert web.get(f"/sessions/{sid}")["run"] == {"state": "running", "question": None}
            web.post(f"/sessions/{sid}/prompt", {"text": "again"}, status=409)
            web.post(f"/sessions/{sid}/abort", {}, status=202)
            reader.wait_for(lambda e: e == IDLE, timeout=10)
        assert web.post(f"/sessions/{sid}/abort", {}) == {"state": "idle"}
        web.post(f"/sessions/{sid}/steer", {"text": "x"}, status=409)
        html = str(web.get(f"/sessions/{sid}")["html"])
        assert "stopped: aborted" in html


def test_steer_and_follow_up_reach_the_run(tmp_path: Path) -> None:
    slow_call = {"tool": "bash", "id": "c1", "arguments": {"command": "sleep 1; echo slept"}}
    replies = [[slow_call], [{"text": "steered reply"}], [{"text": "followed reply"}]]
    with web_server(tmp_path, replies=replies) as web:
        sid = web.new_session()
        with web.events(sid) as reader:
            web.post(f"/sessions/{sid}/prompt", {"text": "start"}, status=202)
            reader.wait_for(lambda e: e.get("type") == "tool" and e.get("phase") == "start")
            web.post(f"/sessions/{sid}/steer", {"text": "STEER-NOTE"}, status=202)
            web.post(f"/sessions/{sid}/follow-up", {"text": "FOLLOW-NOTE"}, status=202)
            reader.wait_for(lambda e: e == IDLE)
        html = str(web.get(f"/sessions/{sid}")["html"])
        assert html.index("STEER-NOTE") < html.index("steered reply") < html.index("FOLLOW-NOTE")
        assert html.index("FOLLOW-NOTE") < html.index("followed reply")


def _articles(html: str) -> list[str]:
    return [part.split('"', 1)[0] for part in html.split('data-entry-id="')[1::2]]


def test_switch_moves_the_leaf_and_the_next_prompt_branches(tmp_path: Path) -> None:
    with web_server(
        tmp_path, replies=[[{"text": "first"}], [{"text": "second"}], [{"text": "third"}]]
    ) as web:
        sid = web.new_session()
        web.run(sid, "one")
        web.run(sid, "two")
        page = web.get(f"/sessions/{sid}")
        ids = _articles(str(page["html"]))
        assert len(ids) == 4 and page["leafId"] == ids[-1]
        assert web.post(f"/sessions/{sid}/switch", {"entryId": ids[1]}) == {"leafId": ids[1]}
        web.post(f"/sessions/{sid}/switch", {"entryId": "nope"}, status=400)
        web.run(sid, "branch")
        page = web.get(f"/sessions/{sid}")
        html = str(page["html"])
        assert "two" not in html and "branch" in html and "third" in html
        assert _articles(html)[:2] == ids[:2] and page["entryCount"] == 6
        tree = str(web.get(f"/sessions/{sid}/tree")["html"])
        assert tree.count("<li") == 3 and tree.count('class="node active') == 2
        assert 'class="node leaf' not in tree and "node active leaf" in tree
        assert "branch" in tree


def test_the_server_stops_promptly_with_a_page_watching_and_a_question_open(tmp_path: Path) -> None:
    call = {"tool": "write", "id": "w1", "arguments": {"path": "note.txt", "content": "x"}}
    with web_server(tmp_path, replies=[[call]], args=["--approve", "ask"]) as web:
        sid = web.new_session()
        with web.events(sid) as reader:
            web.post(f"/sessions/{sid}/prompt", {"text": "write"}, status=202)
            reader.wait_for(lambda e: e.get("type") == "question")
            process = process_of(web.url)
            started = time.monotonic()
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=8) == 0 and time.monotonic() - started < 5
        assert not (tmp_path / "note.txt").exists()


def test_a_run_honours_the_projects_max_repeated_calls(tmp_path: Path) -> None:
    (tmp_path / ".rein").mkdir()
    (tmp_path / ".rein" / "settings.toml").write_text("[rein]\nmax_repeated_calls = 1\n")
    again = {**BASH, "id": "c2"}
    with web_server(tmp_path, replies=[[BASH], [again], [{"text": "never"}]]) as web:
        sid = web.new_session()
        reader = web.run(sid, "go")
        results = [str(e.get("text", "")) for e in reader.of("message") if e["role"] == "toolResult"]
        html = str(web.get(f"/sessions/{sid}")["html"])
        assert "already ran and its result will not change" in html, results
        assert "never" not in html  # the run ended after the refused call's turn
