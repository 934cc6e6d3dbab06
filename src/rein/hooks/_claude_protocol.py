"""The hook protocol Claude Code defined and Codex adopted: tool-call requests and the answers.

Both `rein.hooks.claude` and `rein.hooks.codex` build their events from these. They live apart from
`rein.hooks.claude` because that module adds the timebox (`_claude_timebox`), which a Codex hook,
a fresh process per tool call, has no use for and should not pay to import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rein.hooks._run import Answer, Outcome, Payload, Request, json_line, session_where
from rein.steering import ToolCall


def before(tool_calls: Callable[[Payload], tuple[ToolCall, ...]]) -> Callable[[Payload], Request]:
    """The PreToolUse parser: the calls `tool_calls` reads from the event, where it happens."""

    def parse(payload: Payload) -> Request:
        session, cwd = session_where(payload)
        return Request(session=session, cwd=cwd, calls=tool_calls(payload))

    return parse


def deny(outcome: Outcome) -> Answer:
    """PreToolUse: silence allows (the host's own permission flow goes on); a block denies, and so
    does an ask (for a host whose PreToolUse cannot ask: Codex)."""
    return _decision("deny", outcome.reason) if outcome.block else Answer()


def ask_or_deny(outcome: Outcome) -> Answer:
    """PreToolUse: as `deny`, but an ask hands the call to the host's permission prompt ("ask"), its
    reason shown there (Claude Code)."""
    if not outcome.block:
        return Answer()
    return _decision("ask" if outcome.ask else "deny", outcome.reason)


def _decision(decision: str, reason: str) -> Answer:
    specific: Mapping[str, object] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    }
    return Answer(stdout=json_line({"hookSpecificOutput": specific}))


def block_on_failure(outcome: Outcome) -> Answer:
    """Events that can block but have nothing to decide: block only when rein failed."""
    return Answer(stdout=json_line({"decision": "block", "reason": outcome.reason}) if outcome.failed else "")


def notify_on_failure(outcome: Outcome) -> Answer:
    """Events that cannot block (or where blocking would keep the agent running): tell the user."""
    return Answer(stdout=json_line({"systemMessage": outcome.reason}) if outcome.failed else "")
