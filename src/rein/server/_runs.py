"""The run journal: every `/api/stream` request with a `runId` is a run, kept in the store (so it
survives a restart, unlike the fork's in-memory map): `running` when it starts, `completed` with the
final assistant message (pi JSON) or `failed` with the error. A client that lost its stream asks
`GET /api/session/{id}/runs/{runId}` until the run is no longer running.

Runs go on in background tasks, not in the request: a client that disconnects does not stop its run.
The tasks are held in `app.state.runs` (a set) and `cancel_runs(app)` ends them at shutdown.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Coroutine

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from rein.ai import AssistantMessage, JsonValue
from rein.server._errors import ProtocolError, error_response
from rein.server.store._base import RunRow, RunStatus, Store


def journal_body(run: RunRow) -> dict[str, JsonValue]:
    """The fork's run record: `{sessionId, runId, status, message?, errorMessage?, createdAt, updatedAt}`."""
    body: dict[str, JsonValue] = {"sessionId": run.session_id, "runId": run.run_id, "status": run.status}
    if run.message is not None:
        body["message"] = json.loads(run.message)
    if run.error_message is not None:
        body["errorMessage"] = run.error_message
    body["createdAt"] = run.created_ms
    body["updatedAt"] = run.updated_ms
    return body


class Journal:
    """One run's journal writes (none without a run id)."""

    def __init__(self, store: Store, owner: str, session_id: str, run_id: str | None) -> None:
        self.store, self.owner, self.session_id, self.run_id = store, owner, session_id, run_id
        self.created = _now_ms()

    async def put(self, status: RunStatus, message: str | None = None, error: str | None = None) -> None:
        if self.run_id is None:
            return
        await self.store.put_run(
            RunRow(
                owner=self.owner,
                session_id=self.session_id,
                run_id=self.run_id,
                status=status,
                message=message,
                error_message=error,
                created_ms=self.created,
                updated_ms=_now_ms(),
            )
        )

    async def finish(self, reply: AssistantMessage, pi: dict[str, JsonValue]) -> None:
        """Journal the final reply: completed (as the fork does for done and error replies alike, so
        a recovering client sees the error message too)."""
        await self.put("completed", message=json.dumps(pi), error=reply.error_message)


def spawn(app: Starlette, work: Coroutine[object, object, None]) -> asyncio.Task[None]:
    """Run `work` in the background, held by the app until it ends."""
    runs: set[asyncio.Task[None]] | None = getattr(app.state, "runs", None)
    if runs is None:
        runs = app.state.runs = set()
    task = asyncio.ensure_future(work)
    runs.add(task)
    task.add_done_callback(runs.discard)
    return task


async def cancel_runs(app: Starlette) -> None:
    """End every background run (the app's shutdown): their journals stay `running` and expire."""
    runs: set[asyncio.Task[None]] = getattr(app.state, "runs", set())
    for task in list(runs):
        task.cancel()
    await asyncio.gather(*runs, return_exceptions=True)


async def run_endpoint(request: Request, owner: str, session_id: str, run_id: str) -> Response:
    """`GET /api/session/{id}/runs/{runId}`: the run's journal record, or 404 RUN_NOT_FOUND."""
    store: Store = request.app.state.store
    run = await store.run(owner, session_id, run_id)
    if run is None:
        return error_response(ProtocolError(404, "RUN_NOT_FOUND", f"run {run_id!r} not found"))
    return JSONResponse(journal_body(run))


def _now_ms() -> int:
    return int(time.time() * 1000)
