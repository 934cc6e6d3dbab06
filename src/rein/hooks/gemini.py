"""Gemini CLI: `BeforeTool` decides shell, file and MCP tools, `AfterTool` feeds observers.

Fields relied on (google-gemini/gemini-cli `docs/hooks/reference.md`, `docs/tools/shell.md`,
`docs/tools/file-system.md`):
  input, every event   session_id, cwd, hook_event_name
  BeforeTool/AfterTool tool_name, tool_input; AfterTool also tool_response {llmContent, error}
    run_shell_command: command, directory (relative to the project root)
    write_file: file_path, content | replace: file_path, new_string
    read_file: path (file_path, the name the other file tools use, is accepted too)
    MCP tools: `mcp_<server>_<tool>` (0.34 on, `packages/core/src/tools/mcp-tool.ts`), tool_input
    the arguments, and `mcp_context` {server_name, tool_name, ...}: passed to steering as
    `mcp__<server>__<tool>` (rein.hooks._mcp)
  The shell tool's llmContent (0.61.0: `Output: ...`, then `Error:`, `Exit Code: N`, `Signal:`,
  `Background PIDs:`, `Process Group PGID:` lines, each only when it applies, all inside
  `<untrusted_context>`) names an exit code only when it is not 0: see `exit_code`.
  output               {decision: "deny", reason} (the reason is sent to the agent as the tool
                       error); an allowed call answers {}. AfterTool and BeforeAgent take the same
                       decision/reason; SessionStart only {systemMessage}.
                       A rule that asks denies too. 0.61.0 does take an undocumented
                       {decision: "ask"} (`isAskDecision`: it forces its confirmation prompt), but
                       headless (`gemini -p --yolo`) nobody answers that prompt and the run hangs
                       (tests/hosts/test_gemini.py), and a hook cannot tell the two modes apart.
Exit code: always 0 with JSON on stdout ("preferred for all logic"); stdout carries nothing else.
  (0.61.0 runs the call when a hook exits 1, prints something other than JSON, or outlives its
  `timeout`; only exit 2 blocks, with stderr as the reason: tests/hosts/test_gemini.py.)
Agent loop: advances on BeforeAgent (after the user submits a prompt, before planning).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from rein.hooks._mcp import arguments, gemini_name
from rein.hooks._run import (
    Answer,
    Event,
    Outcome,
    Payload,
    Request,
    json_line,
    mapping,
    optional_text,
    output_text,
    plain,
    session_where,
    text,
)
from rein.steering import ToolCall, ToolResult

_INPUT = "tool_input."


def tool_call(payload: Payload) -> ToolCall | None:
    name = text(payload, "tool_name")
    if mcp := gemini_name(name, payload.get("mcp_context")):
        return ToolCall(tool=mcp, args=arguments(payload.get("tool_input")))
    if name not in ("run_shell_command", "write_file", "replace", "read_file"):
        return None
    tool_input = mapping(payload, "tool_input")
    if name == "run_shell_command":
        return ToolCall(tool="bash", command=text(tool_input, "command", _INPUT))
    if name == "read_file":
        key = "path" if "path" in tool_input else "file_path"
        return ToolCall(tool="read", path=text(tool_input, key, _INPUT))
    path = text(tool_input, "file_path", _INPUT)
    key = "content" if name == "write_file" else "new_string"
    content = optional_text(tool_input, key, _INPUT) or ""
    return ToolCall(tool="write" if name == "write_file" else "edit", path=path, content=content)


def _cwd(payload: Payload, cwd: str) -> str:
    """A shell command runs in `directory`, relative to the project root, when the model names one."""
    tool_input = payload.get("tool_input") if payload.get("tool_name") == "run_shell_command" else None
    directory = tool_input.get("directory") if isinstance(tool_input, dict) else None
    return posixpath.normpath(posixpath.join(cwd, directory)) if isinstance(directory, str) else cwd


_WRAPPER = re.compile(r"\A\s*<untrusted_context[^>]*>\n?(.*?)\n?</untrusted_context>\s*\Z", re.DOTALL)
_TRAILER = re.compile(r"(Process Group PGID: \d+|Background PIDs: [\d, ]*|Signal: .*|Exit Code: (-?\d+))")


def exit_code(content: str, *, error: bool) -> int | None:
    """The exit code of a shell command from Gemini CLI's result text, or None when it cannot tell.

    Gemini CLI appends its own lines after the command's output, in a fixed order, so they are read
    from the end (an `Exit Code: 0` the command printed itself is never mistaken for one): an
    `Exit Code: N` line is N; none, in a result that ran (`Output:` first, a process group named) with
    no `Error:` or `Signal:` line and no tool error, is 0. A cancelled, timed-out or backgrounded
    command (no `Output:` or, before 0.61, `Command:` first), a signal or an error is unknown, so
    observers that require an exit code do not fire."""
    wrapped = _WRAPPER.match(content)
    lines = (wrapped.group(1) if wrapped else content).split("\n")
    if not lines[0].startswith(("Output:", "Command:")):
        return None
    ran = False
    while len(lines) > 1 and (line := _TRAILER.fullmatch(lines[-1])):
        if line.group(2) is not None:
            return int(line.group(2))
        if lines[-1].startswith("Signal:") and lines[-1] != "Signal: (none)":
            return None
        ran = ran or lines[-1].startswith("Process Group PGID:")
        lines.pop()
    return 0 if ran and not error and not lines[-1].startswith("Error:") else None


def _before(payload: Payload) -> Request:
    session, cwd = session_where(payload)
    call = tool_call(payload)
    return Request(session=session, cwd=_cwd(payload, cwd), calls=(call,) if call else ())


def _after(payload: Payload) -> Request:
    session, cwd = session_where(payload)
    call = tool_call(payload)
    if call is None:
        return Request(session=session, cwd=cwd)
    response = payload.get("tool_response")
    content = response.get("llmContent") if isinstance(response, dict) else None
    error = response.get("error") if isinstance(response, dict) else None
    code = exit_code(content, error=bool(error)) if call.tool == "bash" and isinstance(content, str) else None
    result = ToolResult(
        call=call,
        exit_code=code,
        output=content if isinstance(content, str) else output_text(response),
        is_error=bool(error),
    )
    return Request(session=session, cwd=_cwd(payload, cwd), results=(result,))


def decide(outcome: Outcome) -> Answer:
    """BeforeTool, AfterTool, BeforeAgent: deny with the reason (an ask too), or an empty object."""
    answer = {"decision": "deny", "reason": outcome.reason} if outcome.block else {}
    return Answer(stdout=json_line(answer))


def notify(outcome: Outcome) -> Answer:
    return Answer(stdout=json_line({"systemMessage": outcome.reason} if outcome.failed else {}))


EVENTS: Mapping[str, Event] = {
    "before-tool": Event(name="BeforeTool", kind="before", parse=_before, render=decide),
    "after-tool": Event(name="AfterTool", kind="after", parse=_after, render=decide),
    "before-agent": Event(name="BeforeAgent", kind="prompt", parse=plain(), render=decide),
    "session-start": Event(name="SessionStart", kind="start", parse=plain(), render=notify),
}
