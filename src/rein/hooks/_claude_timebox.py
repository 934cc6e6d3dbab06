"""The timebox in Claude Code, riding on rein's hook events (`rein hook claude <event>`).

Hooks never see slash commands, so the command is a prompt: `$timebox 15m turns:5 -- lmk done`
(`status`, `off` likewise). The hook answers it and blocks the prompt from reaching Claude, with a
reason that reports what was set. State lives in a per-session journal (`_timebox_journal`), read and
appended under one lock per hook call. Each event, given a timebox:

    UserPromptSubmit   the hard stop blocks the prompt; else the prompt counts as a turn, and once the
                       nudge is due or sent the warning goes to Claude as `additionalContext`
    PreToolUse         wall time and tokens checked: the stop denies the call and ends the turn
                       (`continue: false`), and denies any further call of that turn; a nudge that
                       just became due goes to Claude as `additionalContext`
    PostToolUse(Failure), Stop   the same checks (a stop ends the turn; at Stop it is reported)
    SessionStart       the restore rule: report the budget restored, or expired (then recorded off)

Notices for the user go out as `systemMessage` (the block reason for a prompt); a stop runs the
on-stop command, detached, once the lock is released. Turns are prompts before the current one: with
`turns:5` the sixth prompt is blocked. Tokens are counted from the transcript (`_claude_transcript`).

`timeboxed(EVENTS)` wraps each event's `parse` (the payload is where the timebox reads and decides)
and `render` (where its reply joins steering's answer); steering's decision is otherwise unchanged, and
when rein itself failed its fail-closed answer goes out as it is. Steering still sees a `$timebox`
prompt as a prompt (its agent loop advances). The decisions live in `_claude_timebox_state`, imported
only for a session that has a timebox journal or a `$timebox` prompt, so other hook calls do not load
the core.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, cast

from rein.hooks._run import Answer, Event, Outcome, Payload, Request, json_line
from rein.hooks._timebox_journal import journal_path
from rein.machine import run_detached, wall_clock_ms

COMMAND = "$timebox"
_COMMAND = re.compile(r"\$timebox(?:\s+(.*))?", re.DOTALL)
_TO_CLAUDE = (
    "{notice} Do not call more tools: tell the user in a sentence or two what is done and what is "
    "left, then stop."
)
_DECIDE = "rein.hooks._claude_timebox_state"
"""Where the decisions live: loaded only for sessions with a timebox (the core costs ~20 ms to import)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """What the timebox adds to one hook answer."""

    notices: tuple[str, ...] = ()
    """For the user: a `systemMessage`, a block reason or a stop reason."""
    context: tuple[str, ...] = ()
    """For Claude: `additionalContext`."""
    stop: bool = False
    """The turn stops: the prompt is blocked, the tool call denied, the turn ended."""
    consumed: bool = False
    """A `$timebox` prompt: blocked, the notices are the reason."""


def timebox_args(event: str, payload: Payload) -> str | None:
    """The arguments of a `$timebox` prompt, or None for any other prompt or event."""
    prompt = payload.get("prompt") if event == "UserPromptSubmit" else None
    found = _COMMAND.fullmatch(prompt.strip()) if isinstance(prompt, str) else None
    return None if found is None else (found.group(1) or "").strip()


def render(event: str, reply: Reply, answer: Answer) -> Answer:
    """Steering's answer with the timebox's reply joined in, in Claude Code's hook output."""
    if reply == Reply():
        return answer
    out: dict[str, object] = json.loads(answer.stdout) if answer.stdout.strip() else {}
    notice = "\n".join(reply.notices)
    if event == "UserPromptSubmit" and (reply.consumed or reply.stop):
        out = {"decision": "block", "reason": notice}
    elif event == "PreToolUse" and reply.stop:
        out["hookSpecificOutput"] = {
            "hookEventName": event,
            "permissionDecision": "deny",
            "permissionDecisionReason": _TO_CLAUDE.format(notice=notice),
        }
        out.update({"continue": False, "stopReason": notice})
    elif reply.stop and event != "Stop":
        out.update({"continue": False, "stopReason": notice})
    else:
        if notice:
            out["systemMessage"] = notice
        if reply.context and event != "Stop":
            found = out.get("hookSpecificOutput")
            specific = dict(found) if isinstance(found, dict) else {"hookEventName": event}
            specific["additionalContext"] = "\n\n".join(reply.context)
            out["hookSpecificOutput"] = specific
    return Answer(stdout=json_line(out), stderr=answer.stderr, code=answer.code)


@dataclass(slots=True)
class _Pending:
    """The reply decided in `parse`, for `render` of the same hook call."""

    replies: list[Reply] = field(default_factory=list)


class _Respond(Protocol):
    def __call__(
        self, event: str, payload: Payload, *, session: str, home: Path, now: int
    ) -> tuple[Reply, list[str]]: ...


def decide(event: str, payload: Payload, *, session: str, home: Path, now: int) -> tuple[Reply, list[str]]:
    """The timebox's reply to one hook event and the on-stop commands to run. Raises `OSError`."""
    if timebox_args(event, payload) is None and not journal_path(home, session).exists():
        return Reply(), []  # no timebox in this session: no file, no lock, no core
    respond = cast(_Respond, importlib.import_module(_DECIDE).respond)
    return respond(event, payload, session=session, home=home, now=now)


def _timeboxed(
    event: Event, *, clock: Callable[[], int], home: Callable[[], Path], run_on_stop: Callable[[str], None]
) -> Event:
    pending = _Pending()

    def parse(payload: Payload) -> Request:
        pending.replies.clear()
        request = event.parse(payload)
        reply, commands = decide(event.name, payload, session=request.session, home=home(), now=clock())
        for command_line in commands:
            run_on_stop(command_line)
        pending.replies.append(reply)
        return request

    def render_with_timebox(outcome: Outcome) -> Answer:
        answer = event.render(outcome)
        if outcome.failed or not pending.replies:
            return answer
        return render(event.name, pending.replies.pop(), answer)

    return Event(name=event.name, kind=event.kind, parse=parse, render=render_with_timebox)


def timeboxed(
    events: Mapping[str, Event],
    *,
    clock: Callable[[], int] = wall_clock_ms,
    home: Callable[[], Path] = Path.home,
    run_on_stop: Callable[[str], None] = run_detached,
) -> Mapping[str, Event]:
    """Claude Code's hook events with the timebox riding on them (see the module docstring)."""
    return {
        name: _timeboxed(event, clock=clock, home=home, run_on_stop=run_on_stop)
        for name, event in events.items()
    }
