"""Runs of rein's own agent on the server, one per session at a time, for the web page.

A session's `AgentSession` is built on first use (as `rein` builds a local one: the server's provider
and model, the built-in tools in the session's directory, the settings and built-in extensions of that
directory, `interactive=True` so approval asks the page, checkpoints without the server's own files)
and kept while the server runs, so "Allow for this session" lasts. Its store is a `ServerSession`; when
the session changed elsewhere (a `rein --server` client, a protocol write) the next prompt reloads it.

    host = RunHost(app)
    await host.prompt(owner, sid, "fix the test")   # 202: the run goes on in the background
    host.steer(owner, sid, "use pytest -x")         # NO_RUN (409) when idle
    host.answer(owner, sid, question_id, "Allow once")

The run's events go to the session's bus (`_bus`); a run that fails publishes an `error` event and
never takes the server down; shutdown cancels runs (`_runs.cancel_runs`) and dismisses questions.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette

from rein.agent import AgentEvent
from rein.agent.tools import builtin_tools, system_prompt
from rein.ai import AssistantMessage, JsonValue, Model, StreamOptions, UnknownProviderError, get_provider
from rein.builtins import load_extensions
from rein.server._config import ServerConfig
from rein.server._errors import ProtocolError
from rein.server._leases import WEB_RUN, RunLeases, now_ms
from rein.server._run_journal import spawn
from rein.server._service import SessionService
from rein.server.store import RunRow, StoreError
from rein.server.web._bus import CONTROL
from rein.server.web._checkpoints import repo_for, server_paths, undo_answer, undo_from
from rein.server.web._events import agent_events
from rein.server.web._relay import Buses
from rein.server.web._render import counters
from rein.server.web._restore import restore_answer
from rein.server.web._session import ServerSession
from rein.server.web._ui import WebUI
from rein.session import AgentSession
from rein.session.compaction import CompactionSettings
from rein.settings import SettingsFileError, load_settings

Key = tuple[str, str]
CONTROL_TTL_MS = 60_000
"""A steer or answer for a run elsewhere that waited longer than this is stale: not run."""


@dataclass(slots=True)
class _Run:
    agent: AgentSession
    store: ServerSession
    ui: WebUI
    task: asyncio.Task[None] | None = None
    fired: list[str] = field(default_factory=list)
    lease: RunRow | None = None
    """The run's journal record while it runs (`WEB_RUN`, held under this process's lease)."""

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()


def no_run(session_id: str) -> ProtocolError:
    return ProtocolError(409, "NO_RUN", f"session {session_id!r} has no run going: send a prompt")


class RunHost:
    """The app's server-side runs (`app.state.web_runs`)."""

    def __init__(self, app: Starlette, buses: Buses) -> None:
        self.app = app
        self.buses = buses
        self._runs: dict[Key, _Run] = {}
        # weak: a lock lives while someone holds or waits for it, not once per id ever asked about
        self._locks: weakref.WeakValueDictionary[Key, asyncio.Lock] = weakref.WeakValueDictionary()
        buses.on_control = self._control

    def _lock(self, owner: str, sid: str) -> asyncio.Lock:
        lock = self._locks.get((owner, sid))
        if lock is None:
            lock = self._locks[(owner, sid)] = asyncio.Lock()
        return lock

    @property
    def leases(self) -> RunLeases:
        leases: RunLeases = self.app.state.leases
        return leases

    @property
    def config(self) -> ServerConfig:
        config: ServerConfig = self.app.state.config
        return config

    @property
    def service(self) -> SessionService:
        service: SessionService = self.app.state.service
        return service

    def running(self, owner: str, sid: str) -> bool:
        """A page run of the session is going on in this process."""
        run = self._runs.get((owner, sid))
        return run is not None and run.running

    async def elsewhere(self, owner: str, sid: str) -> RunRow | None:
        """The session's page run going on in another process (its live journal record)."""
        if self.running(owner, sid):
            return None
        runs = await self.leases.store.live_runs(owner, now_ms())
        return next((r for r in runs if r.session_id == sid and r.run_id == WEB_RUN), None)

    async def live_sessions(self, owner: str) -> set[str]:
        """The owner's sessions with a page run going on, in any process."""
        runs = await self.leases.store.live_runs(owner, now_ms())
        remote = {run.session_id for run in runs if run.run_id == WEB_RUN}
        return remote | {sid for (who, sid), run in self._runs.items() if who == owner and run.running}

    async def question(self, owner: str, sid: str) -> dict[str, JsonValue] | None:
        """The open question of the session's run, here or in another process (from its events)."""
        run = self._runs.get((owner, sid))
        if run is not None and run.running:
            return run.ui.question
        if await self.elsewhere(owner, sid) is None:
            return None
        open_: dict[str, JsonValue] | None = None
        for event in await self.buses.recent(owner, sid):
            kind = event.get("type")
            if kind == "question":
                open_ = event
            elif (kind == "answered" and open_ is not None and event.get("id") == open_.get("id")) or (
                kind == "run" and event.get("state") == "idle"
            ):
                open_ = None
        return open_

    def _publish(self, owner: str, sid: str, event: dict[str, JsonValue]) -> None:
        self.buses.publish(owner, sid, event)

    async def prompt(self, owner: str, sid: str, text: str) -> None:
        """Start a run of `text`; 409 RUN_IN_PROGRESS when one is going, 404 for an unknown session."""
        async with self._lock(owner, sid):
            if self.running(owner, sid):
                raise ProtocolError(409, "RUN_IN_PROGRESS", f"session {sid!r} has a run going: steer it")
            run = await self._ready(owner, sid)
            run.lease = await self.leases.claim(owner, sid, WEB_RUN)
            if run.lease is None:
                raise ProtocolError(
                    409, "RUN_IN_PROGRESS", f"session {sid!r} has a run going on another server: steer it"
                )
            await self.buses.follow(owner, sid)  # steers and answers from other processes reach it
            self._publish(owner, sid, {"type": "run", "state": "running"})
            run.task = spawn(self.app, self._run(owner, sid, run, text))

    async def _ready(self, owner: str, sid: str) -> _Run:
        """The session's run state, its store reloaded if the session changed since the last flush."""
        view = await self.service.get(owner, sid)
        if view is None:
            raise ProtocolError(404, "SESSION_NOT_FOUND", f"session {sid!r} not found")
        run = self._runs.get((owner, sid))
        cwd = view.row.cwd or str(Path(self.config.cwd).resolve())
        if not Path(cwd).is_dir():  # a client's directory on another machine: nowhere to run tools
            raise ProtocolError(
                409, "NO_DIRECTORY", f"the session's directory {cwd} does not exist on this server"
            )
        if run is not None and run.store.revision == view.row.revision and run.agent.cwd == cwd:
            return run
        store = ServerSession(self.service, owner, view, cwd)
        if run is not None and run.agent.cwd == cwd:
            await run.agent.switch_store(store)  # extensions restore their state from the new tree
            run.store = store
            return run
        if run is not None:
            await run.agent.shutdown()
        run = self._runs[(owner, sid)] = self._build(owner, sid, store, cwd)
        await run.agent.start()
        return run

    def _build(self, owner: str, sid: str, store: ServerSession, cwd: str) -> _Run:
        config = self.config
        ui = WebUI(lambda event: self._publish(owner, sid, event))
        try:
            settings = load_settings(
                Path(cwd), config.home, warn=lambda message: ui.notify(message, "warning")
            )
        except SettingsFileError as error:
            raise ProtocolError(400, "INVALID_REQUEST", str(error)) from None
        general = settings.get("rein", {})
        window = general.get("context_window")
        repeats = general.get("max_repeated_calls")
        try:
            provider = get_provider(config.provider)
        except (UnknownProviderError, ImportError) as error:
            raise ProtocolError(
                500, "INTERNAL_ERROR", f"cannot load provider {config.provider!r}: {error}"
            ) from None
        agent = AgentSession(
            store=store,
            provider=provider,
            model=Model(
                provider=config.provider, id=config.model or config.provider, base_url=config.base_url
            ),
            cwd=cwd,
            ui=ui,
            tools=builtin_tools(),
            system_prompt=system_prompt(config.provider, cwd),
            options=StreamOptions(api_key=config.api_key),
            compaction=CompactionSettings.from_mapping(settings.get("compaction", {})),
            context_window=window if isinstance(window, int) else None,
            max_repeated_calls=repeats
            if isinstance(repeats := general.get("max_repeated_calls"), int)
            else 4,
        )
        run = _Run(agent=agent, store=store, ui=ui)
        agent.subscribe(lambda event: self._event(owner, sid, run, event))
        agent.subscribe_notices(lambda name, payload: self._notice(run, name, payload))
        load_extensions(
            agent,
            cwd=cwd,
            home=str(config.home),
            settings=settings,
            approve=config.approve,
            interactive=True,
            checkpoint_exclude=server_paths(config),
        )
        return run

    async def _event(self, owner: str, sid: str, run: _Run, event: AgentEvent) -> None:
        if event.type == "message_end":
            # on the service before the page hears of it: the `message` event makes it refetch
            try:
                await run.store.flush()
            except Exception as error:  # the run goes on; the final flush tries again
                self._publish(
                    owner, sid, {"type": "notice", "level": "warning", "message": f"not saved yet: {error}"}
                )
        for payload in agent_events(event, run.fired):
            self._publish(owner, sid, payload)
        if event.type == "stream_retry":
            run.fired = []
        if event.type == "message_end" and isinstance(event.message, AssistantMessage):
            self._publish(owner, sid, {"type": "usage", "counters": self._counters(run)})

    def _notice(self, run: _Run, name: str, payload: object) -> None:
        if name == "ttsr_triggered" and isinstance(payload, tuple):
            run.fired = [str(getattr(rule, "name", rule)) for rule in payload]

    def _counters(self, run: _Run) -> dict[str, JsonValue]:
        return counters(run.store.wire_branch())

    async def _run(self, owner: str, sid: str, run: _Run, text: str) -> None:
        failure: str | None = None
        try:
            await run.agent.prompt(text)
        except asyncio.CancelledError:
            run.ui.dismiss_all()
            raise
        except Exception as error:  # the run's failure is the page's to show, never the server's end
            failure = f"the run failed: {error}"
            self._publish(owner, sid, {"type": "error", "message": failure})
        try:
            await run.store.flush()
        except Exception as error:
            self._publish(
                owner, sid, {"type": "error", "message": f"the session could not be saved: {error}"}
            )
        run.ui.dismiss_all()
        await self._finish(owner, sid, run, failure)
        self._publish(owner, sid, {"type": "usage", "counters": self._counters(run)})
        self._publish(owner, sid, {"type": "run", "state": "idle"})

    async def _finish(self, owner: str, sid: str, run: _Run, failure: str | None) -> None:
        self.buses.unfollow(owner, sid)
        lease, run.lease = run.lease, None
        if lease is None:
            return
        with contextlib.suppress(StoreError):  # else the lease lapses and a sweep interrupts it
            await self.leases.finish(lease, "failed" if failure else "completed", error=failure)

    def _live(self, owner: str, sid: str) -> _Run:
        run = self._runs.get((owner, sid))
        if run is None or not run.running:
            raise no_run(sid)
        return run

    async def _remote(self, owner: str, sid: str, action: dict[str, JsonValue]) -> bool:
        """Send `action` to the session's run in another process (a `control` event its holder runs);
        False when no process runs it."""
        elsewhere = await self.elsewhere(owner, sid)
        if elsewhere is None or elsewhere.holder is None:
            return False
        self._publish(owner, sid, {"type": CONTROL, "to": elsewhere.holder, "at": now_ms(), **action})
        return True

    def _control(self, owner: str, sid: str, event: dict[str, JsonValue]) -> None:
        """A control event reached this process: run it if it is for the run held here."""
        run = self._runs.get((owner, sid))
        at = event.get("at")
        if run is None or not run.running or run.lease is None or event.get("to") != run.lease.holder:
            return
        if not isinstance(at, int) or now_ms() - at > CONTROL_TTL_MS:
            return
        text, action = event.get("text"), event.get("action")
        if action == "steer" and isinstance(text, str):
            run.agent.steer(text)
        elif action == "follow_up" and isinstance(text, str):
            run.agent.follow_up(text)
        elif action == "abort":
            self.abort(owner, sid)
        elif action == "answer" and isinstance(event.get("questionId"), str):
            value = event.get("value")
            run.ui.answer(str(event["questionId"]), value if isinstance(value, str) else None)

    async def steer(self, owner: str, sid: str, text: str) -> None:
        run = self._runs.get((owner, sid))
        if run is not None and run.running:
            run.agent.steer(text)
        elif not await self._remote(owner, sid, {"action": "steer", "text": text}):
            raise no_run(sid)

    async def follow_up(self, owner: str, sid: str, text: str) -> None:
        run = self._runs.get((owner, sid))
        if run is not None and run.running:
            run.agent.follow_up(text)
        elif not await self._remote(owner, sid, {"action": "follow_up", "text": text}):
            raise no_run(sid)

    def abort(self, owner: str, sid: str) -> bool:
        """Abort the run here; False when there was none."""
        run = self._runs.get((owner, sid))
        if run is None or not run.running:
            return False
        run.agent.abort()
        run.ui.dismiss_all()
        return True

    async def abort_any(self, owner: str, sid: str) -> bool:
        """Abort the session's run, here or in another process; False when there was none."""
        return self.abort(owner, sid) or await self._remote(owner, sid, {"action": "abort"})

    async def answer(self, owner: str, sid: str, question_id: str, value: str | None) -> None:
        run = self._runs.get((owner, sid))
        if run is not None and run.ui.answer(question_id, value):
            return
        question = await self.question(owner, sid)
        if question is None or question.get("id") != question_id:
            raise ProtocolError(404, "QUESTION_NOT_FOUND", f"no open question {question_id!r}")
        action: dict[str, JsonValue] = {"action": "answer", "questionId": question_id, "value": value}
        if not await self._remote(owner, sid, action):
            raise ProtocolError(404, "QUESTION_NOT_FOUND", f"no open question {question_id!r}")

    async def switch(self, owner: str, sid: str, entry_id: str, *, restore: bool) -> dict[str, JsonValue]:
        """Continue from `entry_id` (the next prompt reloads the store); `restore`: with its files, as
        `/tree` (`_restore`). 409 while running; 400 LEAF_ID_NOT_FOUND for an unknown entry."""
        async with self._lock(owner, sid):
            if self.running(owner, sid) or await self.elsewhere(owner, sid) is not None:
                raise ProtocolError(409, "RUN_IN_PROGRESS", f"session {sid!r} has a run going: abort it")
            view = await self.service.switch(owner, sid, entry_id)
            if not restore:
                return {"leafId": view.row.leaf_id}
            run = await self._ready(owner, sid)
            answer = await asyncio.to_thread(restore_answer, run.store, repo_for(self.config, run.agent.cwd))
            await run.store.flush()
        self._publish(owner, sid, {"type": "undone", "lines": answer["lines"]})
        return answer

    async def undo(self, owner: str, sid: str, checkpoint_id: str) -> dict[str, JsonValue]:
        """Undo the files of the turn `checkpoint_id` and of the later turns of the branch (`/undo N`),
        the model told as `/undo` tells it. 409 while a run goes on."""
        async with self._lock(owner, sid):
            if self.running(owner, sid) or await self.elsewhere(owner, sid) is not None:
                raise ProtocolError(409, "RUN_IN_PROGRESS", f"session {sid!r} has a run going: wait or abort")
            run = await self._ready(owner, sid)
            repo = repo_for(self.config, run.agent.cwd)
            result = await asyncio.to_thread(undo_from, run.store, repo, checkpoint_id)
            if result.undone.files:
                run.agent.send_message("checkpoint_undo", result.note(), display=False, details={})
            await run.store.flush()
        answer = undo_answer(result)
        self._publish(owner, sid, {"type": "undone", "lines": answer["lines"]})
        return answer

    async def close(self) -> None:
        """Dismiss every question and end every session's extensions (the app's shutdown)."""
        for run in self._runs.values():
            run.ui.dismiss_all()
        for run in list(self._runs.values()):
            try:
                await run.agent.shutdown()
            except Exception:
                continue
        self._runs.clear()
