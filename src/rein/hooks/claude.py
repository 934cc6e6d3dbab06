"""Claude Code: `PreToolUse` decides Bash, Write, Edit, MultiEdit, Read and MCP tools; the other events
feed state.

Fields relied on (Claude Code hooks reference, code.claude.com/docs/en/hooks, as summarized by the
claudetto wiki page "Claude Code Hooks Events Tool", the hex.pm `claude_code` PreToolUse output, and
the developersdigest.tech PostToolUse guide "fires after a successful tool call"):
  input, every event   session_id, cwd, hook_event_name
  tool events          tool_name, tool_input, tool_use_id; tool_response (PostToolUse)
    Bash: command | Write: file_path, content | Edit: file_path, new_string
    MultiEdit: file_path, edits[].new_string | Read: file_path
    MCP tools: tool_name `mcp__<server>__<tool>`, tool_input the tool's arguments
  PostToolUse fires after a call that succeeded, so a Bash result there exited 0; PostToolUseFailure
  after one that failed, with `error` (no `tool_response`). For a Bash command that exited non-zero,
  `error` starts with the code: `"Exit code 1"`, `"Exit code 128\nfatal: ..."` (captured from Claude
  Code 2.1.330, tests/hooks/payloads/claude/). Any other failure (an interrupt, a denial) has no
  exit code, so observers that require one do not fire.
  output               PreToolUse: hookSpecificOutput {hookEventName, permissionDecision: "deny",
                       permissionDecisionReason} (the reason is shown to Claude); for a rule that
                       asks, permissionDecision: "ask" (Claude Code shows its permission prompt with
                       the reason; a yes runs the call). In print mode (`claude -p`) nobody answers:
                       Claude Code 2.1.330 does not run the call and sends the reason to Claude as the
                       tool's error, even with the tool in --allowedTools (tests/hosts/test_claude.py)
                       PostToolUse(Failure), UserPromptSubmit: {decision: "block", reason}
                       SessionStart, Stop: {systemMessage} (shown to the user; they cannot block)
Exit code: always 0 with JSON on stdout, the structured path. An allowed call prints nothing, so
Claude's own permission rules and prompts still apply (an explicit "allow" would skip them).
Agent loop: advances on UserPromptSubmit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from rein.hooks._claude_protocol import ask_or_deny, before, block_on_failure, notify_on_failure
from rein.hooks._claude_timebox import timeboxed
from rein.hooks._run import (
    Event,
    Payload,
    Request,
    mapping,
    optional_text,
    output_text,
    plain,
    session_where,
    text,
)
from rein.hooks.errors import PayloadError
from rein.steering import ToolCall, ToolResult

STEERED = ("Bash", "Write", "Edit", "MultiEdit", "Read")
MCP = "mcp__"
"""Claude Code's MCP tools are `mcp__<server>__<tool>`: rein's rules name them the same way."""


def _edits(tool_input: Payload) -> str:
    edits = tool_input.get("edits")
    if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
        raise PayloadError("`tool_input.edits` must be a list of objects")
    return "\n".join(
        text(edit, "new_string", "tool_input.edits[].") for edit in edits if edit.get("new_string")
    )


def tool_calls(payload: Payload) -> tuple[ToolCall, ...]:
    """The call in a tool event, or none for a tool rein does not steer (web fetch, tasks...). An MCP
    tool (`mcp__<server>__<tool>`) is passed by its name, with `tool_input` as its arguments."""
    name = text(payload, "tool_name")
    if name not in STEERED and not name.startswith(MCP):
        return ()
    tool_input = mapping(payload, "tool_input")
    ident = optional_text(payload, "tool_use_id") or ""
    if name.startswith(MCP):
        return (ToolCall(tool=name, args=tool_input, id=ident),)
    if name == "Bash":
        return (ToolCall(tool="bash", command=text(tool_input, "command", "tool_input."), id=ident),)
    path = text(tool_input, "file_path", "tool_input.")
    if name == "Read":
        return (ToolCall(tool="read", path=path, id=ident),)
    if name == "Write":
        content = optional_text(tool_input, "content", "tool_input.")
        return (ToolCall(tool="write", path=path, content=content or "", id=ident),)
    content = (
        _edits(tool_input) if name == "MultiEdit" else optional_text(tool_input, "new_string", "tool_input.")
    )
    return (ToolCall(tool="edit", path=path, content=content or "", id=ident),)


_EXIT = re.compile(r"Exit code (\d+)(?:\n|$)")


def failed_exit_code(error: str) -> int | None:
    """The exit code at the start of PostToolUseFailure's `error`, or None (not a command's exit)."""
    found = _EXIT.match(error)
    return int(found.group(1)) if found else None


def results(calls: tuple[ToolCall, ...], payload: Payload, *, succeeded: bool) -> tuple[ToolResult, ...]:
    """A Bash result's exit code: 0 after PostToolUse, the one `error` names after PostToolUseFailure."""
    code: int | None = 0
    if succeeded:
        output = output_text(payload.get("tool_response"))
    else:
        output = optional_text(payload, "error") or ""
        code = failed_exit_code(output)
    return tuple(
        ToolResult(
            call=call,
            exit_code=code if call.tool == "bash" else None,
            output=output,
            is_error=not succeeded,
        )
        for call in calls
    )


def _after(*, succeeded: bool) -> Callable[[Payload], Request]:
    """PostToolUse (the call succeeded) and PostToolUseFailure: the results, for observers."""

    def parse(payload: Payload) -> Request:
        session, cwd = session_where(payload)
        found = results(tool_calls(payload), payload, succeeded=succeeded)
        return Request(session=session, cwd=cwd, results=found)

    return parse


EVENTS: Mapping[str, Event] = {
    "pre-tool-use": Event(name="PreToolUse", kind="before", parse=before(tool_calls), render=ask_or_deny),
    "post-tool-use": Event(
        name="PostToolUse", kind="after", parse=_after(succeeded=True), render=block_on_failure
    ),
    "post-tool-use-failure": Event(
        name="PostToolUseFailure", kind="after", parse=_after(succeeded=False), render=block_on_failure
    ),
    "session-start": Event(name="SessionStart", kind="start", parse=plain(), render=notify_on_failure),
    "user-prompt-submit": Event(
        name="UserPromptSubmit", kind="prompt", parse=plain(), render=block_on_failure
    ),
    "stop": Event(name="Stop", kind="stop", parse=plain(), render=notify_on_failure),
}

# The timebox (`$timebox 15m` prompts, turn counting, the nudge, the hard stop) rides on the same
# events; it only adds to the answers above. See rein.hooks._claude_timebox.
EVENTS = timeboxed(EVENTS)
