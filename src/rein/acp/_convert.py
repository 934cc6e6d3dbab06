"""rein's values as ACP values: tool calls, tool results, a session's history, the prompt and commands.

Plain functions, no I/O: the bridge (`_bridge`) decides when each update is sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from acp import (
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.helpers import start_tool_call
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AudioContentBlock,
    AvailableCommand,
    AvailableCommandsUpdate,
    CurrentModeUpdate,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    SessionMode,
    SessionModeState,
    TextContentBlock,
    TextResourceContents,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
    UserMessageChunk,
)

from rein.agent import AgentMessage, CustomMessage, ToolOutput
from rein.ai import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserMessage
from rein.builtins.approval import MEANING, MODES, ApproveMode
from rein.extensions import Command

PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)
Update = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AvailableCommandsUpdate
    | CurrentModeUpdate
)

NOTICE = "[rein]"
MODE_NAMES: Mapping[ApproveMode, str] = {"ask": "Ask", "auto": "Auto", "deny": "Read only"}
"""rein's approval modes (`/approve`) as the editor names them; ACP's "session modes"."""
"""The prefix of what rein itself says in the editor's transcript (not the model)."""

KINDS: Mapping[str, ToolKind] = {
    "read": "read",
    "write": "edit",
    "edit": "edit",
    "bash": "execute",
    "grep": "search",
    "find": "search",
    "ls": "search",
}


def tool_title(call: ToolCall) -> str:
    """What the editor shows for a call: the command for bash, the path for file tools."""
    args = call.arguments
    command = args.get("command")
    if call.name == "bash" and isinstance(command, str):
        return command
    path = args.get("path") or args.get("pattern")
    if isinstance(path, str):
        return f"{call.name} {path}"
    return f"{call.name} {json.dumps(dict(args), default=str)[:120]}"


def tool_start(call: ToolCall, cwd: str) -> ToolCallStart:
    """The `tool_call` update for a call the model made: pending until it runs (or is blocked)."""
    path = call.arguments.get("path")
    locations = (
        [ToolCallLocation(path=str(Path(cwd, path)))]
        if isinstance(path, str) and call.name != "bash"
        else None
    )
    return start_tool_call(
        call.id,
        tool_title(call),
        kind=KINDS.get(call.name, "other"),
        status="pending",
        locations=locations,
        raw_input=dict(call.arguments),
    )


def tool_running(call_id: str, output: ToolOutput | None = None) -> ToolCallProgress:
    """A call that runs now, with its latest output when it reported some."""
    content = [tool_content(text_block(output.text))] if output is not None and output.text else None
    return update_tool_call(call_id, status="in_progress", content=content)


def tool_end(call_id: str, output: ToolOutput) -> ToolCallProgress:
    """A call that ended: completed, or failed (an error, a block) with what the model reads."""
    return update_tool_call(
        call_id,
        status="failed" if output.is_error else "completed",
        content=[tool_content(text_block(output.text))] if output.text else None,
        raw_output=output.text,
    )


def blocked(output: ToolOutput) -> bool:
    """A call a `tool_call` handler (steering, approval, an extension) refused: it never ran."""
    return output.details.get("blocked") is True


def notice(text: str) -> AgentMessageChunk:
    """rein's own word in the transcript, on a paragraph of its own."""
    return update_agent_message_text(f"\n\n{NOTICE} {text}\n\n")


def prompt_text(blocks: Sequence[PromptBlock]) -> str:
    """The user's prompt as rein's one text: text blocks as they are, a linked file by its URI, an
    embedded text resource with its URI and text. Images and audio are not advertised, so not sent."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"@{block.uri}")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                parts.append(f"@{resource.uri}:\n```\n{resource.text}\n```")
            else:
                parts.append(f"@{resource.uri}")
    return "\n".join(parts).strip()


def commands(registered: Mapping[str, Command]) -> list[AvailableCommand]:
    """rein's `/commands` (built-in and extensions'), for the editor's slash menu."""
    return [
        AvailableCommand(name=name, description=command.description or name)
        for name, command in sorted(registered.items())
    ]


def modes(current: ApproveMode) -> SessionModeState:
    """rein's approval modes as the session's modes (the editor's mode picker)."""
    available = [
        SessionMode(id=mode, name=MODE_NAMES[mode], description=MEANING[mode][0].upper() + MEANING[mode][1:])
        for mode in MODES
    ]
    return SessionModeState(current_mode_id=current, available_modes=available)


def replay(messages: Sequence[AgentMessage], cwd: str) -> Iterator[Update]:
    """A loaded session's branch as the updates that would have shown it: the user's prompts, the
    replies (thinking, text), each tool call with its result. Hidden custom messages (stream-rule
    injections) are left out, as in rein's own UI."""
    calls: dict[str, ToolCall] = {}
    for message in messages:
        if isinstance(message, UserMessage):
            yield update_user_message_text(message.text)
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, TextContent) and block.text:
                    yield update_agent_message_text(block.text)
                elif isinstance(block, ThinkingContent) and block.thinking:
                    yield update_agent_thought_text(block.thinking)
                elif isinstance(block, ToolCall):
                    calls[block.id] = block
                    yield tool_start(block, cwd)
        elif isinstance(message, ToolResultMessage):
            if message.tool_call_id in calls:
                yield tool_end(message.tool_call_id, ToolOutput(text=message.text, is_error=message.is_error))
        elif isinstance(message, CustomMessage) and message.display:
            yield notice(message.content)
