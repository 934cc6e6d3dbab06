"""`POST /api/session/compact`: server-side compaction, authoritative (the fork's endpoint, rein's
summarizer).

What the request asks for is what happens:
- `model` and `options`: the summary requests go to the client's model with its options
  (`rein.server._models`: the server's `--model` when the client names none, `--models` enforced).
- `settings` (pi's `CompactionSettings`): `keepRecentTokens` picks the cut, `reserveTokens` sizes the
  summary (never more than the model's `maxTokens`); a key the request leaves out takes rein's
  `[compaction]` setting. `preparation.firstKeptEntryId` forces the cut.
- The cut, the retained tail, `tokensBefore` and the file lists are pi's (`_compact_plan`); the summary
  is rein's chunked summarizer over what is cut, with the previous summary carried. The state rein
  extracts and the user's own words are in `details` (and in the summary text too for rein's client,
  which sends `reinSummary`).

The answer is the fork's: `success`, `compaction {summary, firstKeptEntryId, tokensBefore, usage,
retainedTail, details}` (`details` has pi's `readFiles` and `modifiedFiles` beside rein's own state),
`compactionEntry`, the state summary, and `treePatch` when the body's `baseTreeHash` is the tree the
compaction started from (unless `fullResponse`), else the whole `entries` and `messages`. Refusals
(a bad field, an unknown session, nothing to compact, a forced entry not on the branch) are answered
before any response starts; then the first heartbeat goes out before any slow work (the provider's
first import takes a fresh server half a second), and the body follows as SSE (`streamResponse`:
`event: result` or `event: error`) or as JSON after whitespace heartbeats, as the fork does, so proxies
keep a long summary request open. A compaction whose client left still completes and is stored.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from rein.ai import (
    AssistantEvent,
    AssistantStream,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    Provider,
    StreamOptions,
    Usage,
    get_provider,
)
from rein.server._compact_plan import CompactionPlan, PlanRefused, plan_compaction
from rein.server._config import ServerConfig
from rein.server._errors import ProtocolError, error_response
from rein.server._models import Label, client_label, labelled, resolve_model, stream_options
from rein.server._shapes import Compact, CompactSettings, Preparation
from rein.server._validate import check_value, validated
from rein.server._view import SessionView
from rein.server._wire import pi_usage, wire_entries
from rein.session import CompactionEntry, Session
from rein.session.compaction import (
    Budget,
    CompactionSettings,
    NothingToCompact,
    Summarize,
    compact_session,
    model_window,
    provider_summarize,
)
from rein.settings import load_settings

HEARTBEAT_SECONDS = 15.0
DEFAULT_WINDOW = 128_000
Answer = dict[str, object]
_RUNNING: set[asyncio.Task[Answer]] = set()
"""Compactions under way: a task nobody else holds could be collected before it ends."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _Job:
    owner: str
    view: SessionView
    plan: CompactionPlan
    model: Model
    options: StreamOptions
    settings: CompactionSettings
    instructions: str | None
    base_tree_hash: object
    full_response: bool
    rein_summary: bool
    label: Label | None
    """The client's model: the summary requests' cost (`_models.labelled`)."""
    """`reinSummary` (rein's client): the summary with rein's operational state and the user's words
    in its text; a pi client gets the model's summary, as the fork's, and that state in `details`."""


async def compact_endpoint(request: Request, owner: str, body: dict[str, object]) -> Response:
    config: ServerConfig = request.app.state.config
    try:
        sent = validated(Compact, body)
        model = resolve_model(sent.model, config)
        options = stream_options(sent.options, sent.model, config)
        forced = _forced(sent.preparation)
        settings = _settings(sent.settings, config)
    except ProtocolError as error:
        return error_response(error)
    session_id, instructions = sent.session_id, sent.custom_instructions
    view: SessionView | None = await request.app.state.service.get(owner, session_id)
    if view is None:
        return error_response(ProtocolError(404, "SESSION_NOT_FOUND", f"session {session_id!r} not found"))
    try:
        plan = plan_compaction(view.branch(), settings.keep_recent_tokens, forced)
    except PlanRefused as refused:
        return error_response(ProtocolError(400, "INVALID_REQUEST", str(refused)))
    job = _Job(
        owner=owner,
        view=view,
        plan=plan,
        model=model,
        options=options,
        settings=settings,
        instructions=instructions or None,
        base_tree_hash=sent.base_tree_hash,
        full_response=sent.full_response is True,
        rein_summary=sent.rein_summary is True,
        label=client_label(sent.model),
    )

    def start() -> Coroutine[object, object, Answer]:
        return _compact(request.app.state, job)

    if sent.stream_response is True:
        return StreamingResponse(
            _sse(start), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
        )
    return StreamingResponse(
        _json(start), media_type="application/json", headers={"Cache-Control": "no-cache"}
    )


def _forced(preparation: object) -> str | None:
    """`preparation.firstKeptEntryId` (pi's `CompactionPreparationOptions`); empty means none."""
    check_value(Preparation | None, preparation, "preparation")
    first = preparation.get("firstKeptEntryId") if isinstance(preparation, dict) else None
    return first if isinstance(first, str) and first else None


def _settings(sent: object, config: ServerConfig) -> CompactionSettings:
    """rein's `[compaction]` settings with the request's pi settings over them (`enabled` only
    decides pi's automatic compactions, so a request's is not read)."""
    check_value(CompactSettings | None, sent, "settings")
    values: Mapping[str, object] = sent if isinstance(sent, dict) else {}
    reserve, keep = _tokens(values, "reserveTokens"), _tokens(values, "keepRecentTokens")
    if reserve is not None and keep is not None:
        return CompactionSettings(reserve_tokens=reserve, keep_recent_tokens=keep)
    group = load_settings(Path(config.cwd), Path(config.home), warn=lambda _m: None).get("compaction", {})
    base = CompactionSettings.from_mapping(group)
    return dataclasses.replace(
        base,
        reserve_tokens=base.reserve_tokens if reserve is None else reserve,
        keep_recent_tokens=base.keep_recent_tokens if keep is None else keep,
    )


def _tokens(values: Mapping[str, object], key: str) -> int | None:
    """A count the shape checked (`_shapes.CompactSettings`): an integer, or a float that is one."""
    value = values.get(key)
    return int(value) if isinstance(value, int | float) else None


async def _compact(state: State, job: _Job) -> Answer:
    config: ServerConfig = state.config
    service = state.service
    plan, branch, sid = job.plan, job.view.branch(), job.view.row.session_id
    metered = _Metered(get_provider(config.provider))
    summary, details = await _summary(
        job, branch, provider_summarize(metered, job.model, job.options), config.cwd
    )
    model_summary = details.get("model_summary")
    if not job.rein_summary and isinstance(model_summary, str):
        summary = model_summary
    details = {
        "readFiles": list(plan.read_files),
        "modifiedFiles": list(plan.modified_files),
        **{key: value for key, value in details.items() if key not in ("readFiles", "modifiedFiles")},
    }
    entry: dict[str, object] = {
        "type": "compaction",
        "id": str(uuid.uuid4()),
        "parentId": None,  # the leaf when it is appended
        "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "summary": summary,
        "firstKeptEntryId": plan.first_kept_id,
        "tokensBefore": plan.tokens_before,
        "details": details,
    }
    base_hash, base_count = job.view.row.tree_hash, job.view.row.entry_count
    await service.append_entry(job.owner, sid, entry)
    after: SessionView = await service.get(job.owner, sid)
    answer: Answer = {
        "success": True,
        "compaction": {
            "summary": summary,
            "firstKeptEntryId": plan.first_kept_id,
            "tokensBefore": plan.tokens_before,
            "usage": labelled({"usage": pi_usage(metered.usage)}, job.label)["usage"],  # its cost
            "retainedTail": list(plan.retained_tail),
            "details": details,
        },
        "compactionEntry": entry,
        **after.summary(),
        "staticContext": after.static_context,
    }
    if not job.full_response and job.base_tree_hash == base_hash:
        answer["treePatch"] = {
            "baseTreeHash": base_hash,
            "entriesFrom": base_count,
            "entries": list(after.entries[base_count:]),
            "leafId": after.row.leaf_id,
            "revision": after.row.revision,
        }
    else:
        answer["entries"] = list(after.entries)
        answer["messages"] = after.messages()
    return answer


async def _summary(
    job: _Job, branch: Sequence[Mapping[str, object]], summarize: Summarize, cwd: str
) -> tuple[str, dict[str, object]]:
    """The summary text and rein's details: a rein compaction of the branch up to the first kept
    entry that keeps none of it. With nothing new to summarize the previous summary stands as it was
    (pi asks the model to restate it) and no request is made."""
    plan = job.plan
    if plan.summarizes_anything(branch):
        session = _session(plan.summarized_branch(branch), cwd)
        window = job.model.context_window or model_window(job.model) or DEFAULT_WINDOW
        budget = Budget.of(window, job.settings)
        if job.model.max_output_tokens:
            budget = dataclasses.replace(budget, summary=min(budget.summary, job.model.max_output_tokens))
        try:
            await compact_session(
                session, summarize, budget, reason="manual", instructions=job.instructions, keep_recent=0
            )
        except NothingToCompact:
            pass
        else:
            written = session.tree.active_path()[-1]
            assert isinstance(written, CompactionEntry)
            return written.summary, _mapping(written.details)
    previous = branch[plan.previous] if plan.previous >= 0 else {}
    return str(previous.get("summary") or ""), _mapping(previous.get("details"))


def _mapping(value: object) -> dict[str, object]:
    return {str(key): item for key, item in value.items()} if isinstance(value, Mapping) else {}


def _session(branch: Sequence[Mapping[str, object]], cwd: str) -> Session:
    """The branch as an in-memory rein session, so the summarizer reads it as a local compaction
    does. Entries that do not decode or do not join the tree are left out."""
    session = Session.in_memory(cwd)
    for entry in wire_entries(branch):
        try:
            session.append(entry)
        except ValueError:
            continue
    return session


class _Metered:
    """A provider whose replies' usage is added up, for the answer's `usage` (all summary requests)."""

    def __init__(self, provider: Provider) -> None:
        self._provider = provider
        self.usage = Usage()

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        return AssistantStream(self._events(self._provider.stream(model, context, options)))

    async def _events(self, stream: AssistantStream) -> AsyncGenerator[AssistantEvent, None]:
        async with stream:
            async for event in stream:
                if isinstance(event, DoneEvent | ErrorEvent):
                    self.usage += event.message.usage
                yield event


def _detached(start: Callable[[], Coroutine[object, object, Answer]]) -> asyncio.Task[Answer]:
    """The compaction as a task of its own: it completes even when its client leaves, as the fork's."""
    task = asyncio.ensure_future(start())
    _RUNNING.add(task)
    task.add_done_callback(_settled)
    return task


def _settled(task: asyncio.Task[Answer]) -> None:
    _RUNNING.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: a client that left is not told, and asyncio need not complain


def _outcome(work: asyncio.Task[Answer]) -> tuple[bool, Answer]:
    error = work.exception()
    if error is None:
        return True, work.result()
    return False, {"error": f"compaction failed: {error}", "code": "INTERNAL_ERROR"}


async def _sse(start: Callable[[], Coroutine[object, object, Answer]]) -> AsyncIterator[str]:
    yield ": keep-alive\n\n"
    work = _detached(start)  # only once the first heartbeat is on the wire
    while not work.done():
        await asyncio.wait({work}, timeout=HEARTBEAT_SECONDS)
        if not work.done():
            yield ": keep-alive\n\n"
    ok, body = _outcome(work)
    yield f"event: {'result' if ok else 'error'}\ndata: {json.dumps(body)}\n\n"


async def _json(start: Callable[[], Coroutine[object, object, Answer]]) -> AsyncIterator[str]:
    yield " \n"
    work = _detached(start)
    while not work.done():
        await asyncio.wait({work}, timeout=HEARTBEAT_SECONDS)
        if not work.done():
            yield " \n"
    yield json.dumps(_outcome(work)[1])
