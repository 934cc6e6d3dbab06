"""The run journal: every `/api/stream` request with a `runId` is a run, kept in the store (so it
survives a restart, unlike the fork's in-memory map): `running` when it starts, `completed` with the
final assistant message (pi JSON), `failed` with the error, or `interrupted` with the reply so far
when the process running it died or stopped (`_leases`). A client that lost its stream asks
`GET /api/session/{id}/runs/{runId}` until the run is no longer running.

Runs go on in background tasks, not in the request: a client that disconnects does not stop its run.
The tasks are held in `app.state.runs` (a set) and `cancel_runs(app)` ends them at shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Coroutine

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from rein.ai import AssistantMessage, JsonValue
from rein.server._errors import ProtocolError, error_response
from rein.server._json_response import JsonResponse
from rein.server._leases import RunLeases
from rein.server._metrics import Metrics
from rein.server._models import Label, labelled
from rein.server._wire import pi_message
from rein.server.store import RunRow, Store, StoreError


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


INTERRUPTED = "the server running this run stopped before it ended; send the request again to continue"


class Journal:
    """One run's journal (nothing without a run id): claimed under a lease, its reply so far kept
    with each renewal, its end recorded if this attempt still holds it."""

    def __init__(
        self, leases: RunLeases, owner: str, session_id: str, run_id: str | None, label: Label | None = None
    ) -> None:
        self.leases, self.owner, self.session_id, self.run_id = leases, owner, session_id, run_id
        self.label = label
        """The client's model: the replies' provider, api and cost (`_models.labelled`)."""
        self.run: RunRow | None = None
        self.partial: AssistantMessage | None = None
        """The reply so far (set by the run as it streams)."""

    async def start(self) -> bool:
        """Claim the run; False when a run with this id is live (here or on another process)."""
        if self.run_id is None:
            return True
        self.run = await self.leases.claim(self.owner, self.session_id, self.run_id, self._partial)
        return self.run is not None

    def progress(self, partial: AssistantMessage) -> None:
        self.partial = partial

    def _partial(self) -> str | None:
        if self.partial is None:
            return None
        cut = dataclasses.replace(self.partial, stop_reason="error", error_message=INTERRUPTED)
        return json.dumps(labelled(pi_message(cut), self.label))

    async def fail(self, error: str) -> None:
        if self.run is not None:
            await self.leases.finish(self.run, "failed", error=error)

    async def finish(self, reply: AssistantMessage, pi: dict[str, JsonValue]) -> None:
        """Journal the final reply: completed, or failed with its `errorMessage` when the provider
        ended in an error or abort (as the fork does: a recovering client turns it into a retryable
        diagnostic). The failed reply's message is kept too, for rein's page."""
        if self.run is None:
            return
        pi = labelled(pi, self.label)
        if reply.stop_reason in ("error", "aborted"):
            error = reply.error_message or reply.stop_reason
            await self.leases.finish(self.run, "failed", message=json.dumps(pi), error=error)
        else:
            await self.leases.finish(self.run, "completed", message=json.dumps(pi))


def spawn(app: Starlette, work: Coroutine[object, object, None]) -> asyncio.Task[None]:
    """Run `work` in the background, held by the app until it ends."""
    found: set[asyncio.Task[None]] | None = getattr(app.state, "runs", None)
    runs: set[asyncio.Task[None]] = found if found is not None else set()
    app.state.runs = runs
    metrics: Metrics = app.state.metrics
    task = asyncio.ensure_future(work)
    runs.add(task)
    metrics.runs_active.set(len(runs))

    def done(ended: asyncio.Task[None]) -> None:
        runs.discard(ended)
        metrics.runs_active.set(len(runs))

    task.add_done_callback(done)
    return task


async def cancel_runs(app: Starlette) -> list[RunRow]:
    """End every background run (the app's shutdown), after handing their journals over: each
    becomes `interrupted` at once, with its reply so far. Returns the runs handed over."""
    leases: RunLeases | None = getattr(app.state, "leases", None)
    handed: list[RunRow] = []
    if leases is not None:
        with contextlib.suppress(StoreError):  # else their leases lapse and a sweep interrupts them
            handed = await leases.hand_over(INTERRUPTED)
    runs: set[asyncio.Task[None]] = getattr(app.state, "runs", set())
    for task in list(runs):
        task.cancel()
    await asyncio.gather(*runs, return_exceptions=True)
    return handed


async def run_endpoint(request: Request, owner: str, session_id: str, run_id: str) -> Response:
    """`GET /api/session/{id}/runs/{runId}`: the run's journal record, or 404 RUN_NOT_FOUND."""
    store: Store = request.app.state.store
    run = await store.run(owner, session_id, run_id)
    if run is None:
        return error_response(ProtocolError(404, "RUN_NOT_FOUND", f"run {run_id!r} not found"))
    return JsonResponse(journal_body(run))
