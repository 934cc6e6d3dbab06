"""A session's directory (`cwd`): kept by the service as metadata (no revision, no reload), recorded
from `/api/session/init` and from each `/api/stream`, and refused when it is not a string."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2
import pytest

from rein.server import SessionService
from rein.server.store import SessionRow, Store, open_store
from tests.server.conftest import StoreCase
from tests.server.helpers import running_server

FAUX = ("--provider", "faux", "--model", "faux-1")
STATIC = {"systemPrompt": "Be brief.", "tools": []}


def user_entry(entry_id: str, text: str, parent: str | None = None) -> dict[str, object]:
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1},
    }  # fmt: skip


def test_the_service_keeps_cwd_as_metadata(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        a, b = SessionService(s, "server-a"), SessionService(s, "server-b")
        await a.init("", "s1", dict(STATIC))
        view = await a.append("", "s1", [user_entry("u1", "hi")], "u1")
        seen_by_b = await b.get("", "s1")
        assert seen_by_b is not None and seen_by_b.row.cwd is None
        await a.set_cwd("", "s1", "/work/project")
        got = await a.get("", "s1")
        assert got is not None and got.row.cwd == "/work/project"
        assert (got.row.revision, got.row.tree_hash) == (view.row.revision, view.row.tree_hash)
        assert got.entries is view.entries, "the entries were not reloaded"
        other = await b.get("", "s1")  # another server, same revision: it still sees the new directory
        assert other is not None and other.row.cwd == "/work/project"
        assert [v.row.cwd for v in await a.sessions("")] == ["/work/project"]
        await a.set_cwd("", "s1", "/work/project")  # unchanged: no write
        assert (await s.session("", "s1")) == got.row
        later = await a.append("", "s1", [user_entry("u2", "more", "u1")], "u2")
        assert later.row.cwd == "/work/project" and later.row.revision == view.row.revision + 1
        await a.set_cwd("", "missing", "/x")
        assert await a.get("", "missing") is None, "a missing session is not created"

    store.run(body)


def stored(db: Path, session_id: str) -> SessionRow | None:
    async def read() -> SessionRow | None:
        store = await open_store(str(db))
        try:
            return await store.session("", session_id)
        finally:
            await store.close()

    return asyncio.run(read())


@pytest.mark.slow
def test_init_records_cwd_and_refuses_a_non_string(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    with running_server(tmp_path) as url, httpx2.Client(base_url=url, timeout=30) as client:
        plain = client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC}).json()
        row = stored(db, "s1")
        assert row is not None and row.cwd is None
        body = {"sessionId": "s1", "staticContext": STATIC, "cwd": "/work/a"}
        again = client.post("/api/session/init", json=body)
        assert again.status_code == 200 and again.json() == plain, "metadata: the summary is unchanged"
        row = stored(db, "s1")
        assert row is not None and row.cwd == "/work/a"
        fresh = client.post("/api/session/init", json={"sessionId": "s2", "cwd": "/work/b"})
        assert fresh.status_code == 200
        row = stored(db, "s2")
        assert row is not None and row.cwd == "/work/b"
        for bad in (5, ["/x"], {"path": "/x"}, True):
            refused = client.post("/api/session/init", json={"sessionId": "s3", "cwd": bad})
            assert refused.status_code == 400 and refused.json()["code"] == "INVALID_REQUEST"
            assert "cwd" in refused.json()["error"]
        assert stored(db, "s3") is None, "a refused init creates nothing"


@pytest.mark.slow
def test_a_stream_records_the_clients_cwd(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    with running_server(tmp_path, args=FAUX) as url, httpx2.Client(base_url=url, timeout=30) as client:
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC, "cwd": "/old"})
        state = client.post(
            "/api/session/tree/append",
            json={"sessionId": "s1", "entries": [user_entry("u1", "hi")], "leafId": "u1"},
        ).json()
        answer = client.post("/api/stream", json={"sessionId": "s1", "cwd": "/work/moved"})
        assert answer.status_code == 200 and '"type": "done"' in answer.text
        row = stored(db, "s1")
        assert row is not None and row.cwd == "/work/moved"
        assert (row.revision, row.tree_hash) == (state["revision"], state["treeHash"])
        bad = client.post("/api/stream", json={"sessionId": "s1", "cwd": 7})
        assert bad.status_code == 400 and "cwd" in bad.json()["error"]
        row = stored(db, "s1")
        assert row is not None and row.cwd == "/work/moved"
