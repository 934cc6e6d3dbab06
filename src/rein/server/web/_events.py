"""What a server-side run's `AgentEvent`s and session notices look like on the page's event stream
(the contract's event types: delta, message, tool, cut, blocked, notice).

    for payload in agent_events(event, rules=last_fired):   # zero or more events per AgentEvent
        bus.publish(payload)
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.agent import AgentEvent, AgentMessage, CustomMessage
from rein.ai import AssistantMessage, JsonValue, TextContent, ToolCall, ToolResultMessage, UserMessage
from rein.html import preview

Event = dict[str, JsonValue]
BLOCK_TAGS = ("[steering:", "[approval]")
"""How the reasons of steering's and approval's blocks start."""
RULE_PREFIX = "stream rule:"
SUBJECT = 100


def role(message: AgentMessage) -> str:
    if isinstance(message, CustomMessage):
        return "custom"
    if isinstance(message, ToolResultMessage):
        return "toolResult"
    return "user" if isinstance(message, UserMessage) else "assistant"


def reply_text(message: AgentMessage | None) -> str:
    """The text of a (cut) reply: its text blocks, else its tool calls' raw arguments."""
    if not isinstance(message, AssistantMessage):
        return ""
    text = "".join(block.text for block in message.content if isinstance(block, TextContent))
    return text or "".join(call.arguments_text for call in message.tool_calls)


def subject(call: ToolCall) -> str:
    """What a call acts on, on one line: its command, else its path."""
    for key in ("command", "path", "pattern"):
        value = call.arguments.get(key)
        if isinstance(value, str):
            return preview(value, SUBJECT)
    return ""


def rules_of(reason: str) -> list[str]:
    """Rule names from a cut's reason (`stream rule: a, b`)."""
    if not reason.startswith(RULE_PREFIX):
        return []
    return [name.strip() for name in reason[len(RULE_PREFIX) :].split(",") if name.strip()]


def agent_events(event: AgentEvent, fired: Sequence[str] = ()) -> list[Event]:
    """The page's events for one loop event; `fired` names the rules of the last `ttsr_triggered`
    notice (the reason names them too, as a fallback)."""
    match event.type:
        case "message_update":
            delta = event.delta
            if delta is None or not delta.delta:
                return []
            out: Event = {"type": "delta", "source": delta.source, "text": delta.delta}
            if delta.tool_name:
                out["toolName"] = delta.tool_name
            return [out]
        case "message_end":
            return [{"type": "message", "role": role(event.message)}] if event.message is not None else []
        case "tool_execution_start" if event.tool_call is not None:
            call = event.tool_call
            return [
                {"type": "tool", "phase": "start", "name": call.name, "id": call.id, "subject": subject(call)}
            ]
        case "tool_execution_end" if event.tool_call is not None:
            call, output = event.tool_call, event.output
            error = output is not None and output.is_error
            code = output.details.get("exit_code") if output is not None else None
            status = f"exit {code}" if isinstance(code, int) else "failed" if error else "done"
            events: list[Event] = [
                {"type": "tool", "phase": "end", "name": call.name, "id": call.id, "isError": error,
                 "subject": subject(call), "status": status}
            ]  # fmt: skip
            if output is not None and (
                output.details.get("blocked") is True or output.text.lstrip().startswith(BLOCK_TAGS)
            ):
                events.append({"type": "blocked", "tool": call.name, "reason": output.text})
            return events
        case "stream_retry":
            names: list[JsonValue] = list(fired or rules_of(event.reason))
            return [
                {"type": "cut", "reason": event.reason, "rules": names, "text": reply_text(event.message)}
            ]
        case "error":
            return [{"type": "notice", "level": "error", "message": event.error}]
        case _:
            return []
