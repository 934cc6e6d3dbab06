"""The built-in steering extension: tool calls are evaluated before they run, results dispatched to
observers after; observer entries are session `custom` entries, so `when.happened` survives resume.
Bash and the file tools are always checked; any other tool (an MCP server's `mcp__<server>__<tool>`,
an extension's) where a rule or an observer names it, with the JSON arguments the model sent.

Every steering entry is one `custom` entry of type `steering` (`ENTRY`), whatever its steering type:

    {"type": "tests-passed", "data": {...}, "agent_loop": 2, "seq": 7}

`seq` orders entries of all types together (`when.happened ... since` compares them): each append
numbers after the highest `seq` stored on the session's branch, so the order holds across tool
calls, entry types and a resumed session.

The agent-loop index (for `in = "agent_loop"`) advances on every agent_start.

A rule that asks (`verdict = "ask"`, the packs' default for destructive commands) puts the call to the
person through `ctx.ui.select`: "Allow once" runs it, "Deny" blocks it (the person may type a reason
the model reads), and no answer (print and JSON modes, a question dismissed) blocks it with the rule's
reason, and says which it was (nobody there to ask, or the question dismissed). The same question
reaches every host's UI: the terminal, the web page (a `question` event), an
ACP editor (`session/request_permission`). A call the person allowed here is not asked about again by
the approval extension (`allowed_by_person`); with approval set to deny (its `approval_mode` notice),
nobody is asked and the call is blocked.

`/steering` lists each decision with steering's verdict and what became of the call (`Outcome`): the
approval extension reports its part through `settle`, the tool's result settles the rest.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from rein.agent import Block
from rein.builtins.approval import ALLOW_ONCE, DENY, MODE_NOTICE, Outcome
from rein.extensions import (
    AgentStartEvent,
    ApprovalModeEvent,
    ExtensionAPI,
    ExtensionContext,
    SessionStartEvent,
    SessionTreeEvent,
    SessionView,
    ToolCallEvent,
    ToolResultEvent,
)
from rein.gitio import host_context
from rein.steering import (
    TOOLS,
    ConfigError,
    Context,
    Entry,
    PackState,
    Rule,
    Steering,
    ToolCall,
    ToolResult,
    Verdict,
    load_policy,
)

ENTRY = "steering"
"""The `custom` entry type every steering entry is stored under; its data names the steering type."""

RECENT = 20
"""How many decisions `SteeringExtension.decisions` keeps (for `/steering`)."""

ASK_OPTIONS = (ALLOW_ONCE, DENY)
"""The answers to a rule that asks: approval's own words, so every UI (an ACP editor's permission
options among them) offers them as it offers approval's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """One tool call steering decided, as `/steering` lists it."""

    tool: str
    subject: str
    """The command (bash), the path (write, edit, read), or another tool's arguments (JSON)."""
    allow: bool
    """Whether steering let the call go on (for a rule that asks: the person's answer)."""
    rule: str | None = None
    """`<rule>@<source>` of the rule that blocked or asked (or whose block an override waived)."""
    override: bool = False
    asked: bool = False
    """The rule asked the person: `allow` is their answer (no answer is a denial)."""
    call_id: str = ""
    outcome: Outcome | None = None
    """What became of the call in the end (None until it is known)."""

    @property
    def verdict(self) -> str:
        """Steering's own word: `allow`, `block`, or `ask` (a rule put it to the person)."""
        return "ask" if self.asked else "allow" if self.allow else "block"

    def row(self) -> tuple[str, str, str, str, str]:
        """The decision as `/steering` lists it (under `HEADINGS`)."""
        rule = f"{self.rule} (override)" if self.override else self.rule or ""
        return (self.verdict, self.outcome or "pending", self.tool, _short(self.subject), rule)


HEADINGS = ("steering", "outcome", "tool", "call", "rule")
"""The columns of `/steering`'s latest decisions: steering's verdict, then what became of the call."""

_NOT_RUN: frozenset[Outcome | None] = frozenset({"denied by you", "dismissed", "blocked"})


def rule_tool(rule: Rule) -> str:
    """A rule's tool as `/steering` lists it; for any other tool than bash and the file tools, with the
    argument it reads and the SQL it looks for (`mcp__pg__* (field sql; sql write)`)."""
    if rule.tool in TOOLS:
        return rule.tool
    details = [f"field {rule.field}"] if rule.field else []
    if rule.matcher.sql:
        details.append(f"sql {', '.join(sorted(rule.matcher.sql))}")
    return f"{rule.tool} ({'; '.join(details)})" if details else rule.tool


def _short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _entry(data: Mapping[str, object]) -> Entry | None:
    kind, payload, loop, seq = data.get("type"), data.get("data"), data.get("agent_loop"), data.get("seq")
    if not isinstance(kind, str):
        return None
    return Entry(
        type=kind,
        data=MappingProxyType(dict(payload)) if isinstance(payload, Mapping) else MappingProxyType({}),
        agent_loop=loop if isinstance(loop, int) else 0,
        seq=seq if isinstance(seq, int) else 0,
    )


class SessionEntries:
    """An `EntryStore` over the session's `steering` custom entries (on the current branch)."""

    def __init__(self, rein: ExtensionAPI, view: SessionView) -> None:
        self.rein = rein
        self.view = view
        self._last = 0  # this store's last `seq`, in case the host's view lags behind its appends

    def _stored(self) -> list[Entry]:
        return [entry for data in self.view.custom_entries(ENTRY) if (entry := _entry(data)) is not None]

    def find(self, type: str) -> Sequence[Entry]:
        return [entry for entry in self._stored() if entry.type == type]

    def append(self, type: str, data: Mapping[str, object], agent_loop: int) -> Entry:
        seq = self._last = max([self._last, *(entry.seq for entry in self._stored())]) + 1
        plain = dict(data)
        self.rein.append_entry(ENTRY, {"type": type, "data": plain, "agent_loop": agent_loop, "seq": seq})
        return Entry(type=type, data=MappingProxyType(plain), agent_loop=agent_loop, seq=seq)


class SteeringExtension:
    def __init__(self, rein: ExtensionAPI, *, cwd: str, home: str, interactive: bool = True) -> None:
        self.rein = rein
        self.cwd = cwd
        self.home = home
        self.interactive = interactive
        """A person may be asked (False: print and JSON modes, where no question is put)."""
        self.engine: Steering | None = None
        self.problem: str | None = None
        self.agent_loop = 0
        self.decisions: deque[Decision] = deque(maxlen=RECENT)
        """This process's latest decisions, oldest first (not persisted)."""
        self._allowed: set[str] = set()
        """Ids of tool calls the person allowed when a rule asked, until approval looks them up."""
        self._read_only = False
        """Approval is set to deny: a yes would not run the call, so nobody is asked."""
        rein.on("session_start", self.on_session_start)
        rein.on("session_tree", self.on_session_start)  # another branch: its own entries and loops
        rein.on("agent_start", self.on_agent_start)
        rein.on("tool_call", self.on_tool_call)
        rein.on("tool_result", self.on_tool_result)
        rein.on(MODE_NOTICE, self.on_approval_mode)

    def on_session_start(self, event: SessionStartEvent | SessionTreeEvent, ctx: ExtensionContext) -> None:
        self._allowed.clear()
        try:
            built = load_policy(Path(self.cwd), Path(self.home))
        except ConfigError as error:
            # Fail closed: a policy that does not load must not silently allow everything.
            self.problem = (
                f"[steering:config@rein] steering config error, every tool call is blocked: {error}."
                " Ask the user to fix the config file."
            )
            ctx.ui.notify(self.problem, "error")
            return
        for warning in built.warnings:
            ctx.ui.notify(f"steering: {warning}", "warning")
        self.engine = Steering(built.policy)
        self.agent_loop = ctx.session.user_message_count()

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules in force, in the order they are tried (none until the policy loads)."""
        return self.engine.policy.rules if self.engine is not None else ()

    @property
    def packs(self) -> tuple[PackState, ...]:
        """rein's packs with their verdicts after the person's settings (none until the policy loads)."""
        return self.engine.policy.packs if self.engine is not None else ()

    @property
    def overridable(self) -> frozenset[str]:
        """Names of the rules an override comment may lift (the user's `allow_override`)."""
        if self.engine is None:
            return frozenset()
        policy = self.engine.policy
        names = {rule.name for rule in policy.rules if policy.allows_override(rule)}
        return frozenset(names | ({"unknown"} & policy.overridable))

    def on_agent_start(self, event: AgentStartEvent, ctx: ExtensionContext) -> None:
        self.agent_loop += 1

    def _context(self, ctx: ExtensionContext) -> Context:
        entries = SessionEntries(self.rein, ctx.session)
        return host_context(self.cwd, self.home, agent_loop=self.agent_loop, entries=entries)

    def on_approval_mode(self, event: ApprovalModeEvent, ctx: ExtensionContext) -> None:
        self._read_only = event.payload == "deny"

    def allowed_by_person(self, call_id: str) -> bool:
        """Whether the person allowed tool call `call_id` when a steering rule asked about it. Answers
        True once per call: the approval extension asks it, so as not to ask the person twice."""
        if call_id not in self._allowed:
            return False
        self._allowed.discard(call_id)
        return True

    def _steers(self, tool: str) -> bool:
        """Whether calls of `tool` go to the engine: bash and the file tools always; any other tool (an
        MCP server's, an extension's) where a rule or an observer names it, or the policy is broken."""
        return self.problem is not None or self.engine is None or self.engine.steers(tool)

    async def on_tool_call(self, event: ToolCallEvent, ctx: ExtensionContext) -> Block | None:
        if not self._steers(event.info.call.name):
            return None
        call = _call(event.info.call.name, event.info.call.arguments)
        subject = _subject(call)
        call_id = event.info.call.id
        if self.problem is not None:
            self.decisions.append(
                Decision(
                    tool=call.tool,
                    subject=subject,
                    allow=False,
                    rule="config@rein",
                    call_id=call_id,
                    outcome="blocked",
                )
            )
            return Block(reason=self.problem)
        assert self.engine is not None
        verdict = self.engine.evaluate(call, self._context(ctx))
        rule, source = verdict.rule, verdict.source
        if verdict.override is not None:
            rule, source = verdict.override.rule, verdict.override.source
        block = None if verdict.allow else Block(reason=verdict.reason)
        outcome: Outcome | None = None if verdict.allow else "blocked"
        if verdict.ask and self._read_only:
            block = Block(reason=f"{verdict.reason} Not run: approve is set to deny, so nobody is asked.")
        elif verdict.ask:
            outcome, block = await _ask(verdict, call, ctx, interactive=self.interactive)
            if block is None and call_id:
                self._allowed.add(call_id)
        self.decisions.append(
            Decision(
                tool=call.tool,
                subject=subject,
                allow=block is None,
                rule=f"{rule}@{source}" if rule and source else rule,
                override=verdict.override is not None,
                asked=verdict.ask and not self._read_only,
                call_id=call_id,
                outcome=outcome,
            )
        )
        return block

    def settle(self, call_id: str, outcome: Outcome) -> None:
        """Record what became of a call steering let through (the approval extension says). A plain
        `allowed` never replaces the person's own yes to a rule that asked."""
        for index in range(len(self.decisions) - 1, -1, -1):
            decision = self.decisions[index]
            if decision.call_id == call_id:
                if outcome != "allowed" or decision.outcome is None:
                    self.decisions[index] = replace(decision, outcome=outcome)
                return

    def _settle_result(self, event: ToolResultEvent) -> None:
        """A result settles a call nobody settled: run (`allowed`), or stopped by a later extension."""
        blocked = bool(event.output.details.get("blocked"))
        for index in range(len(self.decisions) - 1, -1, -1):
            decision = self.decisions[index]
            if decision.call_id == event.info.call.id and event.info.call.id:
                if blocked and decision.outcome not in _NOT_RUN:
                    self.decisions[index] = replace(decision, outcome="blocked")
                elif not blocked and decision.outcome is None:
                    self.decisions[index] = replace(decision, outcome="allowed")
                return

    def on_tool_result(self, event: ToolResultEvent, ctx: ExtensionContext) -> None:
        if not self._steers(event.info.call.name):
            return
        self._settle_result(event)
        if self.engine is None:
            return
        if event.output.details.get("blocked"):
            return
        code = event.output.details.get("exit_code")
        result = ToolResult(
            call=_call(event.info.call.name, event.info.call.arguments),
            exit_code=code if isinstance(code, int) else None,
            output=event.output.text,
            is_error=event.output.is_error,
        )
        self.engine.dispatch(result, self._context(ctx))


async def _ask(
    verdict: Verdict, call: ToolCall, ctx: ExtensionContext, *, interactive: bool
) -> tuple[Outcome, Block | None]:
    """Put a call a rule asks about to the person: what became of it, and the block unless allowed."""
    what = f"run: {call.command}" if call.tool == "bash" else f"{call.tool} {_subject(call)}"
    answer = await ctx.ui.select(f"{verdict.reason}\nAllow the agent to {what}?", ASK_OPTIONS)
    if answer == ALLOW_ONCE:
        return "approved by you", None
    if answer != DENY and not interactive:
        return "blocked", Block(
            reason=f"{verdict.reason} Not run: nobody could answer here (print and JSON modes never ask)."
            " Tell the user what you wanted to run and why."
        )
    if answer != DENY:
        return "dismissed", Block(
            reason=f"{verdict.reason} Not run: the question was dismissed, so nobody approved it. Take"
            " that as a denial: tell the user what you wanted to run and why."
        )
    said = await ctx.ui.input(f"Why deny this {call.tool} call? (the model reads it)", "a reason")
    reason = f" Their reason: {said.strip()}" if said and said.strip() else ""
    return "denied by you", Block(
        reason=f"{verdict.reason} Not run: the user was asked and denied it.{reason}"
    )


def _call(name: str, args: Mapping[str, object]) -> ToolCall:
    def text(key: str) -> str | None:
        value = args.get(key)
        return value if isinstance(value, str) else None

    if name not in TOOLS:  # its arguments are only data (an MCP tool's own `command` is no shell line)
        return ToolCall(tool=name, args=args)
    return ToolCall(
        tool=name,
        command=text("command") or "",
        path=text("path"),
        content=text("content") if name == "write" else text("new_string"),
        args=args,
    )


def _subject(call: ToolCall) -> str:
    """What `/steering` and a question show of a call: the command, the path, or another tool's
    arguments as compact JSON."""
    if call.tool == "bash":
        return call.command
    if call.tool in TOOLS:
        return call.path or ""
    return json.dumps(dict(call.args), separators=(",", ":"), default=str)
