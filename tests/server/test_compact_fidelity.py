"""Server-side compaction does what the pi client asks (issue 34): the client's model and options, its
`settings` and `preparation`, pi's cut and result shape (`usage`, `retainedTail`, `details.readFiles`
/ `modifiedFiles`), and a first heartbeat before the provider is called. The plan is tested as a pure
function; the endpoint against `rein serve` with a scripted OpenAI-compatible upstream on 127.0.0.1
that records what it was asked."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pytest

from rein.ai import TextContent, default_model
from rein.ai.testing import chat_reply
from rein.server._compact import _forced, _settings
from rein.server._compact_plan import PlanRefused, context_tokens, plan_compaction
from rein.server._config import ServerConfig
from rein.server._errors import ProtocolError
from rein.session.compaction import CompactionSettings
from tests.server.helpers import running_server

STATIC = {"systemPrompt": "Be brief.", "tools": []}
STAMP = "2026-01-01T00:00:00.000Z"
Entry = dict[str, object]


def entry(entry_id: str, parent: str | None, message: dict[str, object]) -> Entry:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": STAMP, "message": message}


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text, "timestamp": 1}


def reply(text: str, *calls: tuple[str, dict[str, object]], total: int = 0) -> dict[str, object]:
    content: list[object] = [{"type": "text", "text": text}]
    content += [
        {"type": "toolCall", "id": f"c{i}", "name": n, "arguments": a} for i, (n, a) in enumerate(calls)
    ]
    usage = {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total}
    return {"role": "assistant", "content": content, "stopReason": "stop", "usage": usage, "timestamp": 2}


def result(text: str) -> dict[str, object]:
    return {
        "role": "toolResult",
        "toolCallId": "c0",
        "toolName": "read",
        "content": [{"type": "text", "text": text}],
    }


def chain(*items: tuple[str, dict[str, object]], parent: str | None = None) -> list[Entry]:
    out = []
    for entry_id, message in items:
        out.append(entry(entry_id, parent, message))
        parent = entry_id
    return out


# The plan, as pi's prepareLegacyCompaction decides it


def test_keep_recent_tokens_picks_the_cut_and_a_tool_result_never_starts_the_kept_part() -> None:
    branch = chain(
        ("u1", user("read it")), ("a1", reply("ok", ("read", {"path": "a.py"}))), ("t1", result("x" * 400)),
        ("a2", reply("done", ("edit", {"path": "a.py"}), ("write", {"path": "b.py"}))),
        ("u2", user("y" * 80)), ("a3", reply("z" * 40)),
    )  # fmt: skip
    assert plan_compaction(branch, 10).first_kept_id == "a3"  # a3 alone reaches 10 tokens: a split turn
    assert plan_compaction(branch, 25).first_kept_id == "u2"  # u2 (20) + a3 (10)
    plan = plan_compaction(branch, 60)  # reached inside t1, which is no cut point: the next one, a2
    assert plan.first_kept_id == "a2"
    assert [m["role"] for m in plan.retained_tail] == ["assistant", "user", "assistant"]
    assert plan.read_files == ("a.py",) and plan.modified_files == ()  # a2's edit is kept, not summarized
    everything = plan_compaction(branch, 100_000)  # nothing reaches it: keep from the first cut point
    assert everything.first_kept_id == "u1" and not everything.summarizes_anything(branch)


def test_a_forced_first_kept_entry_must_lie_between_the_last_summary_and_the_leaf() -> None:
    branch = chain(("u1", user("q1")), ("a1", reply("a1")), ("u2", user("q2")), ("a2", reply("a2")))
    plan = plan_compaction(branch, 0, "u2")
    assert (plan.first_kept_id, plan.start) == ("u2", 0)
    assert [m["content"] for m in plan.retained_tail] == ["q2", [{"type": "text", "text": "a2"}]]
    compaction: Entry = {
        "type": "compaction",
        "id": "c1",
        "parentId": "a2",
        "summary": "s",
        "firstKeptEntryId": "u2",
    }
    later = [*branch, compaction, *chain(("u3", user("q3")), parent="c1")]
    for refused in ("a1", "nope"):
        with pytest.raises(PlanRefused, match="Forced first kept entry was not found"):
            plan_compaction(later, 0, refused)
    for nothing in ([], [*branch, compaction]):
        with pytest.raises(PlanRefused, match="Nothing to compact"):
            plan_compaction(nothing, 0)


def test_a_one_entry_session_keeps_its_entry_and_summarizes_nothing() -> None:
    branch = chain(("u1", user("hello")))
    plan = plan_compaction(branch, 20_000)
    assert plan.first_kept_id == "u1" and plan.retained_tail == (user("hello"),)
    assert not plan.summarizes_anything(branch) and plan.tokens_before == 2


def test_after_a_compaction_its_kept_part_is_summarized_again_with_its_summary_carried() -> None:
    head = chain(("u1", user("q1")), ("a1", reply("a1")), ("u2", user("q2")), ("a2", reply("a2", total=900)))
    details = {"readFiles": ["x.py", "y.py"], "modifiedFiles": ["z.py"]}
    compaction: Entry = {
        "type": "compaction", "id": "c1", "parentId": "a2", "timestamp": STAMP, "summary": "before",
        "firstKeptEntryId": "u2", "tokensBefore": 900, "details": details,
    }  # fmt: skip
    tail = chain(
        ("u3", user("q3")), ("a3", reply("a3", ("edit", {"path": "y.py"}))), ("u4", user("q4")), parent="c1"
    )
    branch = [*head, compaction, *tail]
    plan = plan_compaction(branch, 0, "a2")  # inside what c1 kept
    assert plan.start == 2 and plan.previous == 4
    summarized = plan.summarized_branch(branch)  # u1 a1 u2, then c1 re-parented onto u2
    assert [e["id"] for e in summarized] == ["u1", "a1", "u2", "c1"] and summarized[-1]["parentId"] == "u2"
    assert branch[4]["parentId"] == "a2"  # the branch itself is left as it was
    after = plan_compaction(branch, 0, "u3")
    assert [e["id"] for e in after.summarized_branch(branch)] == ["u1", "a1", "u2", "a2", "c1"]
    assert after.read_files == ("x.py", "y.py") and after.modified_files == ("z.py",)
    latest = plan_compaction(branch, 0)  # keeps u4: a3's edit of y.py is summarized now
    assert (latest.first_kept_id, latest.read_files, latest.modified_files) == (
        "u4",
        ("x.py",),
        ("y.py", "z.py"),
    )
    hooked = [*head, {**compaction, "fromHook": True}, *tail]
    assert plan_compaction(hooked, 0, "u3").read_files == ()  # an extension's details are its own


def test_tokens_before_is_the_last_usage_plus_estimates_counted_as_javascript_counts() -> None:
    messages = [user("x" * 40), reply("y", total=500), user("🙂" * 4)]  # 8 UTF-16 units: 2 tokens
    assert context_tokens(messages) == 502
    errored = [user("x" * 40), {**reply("y", total=500), "stopReason": "error"}]
    assert context_tokens(errored) == 10 + 1


def test_custom_messages_and_branch_summaries_are_kept_as_pi_writes_them() -> None:
    custom: Entry = {
        "type": "custom_message", "id": "m1", "parentId": "u1", "timestamp": "2026-01-01T00:00:01.500Z",
        "customType": "note", "content": "remember", "display": True,
    }  # fmt: skip
    summary: Entry = {
        "type": "branch_summary",
        "id": "b1",
        "parentId": "m1",
        "timestamp": STAMP,
        "summary": "s",
        "fromId": "z",
    }
    branch = [*chain(("u1", user("q"))), custom, summary]
    tail = plan_compaction(branch, 100_000).retained_tail
    # No "details" key: the entry has none, and JSON drops JavaScript's undefined.
    assert tail[1] == {
        "role": "custom", "customType": "note", "content": "remember", "display": True,
        "timestamp": 1767225601500,
    }  # fmt: skip
    assert tail[2] == {"role": "branchSummary", "summary": "s", "fromId": "z", "timestamp": 1767225600000}


# The request's settings and preparation


def test_request_settings_override_reins_compaction_settings(tmp_path: Path) -> None:
    (tmp_path / ".rein").mkdir()
    (tmp_path / ".rein" / "settings.toml").write_text(
        "[compaction]\nkeep_recent_tokens = 1234\nreserve_tokens = 99\n"
    )
    config = ServerConfig(cwd=str(tmp_path), home=tmp_path / "home")
    assert _settings(None, config) == CompactionSettings(keep_recent_tokens=1234, reserve_tokens=99)
    assert _settings({"keepRecentTokens": 5}, config) == CompactionSettings(
        keep_recent_tokens=5, reserve_tokens=99
    )
    both = _settings({"enabled": False, "reserveTokens": 0, "keepRecentTokens": 7}, config)
    assert (both.reserve_tokens, both.keep_recent_tokens) == (0, 7)
    bad: object
    for bad in ({"keepRecentTokens": -1}, {"reserveTokens": "big"}, {"keepRecentTokens": True}, []):
        with pytest.raises(ProtocolError) as refused:
            _settings(bad, config)
        assert refused.value.status == 400 and "settings" in str(refused.value)
    assert _forced({"firstKeptEntryId": "u2"}) == "u2" and _forced({"firstKeptEntryId": ""}) is None
    with pytest.raises(ProtocolError):
        _forced({"firstKeptEntryId": 3})


# The endpoint against `rein serve`


class Upstream:
    """An OpenAI-compatible chat endpoint that records each request (body and headers) and answers
    one scripted summary; with `gate`, each answer waits until the gate opens (10 s at most)."""

    def __init__(self, text: str = "the model's summary", gate: threading.Event | None = None) -> None:
        self.requests: list[tuple[dict[str, object], dict[str, str]]] = []
        self.gate_was_open: list[bool] = []
        self.timed_out = False
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                upstream.requests.append((body, {k.lower(): v for k, v in self.headers.items()}))
                if gate is not None:
                    upstream.gate_was_open.append(gate.is_set())
                    upstream.timed_out |= not gate.wait(10)
                data = b"".join(e.encode() for e in chat_reply(TextContent(text=text), usage=(120, 30, 0)))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    server = Upstream()
    yield server
    server.close()


def serve(tmp_path: Path, upstream: Upstream, *extra: str) -> AbstractContextManager[str]:
    """`rein serve` on the openai provider at `upstream`, with no `--model`."""
    args = ("--provider", "openai", "--base-url", upstream.url, *extra)
    return running_server(tmp_path, args=args, env={"OPENAI_API_KEY": "server-key"})


def start(client: httpx2.Client, sid: str, entries: list[Entry]) -> None:
    client.post("/api/session/init", json={"sessionId": sid, "staticContext": STATIC})
    client.post(
        "/api/session/tree/append", json={"sessionId": sid, "entries": entries, "leafId": entries[-1]["id"]}
    )


def compact(client: httpx2.Client, body: Mapping[str, object]) -> dict[str, Any]:
    """The `event: result` of a streamed compaction (JSON off the wire, read as the client reads it)."""
    answer = client.post("/api/session/compact", json={**body, "streamResponse": True})
    assert answer.status_code == 200 and "event: result" in answer.text, answer.text
    data: dict[str, Any] = json.loads(answer.text.split("event: result\ndata: ", 1)[1])
    return data


TURNS = chain(
    ("u1", user("read a.py")), ("a1", reply("ok", ("read", {"path": "a.py"}))), ("t1", result("print(1)")),
    ("a2", reply("fixed", ("edit", {"path": "b.py"}))), ("u2", user("and the docs")), ("a3", reply("done")),
)  # fmt: skip


@pytest.mark.slow
def test_compaction_asks_the_clients_model_with_its_options_and_answers_pis_result(
    tmp_path: Path, upstream: Upstream
) -> None:
    with (
        serve(tmp_path, upstream, "--allow-client-keys") as url,
        httpx2.Client(base_url=url, timeout=30) as client,
    ):
        start(client, "s1", TURNS)
        body = {
            "sessionId": "s1", "model": {"id": "client-model", "contextWindow": 100_000, "maxTokens": 4096},
            "options": {"apiKey": "client-key", "temperature": 0.25},
            "settings": {"enabled": True, "reserveTokens": 2000, "keepRecentTokens": 4},
        }  # fmt: skip
        got = compact(client, body)
        [(request, headers)] = upstream.requests
        assert request["model"] == "client-model" and request["temperature"] == 0.25
        assert request["max_tokens"] == 1600  # four fifths of the request's reserveTokens
        assert headers["authorization"] == "Bearer client-key"
        result = got["compaction"]
        assert isinstance(result, dict)
        assert result["firstKeptEntryId"] == "u2"  # "and the docs" (3 tokens) + "done" (1) reach 4
        assert result["retainedTail"] == [user("and the docs"), reply("done")]
        assert result["usage"] == {
            "input": 120, "output": 30, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 150,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        }  # fmt: skip
        details = result["details"]
        assert details["readFiles"] == ["a.py"] and details["modifiedFiles"] == ["b.py"]
        assert details["state"]["read"] == ["a.py"] and details["requests"] == 1  # rein's own, beside pi's
        assert str(result["summary"]).startswith("the model's summary")
        written = got["compactionEntry"]
        assert written["firstKeptEntryId"] == "u2" != written["id"] and written["details"] == details
        assert written["tokensBefore"] == result["tokensBefore"] == got["entries"][-1]["tokensBefore"]
        # A second compaction carries the first one's summary and file lists.
        start(client, "s1", chain(("u3", user("more")), ("a4", reply("sure")), parent=str(written["id"])))
        again = compact(client, {**body, "preparation": {"firstKeptEntryId": "u3"}})["compaction"]
        prompt = json.dumps(upstream.requests[1][0]["messages"])
        assert "the model's summary" in prompt and "and the docs" in prompt and "read a.py" not in prompt
        assert again["firstKeptEntryId"] == "u3" and again["details"]["readFiles"] == ["a.py"]


@pytest.mark.slow
def test_without_a_client_model_the_servers_model_is_asked_never_the_providers_name(
    tmp_path: Path, upstream: Upstream
) -> None:
    with serve(tmp_path, upstream) as url, httpx2.Client(base_url=url, timeout=30) as client:
        start(client, "s1", TURNS)
        compact(client, {"sessionId": "s1", "settings": {"keepRecentTokens": 4, "reserveTokens": 2000}})
        assert upstream.requests[0][0]["model"] == default_model("openai") != "openai"
        assert upstream.requests[0][1]["authorization"] == "Bearer server-key"
        # The last turn alone is larger than keepRecentTokens: it is kept, and the entry points at it.
        start(client, "s2", chain(("u1", user("q")), ("a1", reply("a")), ("u2", user("x" * 4000))))
        got = compact(
            client, {"sessionId": "s2", "settings": {"keepRecentTokens": 10, "reserveTokens": 2000}}
        )
        assert got["compaction"]["firstKeptEntryId"] == "u2" != got["compactionEntry"]["id"]


@pytest.mark.slow
def test_a_one_entry_session_is_compacted_as_the_fork_does_and_refusals_come_first(
    tmp_path: Path, upstream: Upstream
) -> None:
    with serve(tmp_path, upstream) as url, httpx2.Client(base_url=url, timeout=30) as client:
        start(client, "s1", chain(("u1", user("hello"))))
        got = compact(client, {"sessionId": "s1", "model": {"id": "m"}})
        result = got["compaction"]
        assert result["firstKeptEntryId"] == "u1" and result["retainedTail"] == [user("hello")]
        assert result["summary"] == "" and result["usage"]["totalTokens"] == 0  # nothing to summarize...
        assert upstream.requests == []  # ...so no request, where the fork asks the model anyway
        assert got["entryCount"] == 2 and got["messageCount"] == 2
        start(client, "s2", chain(("u1", user("q")), ("a1", reply("a"))))
        for body, message in (
            ({"sessionId": "s1"}, "Nothing to compact"),  # the branch ends in the compaction now
            ({"sessionId": "s2", "preparation": {"firstKeptEntryId": "zz"}}, "Forced first kept entry"),
            ({"sessionId": "s2", "settings": {"keepRecentTokens": -5}}, "settings.keepRecentTokens"),
            ({"sessionId": "s2", "model": {"id": ""}}, "model.id"),
        ):
            refused = client.post("/api/session/compact", json={**body, "streamResponse": True})
            assert refused.status_code == 400 and refused.headers["content-type"].startswith(
                "application/json"
            )
            assert message in refused.json()["error"]
        assert upstream.requests == []


@pytest.mark.slow
def test_the_first_heartbeat_goes_out_before_the_provider_is_called(tmp_path: Path) -> None:
    """The upstream holds every answer until the client has read the response's first byte, so a
    heartbeat that waited for the summary would time the upstream out. It also notes whether the client
    had that byte when the request arrived: on a freshly started server the heartbeat goes out before
    the work starts, the provider's import (half a second) included. The second request checks only
    that its first byte did not wait for the answer: with the provider loaded, the margin is too small
    to call an order."""
    first_byte = threading.Event()
    upstream = Upstream(gate=first_byte)
    try:
        with serve(tmp_path, upstream) as url, httpx2.Client(base_url=url, timeout=30) as client:
            for sid, stream in (("s1", True), ("s2", False)):  # SSE, then JSON after whitespace
                start(client, sid, TURNS)
                first_byte.clear()
                body = {"sessionId": sid, "streamResponse": stream, "settings": {"keepRecentTokens": 4}}
                with client.stream("POST", "/api/session/compact", json=body) as answer:
                    chunks = answer.iter_raw()
                    head = next(chunks)
                    first_byte.set()
                    rest = b"".join(chunks)
                assert head.startswith(b": keep-alive\n\n" if stream else b" \n")
                assert (b"event: result" in rest) if stream else json.loads(rest)["success"] is True
            assert upstream.gate_was_open[0] is True and len(upstream.gate_was_open) == 2
            assert not upstream.timed_out
    finally:
        upstream.close()
