"""Gemini CLI: `BeforeTool` decides shell commands and file tools, `AfterTool` feeds observers.

Fields relied on (google-gemini/gemini-cli `docs/hooks/reference.md`, `docs/tools/shell.md`,
`docs/tools/file-system.md`):
  input, every event   session_id, cwd, hook_event_name
  BeforeTool/AfterTool tool_name, tool_input; AfterTool also tool_response {llmContent, error}
    run_shell_command: command, directory (relative to the project root)
    write_file: file_path, content | replace: file_path, new_string
    read_file: path (file_path, the name the other file tools use, is accepted too)
  The shell tool's result lists `Exit Code: N`; rein reads it from llmContent (unknown if absent).
  output               {decision: "deny", reason} (the reason is sent to the agent as the tool
                       error); an allowed call answers {}. AfterTool and BeforeAgent take the same
                       decision/reason; SessionStart only {systemMessage}.
Exit code: always 0 with JSON on stdout ("preferred for all logic"); stdout carries nothing else.
Agent loop: advances on BeforeAgent (after the user submits a prompt, before planning).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from rein.hooks._run import (
    Answer,
    Event,
    Outcome,
    Payload,
    Request,
    exit_code_in,
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
    tool_input = payload.get("tool_input")
    directory = tool_input.get("directory") if isinstance(tool_input, dict) else None
    return posixpath.normpath(posixpath.join(cwd, directory)) if isinstance(directory, str) else cwd


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
    code = exit_code_in(content) if call.tool == "bash" and isinstance(content, str) else None
    result = ToolResult(
        call=call,
        exit_code=code,
        output=content if isinstance(content, str) else output_text(response),
        is_error=bool(error),
    )
    return Request(session=session, cwd=_cwd(payload, cwd), results=(result,))


def decide(outcome: Outcome) -> Answer:
    """BeforeTool, AfterTool, BeforeAgent: deny with the reason, or an empty object."""
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
