"""What every host adapter shares: read the payload, run the engine, fail closed.

A host module (`claude`, `codex`, ...) turns its JSON into a `Request` and an `Outcome` back into its
answer (`Answer`: stdout, stderr, exit code). Everything between is here:

    stdin ─► decode ─► Event.parse ─► Request ─► engine (evaluate | dispatch | next loop) ─► Outcome
                                                                                 Event.render ─┘

`handle` never raises. Bad JSON, a payload that is not what the host documents, a broken
`.rein/steering.toml`, an unwritable session file or a bug all become a failed `Outcome`: the host's
blocking answer with a reason naming the problem, and the same message on stderr.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from rein.gitio import host_context
from rein.hooks._store import SessionEntries, session_path
from rein.hooks.errors import HookError, PayloadError
from rein.steering import Built, ConfigError, Steering, ToolCall, ToolResult, load_policy

Payload = Mapping[str, object]
Kind = Literal["before", "after", "prompt", "start", "stop"]
"""before: decide tool calls; after: feed results to observers; prompt: a new agent loop begins;
start and stop: the session starts, the agent stops (nothing to decide; config is checked at start)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """A hook payload in rein's terms. `calls` (before) or `results` (after) may be empty: a tool rein
    does not steer (an MCP tool, a web fetch) is allowed without loading any rules."""

    session: str
    cwd: str
    calls: tuple[ToolCall, ...] = ()
    results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What rein decided. `failed` means rein itself could not decide (the reason says why): hosts
    answer as for a block wherever their protocol can block."""

    block: bool = False
    reason: str = ""
    ask: bool = False
    """With `block`: a rule asks the person about the call rather than blocking it. A host whose hook
    can hand the call to its own approval prompt asks (the reason is the question's text); every other
    host, and any renderer that reads only `block`, blocks it with the reason."""
    failed: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """What the hook process prints and how it exits, in the host's protocol."""

    stdout: str = ""
    stderr: str = ""
    code: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One hook event of one host. `parse` raises `PayloadError` for input it cannot read; `render`
    must not raise."""

    name: str
    """The host's own event name, checked against the payload's `hook_event_name` when present."""
    kind: Kind
    parse: Callable[[Payload], Request]
    render: Callable[[Outcome], Answer]


def json_line(value: Mapping[str, object]) -> str:
    return json.dumps(value) + "\n"


def text(payload: Payload, key: str, where: str = "") -> str:
    """A required, non-empty string field."""
    value = payload.get(key)
    if not isinstance(value, str) or not value:
        raise PayloadError(f"`{where}{key}` must be a non-empty string, not {_shown(value)}")
    return value


def optional_text(payload: Payload, key: str, where: str = "") -> str | None:
    value = payload.get(key)
    if value is not None and not isinstance(value, str):
        raise PayloadError(f"`{where}{key}` must be a string, not {_shown(value)}")
    return value


def mapping(payload: Payload, key: str) -> Payload:
    value = payload.get(key)
    if not isinstance(value, dict):
        raise PayloadError(f"`{key}` must be a JSON object, not {_shown(value)}")
    return cast(dict[str, object], value)


def absolute(path: str, where: str) -> str:
    if not path.startswith("/"):
        raise PayloadError(f"`{where}` must be an absolute path, not {path!r}")
    return posixpath.normpath(path)


def _shown(value: object) -> str:
    return "nothing" if value is None else f"{type(value).__name__} {json.dumps(value, default=str)[:60]}"


_EXIT = re.compile(r"^\s*exit code:\s*(-?\d+)\s*$", re.IGNORECASE | re.MULTILINE)


def exit_code_in(output: str) -> int | None:
    """The exit code a shell tool's text output reports on an `Exit code: N` line, or None. Observers
    that require an exit code then do not fire, rather than record a success that may not have
    happened."""
    found = _EXIT.search(output)
    return int(found.group(1)) if found else None


def output_text(response: object) -> str:
    """A tool response as observers see it: text as sent, none (the field is missing) as no text,
    anything else as JSON text."""
    if response is None:
        return ""
    return response if isinstance(response, str) else json.dumps(response, default=str)


Where = Callable[[Payload], tuple[str, str]]
"""Reads a payload's session id and absolute cwd."""


def session_where(payload: Payload) -> tuple[str, str]:
    """The session id and the absolute cwd, as Claude Code, Codex and Gemini CLI send them on every
    event (`session_id`, `cwd`)."""
    return text(payload, "session_id"), absolute(text(payload, "cwd"), "cwd")


def plain(where: Where = session_where) -> Callable[[Payload], Request]:
    """The parser of an event that carries nothing rein reads but where it happens (a prompt, the
    session's start, the agent's stop)."""

    def parse(payload: Payload) -> Request:
        session, cwd = where(payload)
        return Request(session=session, cwd=cwd)

    return parse


def failure(message: str) -> Outcome:
    return Outcome(
        block=True,
        failed=True,
        reason=(
            f"[steering:hook-error@rein] rein could not check this, so it is blocked: {message}."
            " Retrying will not help: ask the user to look at rein's hook."
        ),
    )


Policies = Callable[[Path, Path], Built]
"""Builds the policy in force at a cwd for a home: `load_policy`, or the hook daemon's cache of it."""


def handle(host: str, event: Event, stdin: str, *, home: Path, policies: Policies = load_policy) -> Answer:
    """Answer one hook call. Never raises."""
    notes: list[str] = []
    problem: str | None = None
    outcome = Outcome()
    try:
        payload = decode(stdin)
        sent = payload.get("hook_event_name")
        if sent is not None and sent != event.name:
            raise PayloadError(f"this hook handles {event.name}, but the payload is for {sent!r}")
        outcome = act(host, event.kind, event.parse(payload), home, notes, policies)
    except (HookError, ConfigError) as error:
        problem = str(error)
    except OSError as error:
        problem = f"session state: {error}"
    except Exception as error:  # the one catch-all, at the edge: a hook must answer, never crash
        problem = f"internal error ({type(error).__name__}: {error}); please report it"
    if problem is not None:
        outcome = failure(problem)
        notes.append(f"error: {problem}")
    answer = event.render(outcome)
    stderr = "".join(f"rein hook {host} {event.name}: {note}\n" for note in notes)
    return Answer(stdout=answer.stdout, stderr=stderr + answer.stderr, code=answer.code)


def decode(stdin: str) -> Payload:
    try:
        value = json.loads(stdin)
    except ValueError as error:
        raise PayloadError(f"hook input is not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise PayloadError(f"hook input must be a JSON object, not {type(value).__name__}")
    return cast(dict[str, object], value)


def act(
    host: str, kind: Kind, request: Request, home: Path, notes: list[str], policies: Policies = load_policy
) -> Outcome:
    """Run the engine for one request. Raises `ConfigError` and `OSError`; `handle` answers them.
    Of several calls in one request, the first that is blocked decides; else the first that asks."""
    if (
        kind == "stop"
        or (kind == "before" and not request.calls)
        or (kind == "after" and not request.results)
    ):
        return Outcome()
    store = SessionEntries(session_path(home, host, request.session))
    if kind == "prompt":
        store.advance_loop()
        return Outcome()
    built = policies(Path(request.cwd), home)
    notes.extend(f"warning: {warning}" for warning in built.warnings)
    if kind == "start":
        return Outcome()
    engine = Steering(built.policy)
    context = host_context(request.cwd, str(home), agent_loop=store.agent_loop, entries=store)
    if kind == "after":
        for result in request.results:
            engine.dispatch(result, context)
        return Outcome()
    asked: Outcome | None = None
    for call in request.calls:
        verdict = engine.evaluate(call, context)
        if verdict.allow:
            continue
        if not verdict.ask:
            return Outcome(block=True, reason=verdict.reason)  # a block wins over an ask
        asked = asked or Outcome(block=True, ask=True, reason=verdict.reason)
    return asked or Outcome()
