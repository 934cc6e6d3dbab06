"""The session protocol against a real `rein serve` (a subprocess on 127.0.0.1), on both store
backends: summaries, idempotent tree appends, the three divergence codes, switches, history with and
without a delta, the legacy message routes, delete, the session list and the OpenAPI document."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from rein.protocol import EMPTY_TREE_HASH, static_context_hash, tree_hash
from rein.server._app import OPERATIONS
from tests.server.helpers import running_server

pytestmark = pytest.mark.slow
SUMMARY = {"sessionId", "staticContextHash", "treeHash", "messageCount", "entryCount", "leafId", "revision"}


def message(entry_id: str, parent: str | None, role: str = "user", text: str = "hi") -> dict[str, object]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1767225600000},
    }


THREE = [message("a", None), message("b", "a", "assistant", "hello"), message("c", "b", text="more")]


@pytest.fixture
def api(store_url: str, tmp_path: Path) -> Iterator[httpx2.Client]:
    with running_server(tmp_path, db=store_url) as url, httpx2.Client(base_url=url, timeout=30) as client:
        yield client


def post(api: httpx2.Client, path: str, body: dict[str, object], status: int = 200) -> dict[str, object]:
    answer = api.post(path, json=body)
    assert answer.status_code == status, answer.text
    result: dict[str, object] = answer.json()
    return result


def test_init_answers_the_summary(api: httpx2.Client) -> None:
    context = {
        "systemPrompt": "be brief",
        "tools": [{"name": "bash", "description": "run", "parameters": {}}],
    }
    body = post(api, "/api/session/init", {"sessionId": "s1", "staticContext": context})
    assert set(body) == SUMMARY
    assert body["staticContextHash"] == static_context_hash("be brief", context["tools"])  # type: ignore[arg-type]
    assert (body["treeHash"], body["entryCount"], body["leafId"], body["messageCount"]) == (
        EMPTY_TREE_HASH,
        0,
        None,
        0,
    )
    again = post(api, "/api/session/init", {"sessionId": "s1", "staticContext": context})
    assert again["revision"] == body["revision"], "the same static context again is no write"


def test_tree_append_hashes_like_the_client_and_is_idempotent(api: httpx2.Client) -> None:
    body = post(api, "/api/session/tree/append", {"sessionId": "s1", "entries": THREE, "leafId": "c"})
    assert body["treeHash"] == tree_hash(THREE)
    assert (body["entryCount"], body["leafId"], body["messageCount"]) == (3, "c", 3)
    again = post(api, "/api/session/tree/append", {"sessionId": "s1", "entries": THREE, "leafId": "c"})
    assert again == body, "an identical re-append changes nothing, not even the revision"
    more = post(
        api,
        "/api/session/tree/append",
        {"sessionId": "s1", "entries": [*THREE, message("d", "c")], "leafId": "d"},
    )
    assert more["treeHash"] == tree_hash([*THREE, message("d", "c")])
    assert more["revision"] == int(body["revision"]) + 1  # type: ignore[call-overload]


def test_divergences_are_refused_with_their_codes(api: httpx2.Client) -> None:
    post(api, "/api/session/tree/append", {"sessionId": "s1", "entries": THREE, "leafId": "c"})
    other = message("b", "a", "assistant", "something else")
    body = post(api, "/api/session/tree/append", {"sessionId": "s1", "entries": [other], "leafId": "b"}, 400)
    assert (body["code"], body["details"]) == ("ENTRY_ALREADY_EXISTS", {"entryId": "b"})
    body = post(
        api,
        "/api/session/tree/append",
        {"sessionId": "s1", "entries": [message("x", "zz")], "leafId": "x"},
        400,
    )
    assert (body["code"], body["details"]) == ("PARENT_ENTRY_NOT_FOUND", {"parentId": "zz"})
    body = post(api, "/api/session/tree/append", {"sessionId": "s1", "entries": [], "leafId": "nope"}, 400)
    assert body["code"] == "LEAF_ID_NOT_FOUND"
    body = post(api, "/api/session/tree/switch", {"sessionId": "s1", "leafId": "nope"}, 400)
    assert (body["code"], body["details"]) == ("LEAF_ID_NOT_FOUND", {"leafId": "nope"})
    state = api.get("/api/session/s1/history").json()
    assert (state["entryCount"], state["leafId"]) == (3, "c"), "a refused request wrote nothing"


def test_switch_keeps_the_tree_hash_and_bumps_the_revision(api: httpx2.Client) -> None:
    before = post(api, "/api/session/tree/append", {"sessionId": "s1", "entries": THREE, "leafId": "c"})
    after = post(api, "/api/session/tree/switch", {"sessionId": "s1", "leafId": "a"})
    assert after["treeHash"] == before["treeHash"]
    assert after["revision"] == int(before["revision"]) + 1  # type: ignore[call-overload]
    assert (after["leafId"], after["messageCount"]) == ("a", 1)


def test_history_full_and_as_a_tree_patch(api: httpx2.Client) -> None:
    post(api, "/api/session/init", {"sessionId": "s1", "staticContext": {"systemPrompt": "p"}})
    post(api, "/api/session/tree/append", {"sessionId": "s1", "entries": THREE, "leafId": "c"})
    full = api.get("/api/session/s1/history", params={"from": 1}).json()
    assert full["entries"] == THREE and "treePatch" not in full
    assert full["staticContext"] == {"systemPrompt": "p"}
    assert (full["baseMessageCount"], full["messageCount"]) == (1, 3)
    assert full["messages"] == [THREE[1]["message"], THREE[2]["message"]]
    base = tree_hash(THREE[:2])
    patch = api.get(
        "/api/session/s1/history", params={"entriesFrom": 2, "baseTreeHash": base, "revision": 1}
    ).json()
    assert "entries" not in patch
    assert patch["treePatch"] == {
        "entriesFrom": 2,
        "baseRevision": 1,
        "entries": [THREE[2]],
        "leafId": "c",
        "revision": full["revision"],
    }
    stale = api.get("/api/session/s1/history", params={"entriesFrom": 2, "baseTreeHash": "0" * 64}).json()
    assert "treePatch" not in stale and stale["entries"] == THREE, "a prefix that does not match gets it all"
    ahead = api.get("/api/session/s1/history", params={"entriesFrom": 9}).json()
    assert "treePatch" not in ahead
    missing = api.get("/api/session/nope/history")
    assert (missing.status_code, missing.json()["code"]) == (404, "SESSION_NOT_FOUND")
    bad = api.get("/api/session/s1/history", params={"from": "-1"})
    assert bad.status_code == 400 and "from" in bad.json()["error"]


def test_tree_sync_replaces_the_tree(api: httpx2.Client) -> None:
    post(api, "/api/session/tree/append", {"sessionId": "s1", "entries": THREE, "leafId": "c"})
    other = [message("x", None), message("y", "x")]
    body = post(api, "/api/session/tree/sync", {"sessionId": "s1", "entries": other, "leafId": "y"})
    assert (body["treeHash"], body["entryCount"], body["leafId"]) == (tree_hash(other), 2, "y")
    assert api.get("/api/session/s1/history").json()["entries"] == other


def test_legacy_sync_and_append_wrap_messages(api: httpx2.Client) -> None:
    user = {"role": "user", "content": "hi", "timestamp": 1767225600000}
    reply = {"role": "assistant", "content": [{"type": "text", "text": "yo"}], "timestamp": 1767225601000}
    body = post(api, "/api/session/sync", {"sessionId": "s1", "messages": [user, reply]})
    assert (body["entryCount"], body["messageCount"]) == (2, 2)
    body = post(api, "/api/session/append", {"sessionId": "s1", "messages": [user]})
    assert (body["entryCount"], body["messageCount"]) == (3, 3)
    state = api.get("/api/session/s1/history").json()
    entries = state["entries"]
    assert [e["parentId"] for e in entries] == [None, entries[0]["id"], entries[1]["id"]]
    assert entries[0]["timestamp"] == "2026-01-01T00:00:00.000Z" and entries[2]["message"] == user
    assert state["treeHash"] == tree_hash(entries) and state["leafId"] == entries[2]["id"]


def test_delete_and_the_session_list(api: httpx2.Client) -> None:
    post(api, "/api/session/init", {"sessionId": "s1"})
    post(api, "/api/session/tree/append", {"sessionId": "s2", "entries": THREE, "leafId": "c"})
    listed = api.get("/api/sessions").json()["sessions"]
    assert [s["sessionId"] for s in listed] == ["s2", "s1"]
    assert {"createdAt", "updatedAt"} <= set(listed[0]) and listed[0]["entryCount"] == 3
    assert api.delete("/api/session/s2").json() == {"deleted": "s2"}
    assert [s["sessionId"] for s in api.get("/api/sessions").json()["sessions"]] == ["s1"]
    assert api.get("/api/session/s2/history").status_code == 404


def test_openapi_lists_every_route(api: httpx2.Client) -> None:
    doc = api.get("/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    listed = {(method.upper(), path) for path, item in doc["paths"].items() for method in item}
    expected = {
        ("POST", f"/api/session/{name}") for name in ("init", "update", "sync", "append", "compact")
    } | {("POST", f"/api/session/tree/{name}") for name in ("sync", "append", "switch")}
    expected |= {
        ("POST", "/api/stream"),
        ("POST", "/api/request/chunk"),
        ("POST", "/api/receive"),
        ("GET", "/health"),
        ("GET", "/ready"),
        ("GET", "/metrics"),
        ("GET", "/openapi.json"),
    }
    expected |= {("GET", "/api/sessions"), ("GET", "/api/session/{session_id}/history")}
    expected |= {("GET", "/api/session/{session_id}/runs/{run_id}"), ("DELETE", "/api/session/{session_id}")}
    assert listed == expected == {(op.method, op.path) for op in OPERATIONS}
    append = doc["paths"]["/api/session/tree/append"]["post"]
    assert append["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Tree"
    }
    assert {"200", "400", "401", "413", "429"} <= set(append["responses"])
    assert "text/plain" in doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert doc["paths"]["/ready"]["get"]["security"] == [], "a balancer's probe carries no token"
    for item in doc["paths"].values():
        for operation in item.values():
            for schema in _refs(operation):
                assert schema.split("/")[-1] in doc["components"]["schemas"], schema


def _refs(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "$ref":
                yield str(item)
            else:
                yield from _refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)
