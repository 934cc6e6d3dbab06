"""Cursor: `beforeShellExecution`, `beforeMCPExecution` and `beforeReadFile` decide; the after events
feed observers.

Fields relied on (cursor.com/docs/agent/hooks, as typed by the `cursor-hooks` package
(johnlindquist/cursor-hooks `src/types.ts`) and listed in Cupcake's Cursor reference):
  input, every event    conversation_id (the session), hook_event_name, workspace_roots
  beforeShellExecution  command, cwd        afterShellExecution: command, cwd, output
  beforeReadFile        file_path           afterFileEdit: file_path, edits[].new_string
  beforeMCPExecution    tool_name (the MCP tool's own name), tool_input (the arguments, as a JSON
                        string or an object), url (an HTTP server) or command (a stdio server's
                        command line); afterMCPExecution adds result_json. No server name: rein
                        finds it in mcp.json by url or command (rein.hooks._mcp.cursor_name)
  beforeSubmitPrompt    (the prompt; nothing rein reads)
  output                beforeShellExecution and beforeMCPExecution: {permission: "allow" | "deny" |
                        "ask", user_message, agent_message}; Cursor 1.7's documentation spells the
                        messages userMessage and agentMessage, so both spellings are sent. "ask"
                        (a rule that asks) has Cursor ask the person, the reason shown ("Hook
                        requested approval: ..."); a Cursor forum report (3.21.16) says Auto-review
                        mode runs such a command without asking, while Allowlist and Run
                        Everything modes ask
                        beforeReadFile: {permission: "allow" | "deny"} only, so an ask denies there
                        beforeSubmitPrompt: {continue}
                        after events: {} (Cursor does not wait on them; nothing can block)
  Cursor reports no exit code after a shell command: observers that require one do not fire.
  Cursor has no hook before a file edit, so `write`/`edit` rules cannot block there.
Exit code: 0 with JSON on stdout; 1 (a failed hook, logged by Cursor) when an after event fails.
Agent loop: advances on beforeSubmitPrompt.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path

from rein.hooks._mcp import arguments, cursor_name
from rein.hooks._run import (
    Answer,
    Event,
    Outcome,
    Payload,
    Request,
    absolute,
    json_line,
    optional_text,
    plain,
    text,
)
from rein.hooks.errors import PayloadError
from rein.steering import ToolCall, ToolResult


def _where(payload: Payload) -> tuple[str, str]:
    """The conversation id, and the cwd: the command's own, else the first workspace root."""
    session = text(payload, "conversation_id")
    cwd = optional_text(payload, "cwd")
    if cwd:
        return session, absolute(cwd, "cwd")
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return session, absolute(roots[0], "workspace_roots[0]")
    raise PayloadError("neither `cwd` nor `workspace_roots` names the directory")


def _shell(payload: Payload) -> Request:
    session, cwd = _where(payload)
    return Request(session=session, cwd=cwd, calls=(ToolCall(tool="bash", command=text(payload, "command")),))


def _read(payload: Payload) -> Request:
    session, cwd = _where(payload)
    path = posixpath.join(cwd, text(payload, "file_path"))
    return Request(session=session, cwd=cwd, calls=(ToolCall(tool="read", path=path),))


def _roots(payload: Payload) -> list[str]:
    roots = payload.get("workspace_roots")
    return [root for root in roots if isinstance(root, str)] if isinstance(roots, list) else []


def _mcp_call(payload: Payload) -> ToolCall:
    """An MCP call by rein's name for it; Cursor's HOME is the hook's, so `~/.cursor/mcp.json` is."""
    name = cursor_name(payload, _roots(payload), Path.home())
    return ToolCall(tool=name, args=arguments(payload.get("tool_input")))


def _mcp(payload: Payload) -> Request:
    session, cwd = _where(payload)
    return Request(session=session, cwd=cwd, calls=(_mcp_call(payload),))


def _mcp_done(payload: Payload) -> Request:
    session, cwd = _where(payload)
    output = optional_text(payload, "result_json") or ""
    return Request(session=session, cwd=cwd, results=(ToolResult(call=_mcp_call(payload), output=output),))


def _shell_done(payload: Payload) -> Request:
    session, cwd = _where(payload)
    call = ToolCall(tool="bash", command=text(payload, "command"))
    output = optional_text(payload, "output") or ""
    return Request(session=session, cwd=cwd, results=(ToolResult(call=call, exit_code=None, output=output),))


def _edited(payload: Payload) -> Request:
    session, cwd = _where(payload)
    edits = payload.get("edits", [])
    if not isinstance(edits, list) or not all(isinstance(edit, dict) for edit in edits):
        raise PayloadError("`edits` must be a list of objects")
    added = "\n".join(edit["new_string"] for edit in edits if isinstance(edit.get("new_string"), str))
    call = ToolCall(tool="edit", path=posixpath.join(cwd, text(payload, "file_path")), content=added)
    return Request(session=session, cwd=cwd, results=(ToolResult(call=call),))


def permission(outcome: Outcome) -> Answer:
    """beforeShellExecution and beforeMCPExecution: allow, deny, or ask the person (a rule that asks),
    with the reason."""
    if not outcome.block:
        return Answer(stdout=json_line({"permission": "allow"}))
    reason = outcome.reason
    return Answer(
        stdout=json_line(
            {
                "permission": "ask" if outcome.ask else "deny",
                "user_message": reason,
                "agent_message": reason,
                "userMessage": reason,
                "agentMessage": reason,
            }
        )
    )


def read_permission(outcome: Outcome) -> Answer:
    return Answer(stdout=json_line({"permission": "deny" if outcome.block else "allow"}))


def observed(outcome: Outcome) -> Answer:
    return Answer(stdout=json_line({}), code=1 if outcome.failed else 0)


def proceed(outcome: Outcome) -> Answer:
    if not outcome.failed:
        return Answer(stdout=json_line({"continue": True}))
    reason = outcome.reason
    return Answer(stdout=json_line({"continue": False, "user_message": reason, "userMessage": reason}))


EVENTS: Mapping[str, Event] = {
    "before-shell-execution": Event(
        name="beforeShellExecution", kind="before", parse=_shell, render=permission
    ),
    "before-mcp-execution": Event(name="beforeMCPExecution", kind="before", parse=_mcp, render=permission),
    "before-read-file": Event(name="beforeReadFile", kind="before", parse=_read, render=read_permission),
    "after-shell-execution": Event(
        name="afterShellExecution", kind="after", parse=_shell_done, render=observed
    ),
    "after-mcp-execution": Event(name="afterMCPExecution", kind="after", parse=_mcp_done, render=observed),
    "after-file-edit": Event(name="afterFileEdit", kind="after", parse=_edited, render=observed),
    "before-submit-prompt": Event(
        name="beforeSubmitPrompt", kind="prompt", parse=plain(_where), render=proceed
    ),
}
