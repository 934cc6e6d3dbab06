"""What a load balancer and a scraper see of one process, in process (the app on a real SQLite store,
requests through ASGI): `/ready` ready, draining, with a store that fails or hangs; `/metrics` behind the
token and its request counts labelled by route template."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from starlette.applications import Starlette

from rein.server._app import create_app
from rein.server._config import ServerConfig
from rein.server._observe import Readiness
from rein.server.store import SqliteStore, StoreError

TOKEN = "t0ken"
Body = Callable[[Starlette, httpx2.AsyncClient], Awaitable[None]]


def serve(tmp: Path, body: Body, *, token: str | None = None) -> None:
    """Run `body(app, client)` against the app on a SQLite store in `tmp`, its lifespan entered."""

    async def main() -> None:
        store = await SqliteStore.open(tmp / "sessions.db")
        app = create_app(ServerConfig(home=tmp, token=token), store)
        try:
            async with app.router.lifespan_context(app), client_of(app) as client:
                await body(app, client)
        finally:
            await store.close()

    asyncio.run(main())


@asynccontextmanager
async def client_of(app: Starlette) -> AsyncIterator[httpx2.AsyncClient]:
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:4217") as client:
        yield client


def samples(text: str, name: str) -> dict[str, float]:
    """`{labels: value}` of one metric in Prometheus's text format."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith(name + "{"):
            labels, value = line[len(name) :].rsplit(" ", 1)
            found[labels] = float(value)
    return found


def test_ready_answers_ready_then_draining(tmp_path: Path) -> None:
    async def body(app: Starlette, client: httpx2.AsyncClient) -> None:
        ready = await client.get("/ready")
        assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
        app.state.draining = True  # what `rein serve` does on SIGTERM
        draining = await client.get("/ready")
        assert (draining.status_code, draining.json()) == (503, {"status": "draining"})
        assert (await client.get("/health")).status_code == 200, "alive while draining"

    serve(tmp_path, body, token=TOKEN)  # no token needed for either, even when auth is required


def test_ready_is_503_when_the_store_fails_and_the_answer_hides_the_database(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    async def refused() -> None:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except ConnectionRefusedError as error:
            raise StoreError("postgresql://rein@db.internal:5432/rein: connection refused") from error

    async def body(app: Starlette, client: httpx2.AsyncClient) -> None:
        healthy = app.state.store.ping
        app.state.store.ping = refused
        for _ in range(3):
            answer = await client.get("/ready")
            assert answer.status_code == 503
            assert answer.json() == {"status": "store unavailable: ConnectionRefusedError"}
        app.state.store.ping = healthy
        assert (await client.get("/ready")).json() == {"status": "ready"}

    serve(tmp_path, body)
    lines = capfd.readouterr().err.splitlines()
    assert lines == [
        "rein serve: not ready: the store does not answer: "
        "postgresql://rein@db.internal:5432/rein: connection refused",
        "rein serve: ready again",
    ], "one line per change of state, not one per probe"


def test_a_store_that_hangs_is_not_ready_within_the_timeout_and_probes_share_one_ping(
    tmp_path: Path,
) -> None:
    pings: list[int] = []

    async def hangs() -> None:
        pings.append(1)
        await asyncio.sleep(3600)

    async def body(app: Starlette, client: httpx2.AsyncClient) -> None:
        app.state.store.ping = hangs
        app.state.readiness = Readiness(timeout=0.2)
        loop = asyncio.get_running_loop()
        started = loop.time()
        answers = await asyncio.gather(*(client.get("/ready") for _ in range(20)))
        assert loop.time() - started < 2.0
        assert {(a.status_code, a.json()["status"]) for a in answers} == {
            (503, "store unavailable: no answer in 0.2 s")
        }
        assert len(pings) == 1, "twenty probes at once take the store once"

    serve(tmp_path, body)


def test_metrics_need_the_token_when_the_server_has_one(tmp_path: Path) -> None:
    async def body(app: Starlette, client: httpx2.AsyncClient) -> None:
        refused = await client.get("/metrics")
        assert refused.status_code == 401 and refused.json()["code"] == "UNAUTHORIZED"
        answer = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/plain; version=")
        counted = samples(answer.text, "rein_http_requests_total")
        assert counted == {'{method="GET",route="/metrics",status="401"}': 1.0}

    serve(tmp_path, body, token=TOKEN)


def test_requests_are_counted_by_route_template_never_by_raw_path(tmp_path: Path) -> None:
    async def body(app: Starlette, client: httpx2.AsyncClient) -> None:
        init = {"sessionId": "s1", "staticContext": {"systemPrompt": "x", "tools": []}}
        assert (await client.post("/api/session/init", json=init)).status_code == 200
        for n in range(5):  # five session ids, one label value
            await client.get(f"/api/session/s{n}/history")
        for n in range(5):  # five unknown paths, one label value
            await client.get(f"/no/such/path/{n}")
        await client.get("/api/session/s1/history", headers={"Host": "evil.example"})  # refused first
        await client.request("BREW", "/health")
        await client.put("/health")
        text = (await client.get("/metrics")).text
        counted = samples(text, "rein_http_requests_total")
        history = "/api/session/{session_id}/history"
        assert counted == {
            '{method="POST",route="/api/session/init",status="200"}': 1.0,
            f'{{method="GET",route="{history}",status="200"}}': 1.0,
            f'{{method="GET",route="{history}",status="404"}}': 4.0,
            '{method="GET",route="other",status="404"}': 5.0,
            f'{{method="GET",route="{history}",status="403"}}': 1.0,
            '{method="OTHER",route="/health",status="405"}': 1.0,
            '{method="PUT",route="/health",status="405"}': 1.0,
        }
        timed = samples(text, "rein_http_request_seconds_count")
        assert timed[f'{{route="{history}"}}'] == 6.0 and timed['{route="other"}'] == 5.0

    serve(tmp_path, body)
