"""Approval of tool calls that change things (`bash`, `write`, `edit`, and every MCP server's tool,
`mcp__<server>__<tool>`), as a built-in extension.

Its `tool_call` handler is registered after every other extension's, and the first `Block` wins, so a
call steering (or any extension) blocks is never asked about. Read-only tools never ask.

- `auto`: every call runs.
- `deny`: every changing call is blocked; the reason says how to allow them.
- `ask`: the person picks "Allow once", "Allow for this session", "Always allow in this project" or
  "Deny" (then types a reason, which the model reads as the tool's result). With nobody to ask (print
  and JSON modes), the call is denied and the reason says how to let such calls run; a question
  dismissed (`select` answering None where a person could be asked) denies it too, and says so.

An MCP tool asks even when its server marks it `readOnlyHint`: the hint is the server's own word
(any project's `.mcp.json` may name any server), and one answer allows the tool for the session or
the project.

A call a steering rule already asked the person about, and they allowed (`allowed_by_person`, the
steering extension's), is not asked about again.

"Allow for this session" remembers, for bash, the program of each command the line would run (its
first word as written, inner commands included: `sudo rm x` remembers `sudo` and `rm`); a later bash
call runs without asking when every program in it is remembered. For write and edit it remembers the
tool, and for an MCP tool that one tool (`mcp__github__create_issue`, not the server's others). What
is remembered lasts until the session ends or another session is opened (`/new`,
`/resume`, `/fork`); moving in the session's tree (`/tree`, the web page's "Continue from here") keeps it.

"Always allow in this project" appends entries to `.rein/approved.toml` (`_approved`): the exact
commands of the line (or, for write and edit, the tool on files inside the project; for an MCP tool,
the tool), which later
sessions in that directory run without asking. A person reads, widens or deletes them there.

Each call approval decides is reported to `on_outcome` (its id and an `Outcome`), so `/steering`
shows what became of it.

`/approve [ask|auto|deny]` shows or switches the mode for the rest of the session. The mode in force is
told to other extensions and to the host as an `approval_mode` notice (its payload the mode) at each
session start and on every switch: an editor shows it as the session's mode.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import Final, Literal, get_args

from rein.agent import Block
from rein.builtins import _approved
from rein.extensions import ExtensionAPI, ExtensionContext, SessionStartEvent, ToolCallEvent
from rein.mcp import PREFIX as MCP_PREFIX
from rein.session import AgentSession
from rein.steering import analyze

ApproveMode = Literal["ask", "auto", "deny"]
MODES: tuple[ApproveMode, ...] = get_args(ApproveMode)
MODE_NOTICE: Final = "approval_mode"
MEANING: dict[ApproveMode, str] = {
    "ask": "bash, write, edit and MCP tool calls ask before they run",
    "auto": "bash, write, edit and MCP tool calls run without asking (steering still applies)",
    "deny": "bash, write, edit and MCP tool calls are refused; the agent only reads",
}

CHANGING = frozenset({"bash", "write", "edit"})
"""The built-in tools that ask; with MCP tools (`asks`), the only ones: every other runs without asking."""


def asks(tool: str) -> bool:
    """Whether a call of `tool` is approval's to decide: bash, write, edit, and any MCP tool."""
    return tool in CHANGING or tool.startswith(MCP_PREFIX)


ALLOW_ONCE = "Allow once"
ALLOW_SESSION = "Allow for this session"
ALLOW_PROJECT = "Always allow in this project"
DENY = "Deny"
OPTIONS = (ALLOW_ONCE, ALLOW_SESSION, DENY)
"""The answers where "Always allow in this project" cannot be offered (a command with words only known
at run time, a file outside the project)."""
PROJECT_OPTIONS = (ALLOW_ONCE, ALLOW_SESSION, ALLOW_PROJECT, DENY)

Outcome = Literal[
    "allowed",
    "approved by you",
    "approved earlier (session)",
    "approved earlier (project)",
    "denied by you",
    "dismissed",
    "blocked",
]
"""What became of a tool call, as `/steering` shows it: `allowed` ran without a question, `approved
by you` ran on the person's yes, `approved earlier` on a yes remembered for the session or saved for
the project; `dismissed` was not run because the question was dismissed; `blocked` was stopped with
nobody asked (steering, approve = deny, nobody there to ask)."""

HOW_TO_ALLOW = (
    "to let rein run bash, write, edit and MCP tools without asking, pass --approve auto or set"
    ' approve = "auto" in the [rein] group of .rein/settings.toml'
)


def approve_mode(settings: Mapping[str, Mapping[str, object]], given: ApproveMode | None) -> ApproveMode:
    """The mode in force: `given` (the `--approve` option), else `[rein] approve`, else "ask".
    Raises ValueError naming the key and the allowed values for any other setting."""
    if given is not None:
        return given
    value = settings.get("rein", {}).get("approve", "ask")
    for mode in MODES:
        if value == mode:
            return mode
    raise ValueError(f"[rein] approve = {value!r} is not one of {', '.join(MODES)}")


def programs(command: str, *, cwd: str, home: str) -> tuple[str, ...] | None:
    """The program (first word as written) of each command `command` would run, inner ones included;
    None when that cannot be known (a parse problem, a command name only known at run time)."""
    analysis = analyze(command, cwd=cwd, home=home)
    if not analysis.understood or not analysis.refs:
        return None
    if any(ref.name_dynamic or not ref.argv for ref in analysis.refs):
        return None
    return tuple(dict.fromkeys(ref.argv[0].value for ref in analysis.refs))


class ApprovalExtension:
    def __init__(
        self,
        rein: ExtensionAPI,
        session: AgentSession,
        *,
        mode: ApproveMode,
        interactive: bool,
        home: str,
        allowed_by_person: Callable[[str], bool] | None = None,
        on_outcome: Callable[[str, Outcome], None] | None = None,
    ) -> None:
        self.session = session
        self.rein = rein
        self.mode = mode
        self.interactive = interactive
        self.home = home
        self.allowed_by_person = allowed_by_person
        """Whether the person already allowed a call (by its id) when asked about it elsewhere."""
        self.on_outcome = on_outcome
        """Told what became of each changing call approval decided (steering's `settle`)."""
        self._session_id: str | None = None
        self._problems: tuple[str, ...] = ()
        self.programs: set[str] = set()
        """bash programs allowed for this session."""
        self.tools: set[str] = set()
        """write/edit allowed for this session."""
        # Calls may be checked concurrently (writes to different files): one question at a time.
        self._asking = asyncio.Lock()
        rein.on("session_start", self.on_session_start)
        rein.on("tool_call", self.on_tool_call)
        rein.register_command(
            "approve",
            "Show or switch the approval mode: /approve [ask|auto|deny]",
            self.approve,
            MODES,
        )

    def on_session_start(self, event: SessionStartEvent, ctx: ExtensionContext) -> None:
        # The same session reloaded (the web page's branch switch swaps its store) keeps its answers.
        if self.session.store.id != self._session_id:
            self.programs.clear()
            self.tools.clear()
        self._session_id = self.session.store.id
        self.rein.emit(MODE_NOTICE, self.mode)
        if self.session.model.provider == "local":
            ctx.ui.notify(self.local_notice(), "warning" if self.mode == "auto" else "info")

    def approve(self, args: str, ctx: ExtensionContext) -> None:
        """`/approve`: the mode in force, or switch it (`/approve auto`) for the rest of the session."""
        mode = next((choice for choice in MODES if choice == args), None)
        if args and mode is None:
            ctx.ui.notify(f"/approve {args}: not one of {', '.join(MODES)}", "warning")
            return
        if mode is not None and mode != self.mode:
            self.mode = mode
            self.rein.emit(MODE_NOTICE, mode)
        ctx.ui.notify(f"approve: {self.mode} ({MEANING[self.mode]})")

    def local_notice(self) -> str:
        """What the embedded local model may do here, said at the start of each session."""
        where = self.session.cwd
        may = f"The local model may run bash, write and edit files and call MCP tools in {where}"
        if self.mode == "auto":
            return f"{may} without asking you (approve: auto)."
        if self.mode == "deny":
            denied = "its bash, write, edit and MCP tool calls are denied (approve: deny)"
            return f"The local model may read files in {where}; {denied}."
        if self.interactive:
            return f"{may}; each such call asks you first (approve: ask)."
        return f"{may}; nobody is asked here, so those calls are denied unless you pass --approve auto."

    async def on_tool_call(self, event: ToolCallEvent, ctx: ExtensionContext) -> Block | None:
        if not asks(event.info.call.name):
            return None
        call = event.info.call
        outcome, block = await self._decide(call.id, call.name, call.arguments, ctx)
        if self.on_outcome is not None and call.id:
            self.on_outcome(call.id, outcome)
        return block

    async def _decide(
        self, id: str, tool: str, args: Mapping[str, object], ctx: ExtensionContext
    ) -> tuple[Outcome, Block | None]:
        asked = self.allowed_by_person is not None and self.allowed_by_person(id)
        if self.mode == "auto":
            return "allowed", None
        if asked and self.mode == "ask":
            return "approved by you", None
        if self.mode == "deny":
            return "blocked", Block(reason=f"[approval] not run: approve is set to deny; {HOW_TO_ALLOW}.")
        if not self.interactive:
            return "blocked", Block(reason=_nobody(tool))
        remember: tuple[str, ...] | None = (tool,)
        saved: tuple[_approved.Argv, ...] | None = ()
        if tool == "bash":
            command = args.get("command")
            command = command if isinstance(command, str) else ""
            remember = programs(command, cwd=self.session.cwd, home=self.home)
            saved = _approved.command_argvs(command, cwd=self.session.cwd, home=self.home)
        elif tool in CHANGING and not _approved.inside(self.session.cwd, args.get("path")):
            saved = None
        config = _approved.names_config(tool, args, cwd=self.session.cwd, home=self.home)
        if config:
            saved = None  # rein's own files: asked every time, never saved
        async with self._asking:
            if not config and self._remembered(tool, remember):
                return "approved earlier (session)", None
            if saved is not None and self._saved(tool, saved, ctx):
                return "approved earlier (project)", None
            options = OPTIONS if saved is None else PROJECT_OPTIONS
            answer = await ctx.ui.select(_title(tool, args, remember, saved), options)
            if answer == ALLOW_ONCE:
                return "approved by you", None
            if answer == ALLOW_SESSION:
                self._remember(tool, remember, ctx)
                return "approved by you", None
            if answer == ALLOW_PROJECT and saved is not None:
                self._save(tool, args, saved, remember, ctx)
                return "approved by you", None
            if answer != DENY:
                return "dismissed", Block(reason=_dismissed(tool))
            reason = await ctx.ui.input(f"Why deny this {tool} call? (the model reads it)", "a reason")
        said = f" Their reason: {reason.strip()}" if reason and reason.strip() else ""
        return "denied by you", Block(reason=f"[approval] not run: the user denied this {tool} call.{said}")

    def _remembered(self, tool: str, remember: tuple[str, ...] | None) -> bool:
        if tool != "bash":
            return tool in self.tools
        return remember is not None and set(remember) <= self.programs

    def _remember(self, tool: str, remember: tuple[str, ...] | None, ctx: ExtensionContext) -> None:
        if tool != "bash":
            self.tools.add(tool)
        elif remember is None:
            ctx.ui.notify("approval: which programs this command runs is not known; it was allowed once")
        else:
            self.programs.update(remember)

    def _saved(self, tool: str, argvs: tuple[_approved.Argv, ...], ctx: ExtensionContext) -> bool:
        """Whether the project's approvals file allows the call (read each time: a person may have
        just deleted an entry); a broken entry is said once and allows nothing."""
        approved = _approved.load(self.session.cwd)
        if approved.problems != self._problems:
            for problem in approved.problems:
                ctx.ui.notify(f"approval: {problem}", "warning")
        self._problems = approved.problems
        if tool != "bash":
            return tool in approved.tools
        return all(approved.allows(argv) for argv in argvs)

    def _save(
        self,
        tool: str,
        args: Mapping[str, object],
        argvs: tuple[_approved.Argv, ...],
        remember: tuple[str, ...] | None,
        ctx: ExtensionContext,
    ) -> None:
        said = str(args.get("command", "")) if tool == "bash" else f"{tool} {args.get('path', '')}".strip()
        try:
            path = _approved.save(self.session.cwd, tool, argvs, said=said, session=self.session.store.id)
        except (OSError, ValueError) as error:
            self._remember(tool, remember, ctx)
            ctx.ui.notify(
                f"approval: could not save the approval ({error}); allowed for this session", "error"
            )
            return
        what = "; ".join(" ".join(argv) for argv in argvs) if tool == "bash" else f"{tool} in this project"
        ctx.ui.notify(f"approval: always allowed in this project: {what} (saved in {path}; delete it there)")


def _nobody(tool: str) -> str:
    return (
        f"[approval] not run: this {tool} call needs approval and nobody approved it (print and JSON"
        f" modes never ask); {HOW_TO_ALLOW}."
    )


def _dismissed(tool: str) -> str:
    return (
        f"[approval] not run: the approval question for this {tool} call was dismissed, so nobody"
        " approved it. Take that as a denial: do not run it another way; ask the user if it is needed."
    )


def _title(
    tool: str,
    args: Mapping[str, object],
    remember: tuple[str, ...] | None,
    saved: tuple[_approved.Argv, ...] | None,
) -> str:
    if tool.startswith(MCP_PREFIX):
        shown = json.dumps(dict(args), ensure_ascii=False, default=str)
        what = f"call {tool} with {shown if len(shown) <= 300 else shown[:297] + '...'}"
        scope = f"\n{ALLOW_SESSION} allows every later {tool} call"
        forever = f"\n{ALLOW_PROJECT} saves {tool} to {_approved.FILE} for later sessions"
    elif tool == "bash":
        what = f"run: {args.get('command', '')}"
        scope = (
            f"\n{ALLOW_SESSION} allows later commands that run only: {', '.join(remember)}"
            if remember
            else ""
        )
        exact = "this exact command" if saved is not None and len(saved) == 1 else "these exact commands"
        forever = f"\n{ALLOW_PROJECT} saves {exact} to {_approved.FILE} for later sessions"
    else:
        what = f"{tool} {args.get('path', '')}"
        scope = f"\n{ALLOW_SESSION} allows every later {tool} call"
        forever = f"\n{ALLOW_PROJECT} saves {tool} on files inside it to {_approved.FILE}"
    return f"Allow the agent to {what}?{scope}{forever if saved is not None else ''}"
