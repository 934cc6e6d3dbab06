"""A pi-client pointed at `rein serve` works: the request shapes of the fork's client, replayed from the
corpus in `tests/server/compat/` (see its docstring) against a real server on each backend, get the
answers that client reads; and the tree and static context hashes the server reports are the ones
node computes from the client's own `JSON.stringify` bytes."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import httpx2
import pytest

from rein.protocol import js_json
from tests.server.compat import Replayer, Scenario, load_scenarios
from tests.server.compat._replay import match
from tests.server.conftest import BACKENDS
from tests.server.helpers import running_server
from tests.server.pg import new_database

SHARED, SCENARIOS = load_scenarios()
NODE = shutil.which("node")
FAUX = ("--provider", "faux")


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server per backend for the module; scenarios use their own session ids."""
    tmp = tmp_path_factory.mktemp("compat")
    db = None if request.param == "sqlite" else new_database(request.getfixturevalue("pg_url"))
    with running_server(tmp, db=db, args=FAUX) as url:
        yield url


@pytest.fixture
def client(server: str) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=server, timeout=30) as http:
        yield http


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_replay(scenario: Scenario, client: httpx2.Client) -> None:
    Replayer(client, SHARED).run(scenario)


def test_corpus_covers_every_route_the_client_calls() -> None:
    """The client's routes (pi-server-client.ts): a route it calls that no scenario replays would be
    compatibility nobody checks."""
    paths = {
        str(step["path"]) if isinstance(step["path"], str) else "" for s in SCENARIOS for step in s.steps
    }
    formatted = {
        str(step["path"]["$format"]) for s in SCENARIOS for step in s.steps if isinstance(step["path"], dict)
    }
    routes = paths | formatted
    wanted = [
        "/api/session/init", "/api/session/update", "/api/session/tree/sync", "/api/session/tree/append",
        "/api/session/tree/switch", "/api/session/compact", "/api/stream", "/api/request/chunk", "/history",
        "/runs/",
    ]  # fmt: skip
    assert [route for route in wanted if not any(route in path for path in routes)] == []
    chunked = {str(step["path"]) for s in SCENARIOS for step in s.steps if "chunked" in step}
    assert {"/api/session/tree/sync", "/api/session/tree/append", "/api/stream"} <= chunked


def test_replay_checks_fail_on_a_wrong_answer() -> None:
    """The matcher is strict where the client is: a wrong hash, a missing field, a bool for an int."""
    replayer = Replayer(httpx2.Client(), SHARED)
    expected = replayer.resolve({"treeHash": {"$treeHash": ["u1"]}, "entryCount": 1, "leafId": None})
    right = {"treeHash": replayer.resolve({"$treeHash": ["u1"]}), "entryCount": 1, "leafId": None, "x": 0}
    match(expected, right, "right")
    for wrong in (
        {**right, "treeHash": replayer.resolve({"$treeHash": ["u1", "a1"]})},
        {key: value for key, value in right.items() if key != "leafId"},
        {**right, "entryCount": True},
    ):
        with pytest.raises(AssertionError):
            match(expected, wrong, "wrong")


# byte compatibility with node's JSON.stringify

_NODE_CLIENT = r"""
const { createHash } = require("node:crypto");
const sha = (text) => createHash("sha256").update(text).digest("hex");
let input = "";
process.stdin.on("data", (d) => (input += d)).on("end", () => {
  const { sessionId, entries, staticContext, syncCount } = JSON.parse(input);
  const hashes = [sha("pi-tree-v1")];
  for (const entry of entries) hashes.push(sha(`${hashes[hashes.length - 1]}:${sha(JSON.stringify(entry))}`));
  const synced = entries.slice(0, syncCount);
  const leafId = synced[synced.length - 1].id;
  const sync = JSON.stringify({ sessionId, entries: synced, leafId, staticContext });
  const appends = entries
    .slice(syncCount)
    .map((entry) => JSON.stringify({ sessionId, entries: [entry], leafId: entry.id }));
  const canonical = {
    systemPrompt: staticContext.systemPrompt,
    tools: staticContext.tools?.map((t) => ({
      name: t.name, description: t.description, parameters: t.parameters,
    })),
  };
  const staticContextHash = sha(JSON.stringify(canonical));
  const out = { sync, appends, hashes, staticContextHash, entries: JSON.stringify(entries) };
  process.stdout.write(JSON.stringify(out));
});
"""


@dataclass(frozen=True, slots=True)
class NodeClient:
    """What the fork's client sends and computes, by node itself: the tree/sync body of the first
    entries and one tree/append body per further entry (JSON.stringify bytes), the tree hash of every
    prefix and the static context hash (pi-server-protocol.ts)."""

    sync: str
    appends: list[str]
    hashes: list[str]
    static_context_hash: str
    entries: str


def node_client(session_id: str, entries: Sequence[object], context: object, sync_count: int) -> NodeClient:
    assert NODE is not None
    payload = {"sessionId": session_id, "entries": entries, "staticContext": context, "syncCount": sync_count}
    done = subprocess.run(
        [NODE, "-e", _NODE_CLIENT], input=json.dumps(payload), capture_output=True, text=True, check=True
    )
    out = json.loads(done.stdout)
    return NodeClient(
        sync=out["sync"], appends=out["appends"], hashes=out["hashes"],
        static_context_hash=out["staticContextHash"], entries=out["entries"],
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_server_hashes_are_the_fork_clients_hashes(client: httpx2.Client) -> None:
    """Every entry type of the corpus (non-ASCII, escapes, U+2028, exponent floats, key order) sent as
    node's exact bytes: the static context hash, the tree hash after the full sync and after each
    append (the rolling hash) are node's, and history gives the entries back as node wrote them."""
    entries = _object(SHARED["entries"])
    names = ("u1", "a1", "t1", "a2", "u2", "a3", "b1", "mc1", "tl1", "c1", "cm1", "lb1")
    chain = [entries[name] for name in names]
    context = _object(SHARED["vars"])["staticContext"]
    node = node_client("compat-node", chain, context, sync_count=3)
    init = _post(client, "/api/session/init", js_json({"sessionId": "compat-node", "staticContext": context}))
    assert init["staticContextHash"] == node.static_context_hash
    synced = _post(client, "/api/session/tree/sync", node.sync)
    assert (synced["treeHash"], synced["staticContextHash"]) == (node.hashes[3], node.static_context_hash)
    for count, body in enumerate(node.appends, start=4):
        assert _post(client, "/api/session/tree/append", body)["treeHash"] == node.hashes[count]
    history = client.get("/api/session/compat-node/history").json()
    assert history["treeHash"] == node.hashes[-1]
    assert js_json(history["entries"]) == node.entries


def _post(client: httpx2.Client, path: str, text: str) -> dict[str, object]:
    answer = client.post(path, content=text.encode(), headers={"Content-Type": "application/json"})
    assert answer.status_code == 200, answer.text
    return _object(answer.json())


def _object(value: object) -> dict[str, object]:
    assert isinstance(value, dict)
    return value
