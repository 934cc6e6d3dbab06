"""What a pi client sends is honoured (issue 34): its model and stream options reach the provider, a
model policy refuses clearly, every stop reason pi has is accepted, half an emoji is kept and hashed
as JavaScript does, a provider error is a `failed` run, `revision` counts tree writes only, and `GET /`
answers JSON to a client that asks for JSON. Against a real `rein serve` and a scripted OpenAI-style
server that records what the provider sent."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx2
import pytest

from rein.ai.testing import openai_http_error
from rein.protocol import EMPTY_TREE_HASH, chain_hash, sha256_hex
from tests.server.helpers import running_server
from tests.tui.sse_thread import ServerThread
from tests.tui.sse_thread import text as text_reply

pytestmark = pytest.mark.slow

STATIC = {"systemPrompt": "Be brief.", "tools": []}
KEY = {"OPENAI_API_KEY": "sk-test"}


def user(entry_id: str, text: str, parent: str | None = None) -> dict[str, object]:
    message = {"role": "user", "content": text, "timestamp": 1}
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-11-29T00:00:00.000Z",
            "message": message}  # fmt: skip


@pytest.fixture
def upstream() -> Iterator[ServerThread]:
    with ServerThread() as server:
        yield server


def serve(tmp: Path, upstream: ServerThread, *extra: str) -> Iterator[httpx2.Client]:
    args = ("--provider", "openai", "--base-url", upstream.base_url, *extra)
    with running_server(tmp, args=args, env=KEY) as url, httpx2.Client(base_url=url, timeout=30) as client:
        yield client


def stream(client: httpx2.Client, body: Mapping[str, object]) -> list[dict[str, object]]:
    answer = client.post("/api/stream", json={"sessionId": "s1", **body})
    assert answer.status_code == 200, answer.text
    return [json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: ")]


def test_the_clients_model_and_options_reach_the_provider(tmp_path: Path, upstream: ServerThread) -> None:
    upstream.push(*(text_reply("ok") for _ in range(4)))
    for client in serve(tmp_path, upstream):
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        client.post(
            "/api/session/tree/append",
            json={"sessionId": "s1", "entries": [user("u1", "hi")], "leafId": "u1"},
        )
        model = {"id": "gpt-4.1-mini", "provider": "openai", "api": "openai-completions", "maxTokens": 4096,
                 "reasoning": True, "baseUrl": "http://127.0.0.1:9/v1"}  # fmt: skip
        options = {"maxTokens": 777, "temperature": 0.3, "reasoning": "xhigh", "apiKey": "sk-client"}
        assert stream(client, {"model": model, "options": options})[-1]["type"] == "done"
        stream(client, {"model": model})  # no maxTokens: the model's limit, as pi's streamSimple
        stream(client, {"model": {**model, "reasoning": False}, "options": {"reasoning": "high"}})
        stream(client, {})  # no model at all: the provider's default model, never its name
        sent = [request.body for request in upstream.requests]
        assert all(isinstance(body, dict) for body in sent)
        first, second, third, fourth = (body for body in sent if isinstance(body, dict))
        assert (first["model"], first["max_tokens"], first["temperature"]) == ("gpt-4.1-mini", 777, 0.3)
        assert first["reasoning_effort"] == "high"  # pi's "xhigh" is rein's highest
        assert second["max_tokens"] == 4096 and "temperature" not in second
        assert "reasoning_effort" not in third  # a model that cannot reason gets none, as pi clamps it
        assert fourth["model"] == "gpt-4.1"
        # the server's key, never the client's, and never the client's baseUrl
        assert all(r.headers["authorization"] == "Bearer sk-test" for r in upstream.requests)


def test_a_reply_is_labelled_and_costed_as_pi_ai_does_for_the_clients_model(
    tmp_path: Path, upstream: ServerThread
) -> None:
    upstream.push(text_reply("ok", usage=(1200, 340, 0)), text_reply("again"))
    rates = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}
    model = {"id": "m", "provider": "opencode-go", "api": "openai-completions", "cost": rates}
    for client in serve(tmp_path, upstream):
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        usage = stream(client, {"model": model, "runId": "r1"})[-1]["usage"]  # the client builds the message
        assert isinstance(usage, dict)
        fresh = usage["input"]
        assert isinstance(fresh, int) and fresh > 0  # the prompt less what the cache served
        cost = {
            "input": (3 / 1000000) * fresh,
            "output": (15 / 1000000) * 340,
            "cacheRead": 0.0,
            "cacheWrite": 0.0,
        }
        assert usage["cost"] == {**cost, "total": sum(cost.values())}
        message = client.get("/api/session/s1/runs/r1").json()["message"]  # journalled as the fork's
        assert (message["provider"], message["api"], message["model"]) == (
            "opencode-go",
            "openai-completions",
            "m",
        )
        assert message["usage"] == usage
        replayed = stream(client, {"runId": "r1"})[-1]
        assert replayed["message"] == message and replayed["usage"] == usage  # and replayed so


def test_a_compaction_costs_its_summary_requests_by_the_clients_model(
    tmp_path: Path, upstream: ServerThread
) -> None:
    upstream.push(text_reply("the summary", usage=(500, 40, 0)))
    model = {"id": "m", "provider": "openai", "api": "openai-completions", "cost": {"input": 2, "output": 8}}
    turns = [user("u1", "first " * 50), user("u2", "second " * 50, "u1"), user("u3", "third", "u2")]
    for client in serve(tmp_path, upstream):
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        client.post("/api/session/tree/append", json={"sessionId": "s1", "entries": turns, "leafId": "u3"})
        body = {"sessionId": "s1", "model": model, "settings": {"keepRecentTokens": 1}, "fullResponse": True}
        answer = client.post("/api/session/compact", json=body)
        assert answer.status_code == 200, answer.text
        compaction = answer.json()["compaction"]
        assert compaction["summary"] == "the summary"  # the model's text: rein's state is in details
        assert "state" in compaction["details"] and upstream.requests[-1].body["model"] == "m"  # type: ignore[index,call-overload]
        usage = compaction["usage"]
        assert usage["output"] == 40 and usage["cost"]["output"] == (8 / 1000000) * 40
        assert usage["cost"]["input"] == (2 / 1000000) * usage["input"] and usage["cost"]["total"] > 0


def test_a_model_policy_refuses_naming_the_allowed_ones(tmp_path: Path, upstream: ServerThread) -> None:
    upstream.push(text_reply("ok"))
    for client in serve(tmp_path, upstream, "--models", "gpt-4.1*, o3"):
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        refused = client.post("/api/stream", json={"sessionId": "s1", "model": {"id": "claude-x"}})
        assert refused.status_code == 400 and refused.json()["code"] == "INVALID_REQUEST"
        assert "'claude-x' is not served here; allowed: gpt-4.1*, o3" in refused.json()["error"]
        assert stream(client, {"model": {"id": "gpt-4.1-nano"}})[-1]["type"] == "done"
        assert upstream.requests[-1].body["model"] == "gpt-4.1-nano"  # type: ignore[index,call-overload]


def test_settings_give_the_model_policy(tmp_path: Path, upstream: ServerThread) -> None:
    (tmp_path / ".rein").mkdir(parents=True)
    (tmp_path / ".rein" / "settings.toml").write_text('[server]\nmodels = ["o3"]\n')
    for client in serve(tmp_path, upstream):
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        refused = client.post("/api/stream", json={"sessionId": "s1", "model": {"id": "gpt-4.1"}})
        assert refused.status_code == 400 and "allowed: o3" in refused.json()["error"]


def test_every_stop_reason_in_the_context_is_accepted(tmp_path: Path, upstream: ServerThread) -> None:
    upstream.push(text_reply("ok"))
    for client in serve(tmp_path, upstream):
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        overlay: list[dict[str, object]] = [{"role": "user", "content": "go", "timestamp": 1}]
        for stop in ("pending", "deferred", "a-later-one"):
            overlay += [
                {"role": "assistant", "content": [{"type": "text", "text": stop}], "stopReason": stop,
                 "api": "openai-completions", "provider": "openai", "model": "m", "timestamp": 2},
                {"role": "user", "content": "more", "timestamp": 3},
            ]  # fmt: skip
        assert stream(client, {"contextOverlay": overlay})[-1]["type"] == "done"
        sent = upstream.messages(-1)
        assert [m["content"] for m in sent if m["role"] == "assistant"] == [
            "pending",
            "deferred",
            "a-later-one",
        ]


NODE = shutil.which("node")


def node_tree_hash(entries_json: str) -> str:
    """The fork client's chain over entries (`hashPiServerSessionEntries`), computed by node."""
    assert NODE is not None
    script = (
        "const c=require('crypto');const h=t=>c.createHash('sha256').update(t).digest('hex');"
        "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{let t=h('pi-tree-v1');"
        "for(const e of JSON.parse(s))t=h(t+':'+h(JSON.stringify(e)));process.stdout.write(t)})"
    )
    done = subprocess.run(
        [NODE, "-e", script], input=entries_json, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_half_an_emoji_is_stored_hashed_and_answered_as_javascript_does(
    tmp_path: Path, upstream: ServerThread
) -> None:
    upstream.push(text_reply("ok"))
    headers = {"content-type": "application/json"}
    entry = '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-11-29T00:00:00.000Z",' \
        '"message":{"role":"user","content":"cut \\ud83d here","timestamp":1}}'  # fmt: skip
    for client in serve(tmp_path, upstream):
        init = '{"sessionId":"s1","staticContext":{"systemPrompt":"Be \\udc00 brief.","tools":[]}}'
        assert client.post("/api/session/init", content=init, headers=headers).status_code == 200
        append = client.post(
            "/api/session/tree/append",
            content=f'{{"sessionId":"s1","entries":[{entry}],"leafId":"u1"}}',
            headers=headers,
        )
        assert append.status_code == 200, append.text
        expected = chain_hash(EMPTY_TREE_HASH, entry)
        assert append.json()["treeHash"] == expected
        if NODE is not None:
            assert node_tree_hash(f"[{entry}]") == expected
        assert sha256_hex(entry) == sha256_hex(json.dumps(json.loads(entry), separators=(",", ":")))
        sync = client.post(
            "/api/session/tree/sync",
            content=f'{{"sessionId":"s1","entries":[{entry}],"leafId":"u1"}}',
            headers=headers,
        )
        assert sync.status_code == 200 and sync.json()["treeHash"] == expected
        history = client.get("/api/session/s1/history")
        assert history.status_code == 200 and '"content":"cut \\ud83d here"' in history.text
        assert history.json()["staticContext"]["systemPrompt"] == "Be \udc00 brief."
        assert stream(client, {"runId": "r1"})[-1]["type"] == "done"
        sent = upstream.messages(-1)  # the provider gets the text without the lone half, as pi-ai sends it
        assert sent[0]["content"] == "Be  brief." and sent[1]["content"] == "cut  here"


def test_a_provider_error_is_a_failed_run_with_its_message(tmp_path: Path, upstream: ServerThread) -> None:
    upstream.push(openai_http_error(400, "context too long"))
    for client in serve(tmp_path, upstream):
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        assert stream(client, {"runId": "r1"})[-1]["type"] == "error"
        run = client.get("/api/session/s1/runs/r1").json()
        assert run["status"] == "failed" and "context too long" in run["errorMessage"], run


def test_revision_counts_tree_writes_only(tmp_path: Path, upstream: ServerThread) -> None:
    for client in serve(tmp_path, upstream):
        post = client.post
        assert (
            post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC}).json()["revision"]
            == 0
        )
        changed = {"sessionId": "s1", "staticContext": {**STATIC, "systemPrompt": "Be kind."}}
        assert post("/api/session/update", json=changed).json()["revision"] == 0
        appended = post(
            "/api/session/tree/append",
            json={"sessionId": "s1", "entries": [user("u1", "hi")], "leafId": "u1"},
        )
        assert appended.json()["revision"] == 1
        assert post("/api/session/update", json={**changed, "staticContext": STATIC}).json()["revision"] == 1
        history = client.get("/api/session/s1/history").json()
        assert history["revision"] == 1 and history["staticContext"] == STATIC


def test_the_root_answers_json_to_a_json_client(tmp_path: Path) -> None:
    with running_server(tmp_path, token="secret") as url:
        asked = httpx2.get(url + "/", headers={"accept": "application/json"})
        assert asked.status_code == 401 and asked.json()["error"] == "Unauthorized"
        assert isinstance(asked.json()["version"], str)
        with_token = httpx2.get(
            url + "/", headers={"accept": "application/json", "authorization": "Bearer secret"}
        )
        assert with_token.status_code == 200 and with_token.json()["service"] == "rein"
        plain = httpx2.get(url + "/", headers={"accept": "*/*"})  # node's fetch, curl: not a browser
        assert plain.status_code == 401 and plain.json()["code"] == "UNAUTHORIZED"
        page = httpx2.get(url + "/", headers={"accept": "text/html,application/xhtml+xml,*/*"})
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
