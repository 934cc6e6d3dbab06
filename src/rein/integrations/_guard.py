"""`Guard`: rein's engines for one agent run inside a Python agent framework, framework-agnostic.

    guard = Guard(cwd=".")                      # steering policy and stream rules as rein finds them
    decision = guard.check_tool("bash", {"command": "git push --force"})
    if not decision.allow: ...                  # the framework's way to refuse, with decision.reason
    guard.tool_finished("bash", {...}, output=..., exit_code=0)   # observers ("tests ran")
    Agent(..., tools=[guard.bash])              # a shell tool whose exit codes reach the observers
    watch = guard.watch()                       # one per model call
    cut = watch.feed(delta)                     # a Cut: cancel the call, re-issue it with cut.injection
    guard.budget_check(tokens=...)              # the timebox: None, a nudge or a stop

Each adapter in `rein.integrations.<framework>` maps its framework's hooks onto these calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rein.gitio import host_context
from rein.integrations._shell import run_bash
from rein.integrations._tools import steering_call
from rein.settings import load_settings
from rein.steering import Context, MemoryEntries, Steering, ToolResult, load_policy
from rein.timebox import (
    Budget,
    Nudge,
    SetBudget,
    Stop,
    Usage,
    decide,
    parse_command,
    prompt_warning,
    stop_notice,
)
from rein.ttsr import MatchContext, Rule, RuleMatch, Source, TtsrManager, TtsrSettings, discover_rules


@dataclass(frozen=True, slots=True)
class ToolDecision:
    allow: bool
    reason: str = ""
    """rein's reason when blocked, written for the model to act on."""


@dataclass(frozen=True, slots=True)
class Cut:
    """A stream rule fired: cancel the model call, drop its output, re-issue it with `injection` added
    as a user message."""

    matches: tuple[RuleMatch, ...]
    injection: str


@dataclass(frozen=True, slots=True)
class BudgetSignal:
    """The timebox: `stop` True means end the run now; else `message` is the nudge for the model."""

    stop: bool
    message: str


class Watch:
    """Stream rules on one model call's output. Feed every delta; a `Cut` means cancel and retry."""

    def __init__(self, manager: TtsrManager) -> None:
        self._manager = manager
        manager.reset()

    def feed(
        self,
        delta: str,
        *,
        source: Source = "text",
        tool_name: str | None = None,
        tool_call_id: str | None = None,
        final: bool = False,
    ) -> Cut | None:
        context = MatchContext(source=source, tool_name=tool_name, tool_call_id=tool_call_id)
        matches = tuple(m for m in self._manager.check_delta(delta, context, final=final) if m.interrupt)
        if not matches:
            return None
        self._manager.mark_injected(matches)
        return Cut(matches, self._manager.render_interrupt(matches))

    def check_whole(self, text: str, *, source: Source = "text", tool_name: str | None = None) -> Cut | None:
        """A finished output at once (frameworks that show only complete responses)."""
        return self.feed(text, source=source, tool_name=tool_name, final=True)


class Guard:
    def __init__(
        self,
        cwd: str | Path = ".",
        *,
        home: str | Path | None = None,
        rules: Sequence[Rule] | None = None,
        steering: bool = True,
        stream_rules: bool = True,
        timebox: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`rules`: stream rules to use instead of rein's discovery from `cwd`; `timebox`: a budget as
        `/timebox` takes it (`"15m turns:5 tokens:200k"`)."""
        self.cwd = str(Path(cwd).resolve())
        self.home = str(Path(home).expanduser() if home is not None else Path.home())
        settings = load_settings(Path(self.cwd), Path(self.home))
        self._steering = Steering(load_policy(Path(self.cwd), Path(self.home)).policy) if steering else None
        self._entries = MemoryEntries()
        found = discover_rules(Path(self.cwd), Path(self.home)).rules if rules is None else tuple(rules)
        ttsr = TtsrSettings.from_mapping(settings.get("ttsr", {}))
        self._manager = TtsrManager(found if stream_rules else (), ttsr, root=self.cwd)
        self._clock = clock
        self.turns = 0
        self._budget = _budget(timebox, int(clock() * 1000)) if timebox else None
        self._exit_codes: dict[str, list[int | None]] = {}
        """Exit codes of `bash` calls not yet reported to `tool_finished`, by command."""

    def bash(self, command: str) -> str:
        """Run a bash command in the project directory. Returns its output (stdout and stderr); a
        failing command ends with its exit code."""
        output, code = run_bash(command, cwd=self.cwd)
        self._exit_codes.setdefault(command, []).append(code)
        return output

    def check_tool(
        self, name: str, arguments: Mapping[str, object] | str | None, call_id: str = ""
    ) -> ToolDecision:
        """Whether a tool call may run. Fails closed: a shell tool whose command cannot be read is blocked,
        and so is a call a rule asks about (`verdict = "ask"`): a framework has nobody to ask, and the
        reason says the call needs the user's approval."""
        if self._steering is None:
            return ToolDecision(True)
        try:
            call = steering_call(name, arguments, call_id)
        except ValueError as error:
            return ToolDecision(False, f"[rein] blocked: {error}")
        if call is None:
            return ToolDecision(True)
        verdict = self._steering.evaluate(call, self._context())
        return ToolDecision(verdict.allow, verdict.reason or "")

    def tool_finished(
        self,
        name: str,
        arguments: Mapping[str, object] | str | None,
        *,
        output: str = "",
        exit_code: int | None = None,
        is_error: bool = False,
    ) -> None:
        """Tell steering's observers what a call did (so rules like "tests ran before commit" hold)."""
        if self._steering is None:
            return
        try:
            call = steering_call(name, arguments)
        except ValueError:
            return
        if call is not None and call.tool == "bash" and exit_code is None:
            # The framework does not know it; `bash` (this guard's tool) does, in call order.
            codes = self._exit_codes.get(call.command)
            exit_code = codes.pop(0) if codes else None
        if call is not None:
            result = ToolResult(call=call, exit_code=exit_code, output=output, is_error=is_error)
            self._steering.dispatch(result, self._context())

    def watch(self) -> Watch:
        """Stream rules for the next model call (rules already injected this run do not fire again)."""
        return Watch(self._manager)

    def turn_completed(self) -> None:
        self.turns += 1
        self._manager.turn_completed()

    def budget_check(self, *, tokens: int = 0) -> BudgetSignal | None:
        """The timebox now: None while under 80 percent, a nudge once, then a stop at 100 percent."""
        if self._budget is None:
            return None
        now, usage = int(self._clock() * 1000), Usage(user_messages=self.turns, tokens=tokens)
        decision = decide(self._budget, now=now, usage=usage)
        if isinstance(decision, Stop):
            return BudgetSignal(True, stop_notice(decision, self._budget))
        if isinstance(decision, Nudge):
            self._budget = replace(self._budget, soft_nudge_sent=True)
            return BudgetSignal(False, prompt_warning(self._budget, now=now, usage=usage))
        return None

    def _context(self) -> Context:
        return host_context(self.cwd, self.home, entries=self._entries)


def _budget(text: str, now: int) -> Budget:
    command = parse_command(text)
    if not isinstance(command, SetBudget):
        raise ValueError(f"timebox {text!r}: not a budget")
    return Budget(
        time_limit_ms=command.time_limit_ms,
        turn_limit=command.turn_limit,
        token_limit=command.token_limit,
        start_time=now,
        on_stop_command=command.on_stop_command,
    )
