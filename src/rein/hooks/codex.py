"""OpenAI Codex CLI: Claude's hook schema, answered with only the fields Codex accepts.

Fields relied on (openai/codex `codex-rs/hooks/schema/generated/*.command.{input,output}.schema.json`,
`codex-rs/hooks/src/engine/output_parser.rs`, `codex-rs/hooks/src/events/pre_tool_use.rs`):
  input, every event   session_id, cwd, hook_event_name
  PreToolUse           tool_name, tool_input, tool_use_id; shell-like tools (`Bash`, `apply_patch`)
                       pass tool_input {command}: the command line, or the patch text; MCP tools
                       `mcp__<server>__<tool>` with the call's JSON arguments
                       (`codex-rs/core/src/tools/handlers/mcp.rs`, `hook_tool_name`)
  PostToolUse          the same, plus tool_response and transcript_path. Codex 0.169's shell
                       (`exec_command`) sends bare output as tool_response, with no exit code, pass or
                       fail; the exit code is read from the session's rollout at transcript_path (an
                       `item_completed` event of a `CommandExecution` whose id is tool_use_id, written
                       before the hook runs), else from an `exit_code` field or an `Exit code: N` line
                       in tool_response; `codex exec --ephemeral` writes no rollout (transcript_path
                       null), so there it is unknown
  output               PreToolUse: hookSpecificOutput {hookEventName, permissionDecision: "deny",
                       permissionDecisionReason}; Codex ignores (reports as invalid) "ask" and an
                       "allow" without updatedInput, so an allowed call prints nothing, and a rule
                       that asks denies: Codex 0.169 reports "PreToolUse hook returned unsupported
                       permissionDecision:ask" (`output_parser.rs`) and runs the call. (Its
                       PermissionRequest hook only answers a prompt Codex already decided to show.)
                       PostToolUse, UserPromptSubmit: {decision: "block", reason}
                       SessionStart, Stop: {systemMessage}
  The output schemas set additionalProperties: false: any other field makes Codex drop the answer.
Exit code: always 0 with JSON on stdout. Codex 0.169 runs the call when a hook exits 1 or outlives
its `timeout` ("Failed"), or prints text that is not JSON; exit 2 blocks with stderr as the reason
(tests/hosts/test_codex.py). So a crash must never be the way rein says no.
Agent loop: advances on UserPromptSubmit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from rein.hooks._claude_protocol import before, block_on_failure, deny, notify_on_failure
from rein.hooks._mcp import PREFIX, arguments
from rein.hooks._run import (
    Event,
    Payload,
    Request,
    exit_code_in,
    mapping,
    optional_text,
    output_text,
    plain,
    session_where,
    text,
)
from rein.hooks.errors import PayloadError
from rein.steering import ToolCall, ToolResult

_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")


def patch_calls(patch: str, ident: str) -> tuple[ToolCall, ...]:
    """One call per file an `apply_patch` patch touches: Add and Delete as `write`, Update as `edit`
    (and its `Move to:` target as a `write`), with the added lines as content."""
    files: list[tuple[str, str, list[str]]] = []
    for line in patch.splitlines():
        if found := _FILE.match(line):
            tool = "edit" if found.group(1) == "Update" else "write"
            files.append((tool, found.group(2).strip(), []))
        elif (moved := _MOVE.match(line)) and files:
            files.append(("write", moved.group(1).strip(), files[-1][2]))
        elif line.startswith("+") and files:
            files[-1][2].append(line[1:])
    if not files:
        raise PayloadError("`tool_input.command` of apply_patch names no file (`*** Update File: ...`)")
    return tuple(
        ToolCall(tool=tool, path=path, content="\n".join(added), id=ident) for tool, path, added in files
    )


def tool_calls(payload: Payload) -> tuple[ToolCall, ...]:
    """The shell call, the files of a patch, or an MCP call (passed by its name, as rein names it)."""
    name = text(payload, "tool_name")
    ident = optional_text(payload, "tool_use_id") or ""
    if name.startswith(PREFIX):
        return (ToolCall(tool=name, args=arguments(payload.get("tool_input")), id=ident),)
    if name not in ("Bash", "apply_patch"):
        return ()
    command = text(mapping(payload, "tool_input"), "command", "tool_input.")
    if name == "Bash":
        return (ToolCall(tool="bash", command=command, id=ident),)
    return patch_calls(command, ident)


_ROLLOUT_TAIL = 1 << 20
"""Bytes read from the end of a rollout: the call just finished, and rollouts grow long."""


def rollout_exit_code(path: object, call_id: str) -> int | None:
    """The exit code Codex recorded for shell call `call_id` in the rollout at `path`, or None (no
    rollout, no such event, an unreadable file)."""
    if not isinstance(path, str) or not path or not call_id:
        return None
    try:
        with Path(path).open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - _ROLLOUT_TAIL))
            lines = file.read().splitlines()
    except OSError:
        return None
    needle = json.dumps(call_id).encode()
    for raw in reversed(lines):
        if needle not in raw or b'"item_completed"' not in raw:
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        event = line.get("payload") if isinstance(line, dict) else None
        item = event.get("item") if isinstance(event, dict) else None
        if isinstance(item, dict) and item.get("type") == "CommandExecution" and item.get("id") == call_id:
            code = item.get("exit_code")
            return code if isinstance(code, int) and not isinstance(code, bool) else None
    return None


def exit_code(payload: Payload, response: object) -> int | None:
    """A shell call's exit code, from wherever this Codex carries it; None when it carries none."""
    code = rollout_exit_code(payload.get("transcript_path"), optional_text(payload, "tool_use_id") or "")
    if code is not None:
        return code
    field = response.get("exit_code") if isinstance(response, dict) else None
    if isinstance(field, int) and not isinstance(field, bool):
        return field
    return exit_code_in(response) if isinstance(response, str) else None


def _after(payload: Payload) -> Request:
    session, cwd = session_where(payload)
    response = payload.get("tool_response")
    output = output_text(response)
    calls = tool_calls(payload)
    code = exit_code(payload, response) if any(call.tool == "bash" for call in calls) else None
    results = tuple(
        ToolResult(call=call, exit_code=code if call.tool == "bash" else None, output=output)
        for call in calls
    )
    return Request(session=session, cwd=cwd, results=results)


EVENTS: Mapping[str, Event] = {
    "pre-tool-use": Event(name="PreToolUse", kind="before", parse=before(tool_calls), render=deny),
    "post-tool-use": Event(name="PostToolUse", kind="after", parse=_after, render=block_on_failure),
    "session-start": Event(name="SessionStart", kind="start", parse=plain(), render=notify_on_failure),
    "user-prompt-submit": Event(
        name="UserPromptSubmit", kind="prompt", parse=plain(), render=block_on_failure
    ),
    "stop": Event(name="Stop", kind="stop", parse=plain(), render=notify_on_failure),
}
