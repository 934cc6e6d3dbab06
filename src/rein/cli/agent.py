"""`rein` itself: talk to a model that reads, edits and runs code, with stream rules and steering on.

rein [PROMPT]...           interactive (the terminal UI, `rein.tui`), with a first prompt if given
rein -p "prompt"           print mode: run one prompt, print the reply
rein --mode json -p "..."  one JSON event per line, the first a `session` event (id, file, cwd, model)

The options are parsed in `rein.cli._agent_app`, before this module (and the runtime) loads.

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  success
    1  the run failed: a model error, aborted, the session could not be saved, stdout closed
    2  usage or input error: a bad option, settings file or session file (unreadable, from a newer
       rein), no model to talk to, `-c` with no earlier session here
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from rein import tui
from rein.agent import AgentEvent
from rein.agent.tools import builtin_tools, system_prompt
from rein.ai import (
    AssistantMessage,
    Model,
    Provider,
    ProviderLoadError,
    StreamOptions,
    UnknownProviderError,
    get_provider,
)
from rein.ai.providers.local_files import INSTALL_HINT
from rein.builtins import load_extensions, provider_default
from rein.cli._agent_app import AgentOptions, parse
from rein.cli._provider import NoProvider, choose_provider
from rein.cli._render import Printer, TerminalUI, event_json
from rein.extensions import UI
from rein.session import (
    AgentSession,
    Session,
    SessionError,
    SessionWriteError,
    find_latest_session,
    find_session,
    sessions_dir,
)
from rein.session.compaction import CompactionSettings
from rein.session.remote import (
    SERVER_MODEL,
    RemoteError,
    RemoteSession,
    ServerError,
    ServerProvider,
    connect,
    latest_remote_session,
    server_verdicts,
)
from rein.settings import SettingsFileError, load_settings


class StartError(Exception):
    """The session could not start. The message is one line; `code` is the exit code (1 the run
    failed, 2 usage or input error)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def build(options: AgentOptions, ui: UI) -> AgentSession:
    """The session `options` ask for, showing itself through `ui` (the terminal UI, or print mode's
    `TerminalUI`). Raises `StartError`, `NoProvider`, settings, session and provider errors."""
    cwd = (options.cwd or Path.cwd()).resolve()
    if not cwd.is_dir():
        raise StartError(f"--cwd {cwd}: not a directory")
    home = Path.home()
    settings = load_settings(cwd, home)
    general = settings.get("rein", {})
    remote = remote_parts(options, cwd)
    if remote is not None:
        provider_name = "server"
        provider, model, _ = remote
    else:
        provider_name = choose_provider(options.provider, general)
        provider = get_provider(provider_name)
        model_id = options.model or general.get("model") or provider_default(provider_name) or "default"
        base_url = options.base_url or general.get("base_url")
        model = Model(provider=provider_name, id=str(model_id), base_url=str(base_url) if base_url else None)
    if provider_name == "local" and not options.provider and "provider" not in general:
        print(
            f"rein: no API key is set, so the embedded local model answers ({model.id}: small, for trying"
            " rein out); set ANTHROPIC_API_KEY or OPENAI_API_KEY for real work",
            file=sys.stderr,
        )
    if remote is not None:
        store = remote[2]
    elif options.resume:
        store = Session.open(find_session(home, cwd, options.resume))
    elif options.resume_latest:
        latest = find_latest_session(home, cwd)
        if latest is None:
            where = sessions_dir(home, cwd)
            raise StartError(f"no earlier session for {cwd} in {where}; run rein without -c to start one")
        store = Session.open(latest)
    else:
        store = Session.create(cwd, home=home)
    for warning in store.warnings:
        ui.notify(f"session file: {warning}", "warning")
    session = AgentSession(
        store=store,
        provider=provider,
        model=model,
        cwd=str(cwd),
        ui=ui,
        tools=builtin_tools(),
        system_prompt=system_prompt(provider_name, str(cwd)),
        options=StreamOptions(),
        compaction=CompactionSettings.from_mapping(settings.get("compaction", {})),
        context_window=window if isinstance(window := general.get("context_window"), int) else None,
        max_repeated_calls=repeats if isinstance(repeats := general.get("max_repeated_calls"), int) else 4,
    )
    if isinstance(provider, ServerProvider):  # before the others: a call the server blocked asks nobody
        session.load_extension("server-verdicts", server_verdicts(provider.blocked))
    load_extensions(
        session,
        cwd=str(cwd),
        home=str(home),
        settings=settings,
        discovered=not options.no_extensions,
        approve=options.approve,
        interactive=not options.headless and not options.line_by_line,  # else "ask" denies
    )
    return session


def remote_parts(options: AgentOptions, cwd: Path) -> tuple[Provider, Model, Session] | None:
    """With `--server` (or REIN_SERVER_URL): the server's session (a new one, `--session ID`, or with
    `-c` the last one of `cwd` there), a provider that asks the server for each reply, and the model
    the server is asked for (its own unless `--model` names one). None without a server."""
    server = options.server or os.environ.get("REIN_SERVER_URL") or None
    if not server:
        if options.session:
            raise StartError("--session needs --server URL (or REIN_SERVER_URL)")
        return None
    for flag, given in (
        ("--provider", options.provider),
        ("--base-url", options.base_url),
        ("--resume", options.resume),
    ):
        if given:
            raise StartError(
                f"{flag} cannot be used with --server: the server keeps the session and calls the model"
            )
    if options.resume_latest and options.session:
        raise StartError("-c and --session both name a session: give one")
    try:
        session_id = options.session
        if options.resume_latest:
            session_id = latest_remote_session(server, cwd)
            if session_id is None:
                raise StartError(f"no earlier session for {cwd} on {server}; run without -c to start one")
        store = connect(server, session_id, cwd)
    except ServerError as error:
        raise StartError(str(error), 2 if error.status == 404 else 1) from None
    return ServerProvider(store), Model(provider="server", id=options.model or SERVER_MODEL), store


def session_event(session: AgentSession) -> dict[str, object]:
    """The first line of `--mode json`: which session this is and where it is written."""
    path = session.store.path
    return {
        "type": "session",
        "id": session.store.id,
        "file": str(path) if path is not None else None,
        "cwd": session.cwd,
        "model": session.model.id,
        "provider": session.model.provider,
    }


async def print_mode(session: AgentSession, prompt: str, as_json: bool, console: Console) -> int:
    """Run one prompt, printing the reply (or JSON events); 1 if the run failed or stdout closed."""
    printer = Printer(console)
    closed = False

    def guarded(write: Callable[[], None]) -> None:
        """A closed stdout (`rein -p ... | head -1`): nobody reads on, so the run stops quietly."""
        nonlocal closed
        if closed:
            return
        try:
            write()
        except BrokenPipeError:
            closed = True
            session.abort()

    def show(event: AgentEvent) -> None:
        if as_json:
            guarded(lambda: print(json.dumps(event_json(event), default=str), flush=True))
        else:
            guarded(lambda: printer.event(event))

    if as_json:
        guarded(lambda: print(json.dumps(session_event(session)), flush=True))
    session.subscribe(show)
    if not as_json:
        session.subscribe_notices(lambda name, payload: guarded(lambda: printer.notice(name, payload)))
    await session.start()
    added = await session.prompt(prompt)
    await session.shutdown()
    unsaved = False
    if isinstance(session.store, RemoteSession):  # the last reply reaches the server before we exit
        try:
            await session.store.flush()
        except RemoteError as error:
            print(f"rein: {error}", file=sys.stderr)
            unsaved = True
        finally:
            await session.store.aclose()
    last = next((m for m in reversed(added) if isinstance(m, AssistantMessage)), None)
    return 1 if closed or unsaved or (last is not None and last.stop_reason in ("error", "aborted")) else 0


def run(args: list[str], prog: str = "rein") -> int:
    """`rein [OPTIONS] [PROMPT]...`: parse, then `start`."""
    options = parse(args, prog)
    return options if isinstance(options, int) else start(options)


def start(options: AgentOptions) -> int:
    """Run the agent as `options` ask: print or JSON mode, else the interactive terminal UI."""
    console = Console(highlight=False, stderr=options.mode == "json")
    prompt = " ".join(options.prompt)
    try:
        if options.headless:
            session = session_for(options, TerminalUI(console))
            if not prompt:
                prompt = sys.stdin.read().strip()
            return asyncio.run(print_mode(session, prompt, options.mode == "json", console))
        options = dataclasses.replace(options, line_by_line=not tui.is_terminal())
        return asyncio.run(tui.run_interactive(lambda ui: session_for(options, ui), first=prompt or None))
    except StartError as error:
        print(f"rein: {error}", file=sys.stderr)
        return error.code
    except SessionWriteError as error:  # a save failed mid-run: the session stopped there
        print(f"rein: {error}", file=sys.stderr)
        return 1


def session_for(options: AgentOptions, ui: UI) -> AgentSession:
    """`build`, with every reason it cannot start as a `StartError` (one line, an exit code)."""
    try:
        return build(options, ui)
    except SessionWriteError as error:  # the session file cannot be created: the run fails (1)
        raise StartError(str(error), 1) from None
    except OSError as error:  # a session file that cannot be read, a --cwd that is not there
        where = f"{error.filename}: " if error.filename else ""
        raise StartError(f"{where}{error.strerror or error}", 2) from None
    except (NoProvider, SettingsFileError, SessionError, UnknownProviderError, ProviderLoadError) as error:
        raise StartError(str(error), 2) from None
    except ImportError as error:  # a provider whose optional dependency is missing
        raise StartError(f"the local model cannot load ({error}): {INSTALL_HINT}", 2) from None
