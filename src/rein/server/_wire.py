"""Messages and stream events on the wire: pi-ai's JSON (the fork's client) <-> rein's `Message`.

pi's shape: roles `user`, `assistant`, `toolResult`; blocks `text`, `image` (`mimeType`), `thinking`
(`thinkingSignature`, `redacted`), `toolCall` (`arguments`); camelCase fields (`stopReason` with
`toolUse`, `toolCallId`, `isError`, `errorMessage`, `responseId`; usage `cacheRead`, `cacheWrite`,
`totalTokens`, `cost`). rein's own message JSON (`message_to_json`, role `tool_result`) is accepted too.
What rein keeps and pi has no field for (a tool call's raw argument text, its decoding error) travels
as extra keys pi ignores (`rawArguments`, `argumentsError`), so rein -> pi -> rein is the identity.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import assert_never

from rein.agent import to_llm
from rein.ai import (
    AssistantContent,
    AssistantEvent,
    AssistantMessage,
    DoneEvent,
    ErrorEvent,
    ImageContent,
    JsonValue,
    Message,
    MessageFormatError,
    StartEvent,
    StopReason,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultMessage,
    Usage,
    UserContent,
    UserMessage,
    message_from_json,
    message_to_json,
)
from rein.server._errors import ProtocolError
from rein.server._surrogates import model_safe
from rein.session import PI_KEYS, Entry, Malformed, build_context, decode_entry, to_agent_message

_TO_PI: dict[StopReason, str] = {
    "stop": "stop", "length": "length", "tool_use": "toolUse", "error": "error", "aborted": "aborted",
}  # fmt: skip
_FROM_PI: dict[str, StopReason] = {pi: rein for rein, pi in _TO_PI.items()}
"""pi's other stop reasons (`pending`, `deferred` in pi-ai's `StopReason`) and any a later pi adds are
a finished reply to the model, as pi-ai's providers send them; the entry keeps its own value."""
_APIS = {"anthropic": "anthropic-messages", "openai": "openai-completions"}


def wire_message(obj: object, path: str) -> Message:
    """A message from a request, in rein's shape or pi's, as the model gets it (`model_safe`). Raises
    `ProtocolError` 400 naming the field."""
    try:
        return model_safe(message_from_json(obj, path))
    except MessageFormatError as rein_error:
        rein_shaped = isinstance(obj, dict) and (
            obj.get("role") == "tool_result" or "stop_reason" in obj or "tool_call_id" in obj
        )
        try:
            return model_safe(pi_to_message(obj, path))
        except MessageFormatError as pi_error:
            raise ProtocolError(
                400, "INVALID_REQUEST", str(rein_error if rein_shaped else pi_error)
            ) from None


def pi_to_message(data: object, path: str) -> Message:
    """A pi-ai message (roles user, assistant, toolResult, and pi's `custom` as user text)."""
    obj = _obj(data, path)
    role = obj.get("role")
    timestamp = _int(obj, "timestamp", path, default=0)
    if role in ("user", "custom"):
        return UserMessage(content=_user_content(obj, path), timestamp=timestamp)
    if role == "toolResult":
        return ToolResultMessage(
            tool_call_id=_str(obj, "toolCallId", path),
            tool_name=_str(obj, "toolName", path, default=""),
            content=_user_content(obj, path),
            is_error=obj.get("isError") is True,
            timestamp=timestamp,
        )
    if role == "assistant":
        stop = obj.get("stopReason", "stop")
        if not isinstance(stop, str):
            raise MessageFormatError(f"{path}.stopReason", f"expected a string, got {stop!r:.60}")
        blocks = _list(obj, "content", path)
        return AssistantMessage(
            content=tuple(_assistant_block(item, f"{path}.content[{i}]") for i, item in enumerate(blocks)),
            provider=_str(obj, "provider", path, default=""),
            model=_str(obj, "model", path, default=""),
            usage=_usage(obj.get("usage"), f"{path}.usage"),
            stop_reason=_FROM_PI.get(stop, "stop"),
            error_message=_opt_str(obj, "errorMessage", path),
            response_id=_opt_str(obj, "responseId", path),
            timestamp=timestamp,
        )
    raise MessageFormatError(f"{path}.role", f"expected user, assistant or toolResult, got {role!r:.60}")


def pi_message(message: Message) -> dict[str, JsonValue]:
    """`message` in pi-ai's shape."""
    match message:
        case UserMessage():
            return {
                "role": "user",
                "content": [_pi_user_block(b) for b in message.content],
                "timestamp": message.timestamp,
            }
        case ToolResultMessage():
            return {
                "role": "toolResult",
                "toolCallId": message.tool_call_id,
                "toolName": message.tool_name,
                "content": [_pi_user_block(b) for b in message.content],
                "isError": message.is_error,
                "timestamp": message.timestamp,
            }
        case AssistantMessage():
            out: dict[str, JsonValue] = {
                "role": "assistant",
                "content": [pi_block(b) for b in message.content],
                "api": _APIS.get(message.provider, message.provider),
                "provider": message.provider,
                "model": message.model,
                "usage": pi_usage(message.usage),
                "stopReason": _TO_PI[message.stop_reason],
                "timestamp": message.timestamp,
            }
            if message.error_message is not None:
                out["errorMessage"] = message.error_message
            if message.response_id is not None:
                out["responseId"] = message.response_id
            return out
        case _:
            assert_never(message)


def pi_block(block: AssistantContent) -> dict[str, JsonValue]:
    match block:
        case TextContent():
            return {"type": "text", "text": block.text}
        case ThinkingContent():
            out: dict[str, JsonValue] = {"type": "thinking", "thinking": block.thinking}
            if block.signature is not None:
                out["thinkingSignature"] = block.signature
            if block.redacted:
                out["redacted"] = True
            return out
        case ToolCall():
            call: dict[str, JsonValue] = {
                "type": "toolCall", "id": block.id, "name": block.name, "arguments": dict(block.arguments)
            }  # fmt: skip
            if block.raw_arguments:
                call["rawArguments"] = block.raw_arguments
            if block.arguments_error is not None:
                call["argumentsError"] = block.arguments_error
            return call
        case _:
            assert_never(block)


def pi_usage(usage: Usage) -> dict[str, JsonValue]:
    zero: dict[str, JsonValue] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {
        "input": usage.input,
        "output": usage.output,
        "cacheRead": usage.cache_read,
        "cacheWrite": usage.cache_write,
        "totalTokens": usage.total,
        "cost": zero,
    }


def proxy_event(event: AssistantEvent) -> dict[str, JsonValue] | None:
    """A rein stream event as the fork's proxy event (what its client's `processProxyEvent` reads)."""
    match event:
        case StartEvent():
            return {"type": "start"}
        case TextStartEvent() | ThinkingStartEvent():
            return {"type": event.type, "contentIndex": event.index}
        case TextDeltaEvent() | ThinkingDeltaEvent() | ToolCallDeltaEvent():
            return {"type": event.type, "contentIndex": event.index, "delta": event.delta}
        case TextEndEvent():
            return {"type": "text_end", "contentIndex": event.index}
        case ThinkingEndEvent():
            block = event.partial.content[event.index]
            out: dict[str, JsonValue] = {"type": "thinking_end", "contentIndex": event.index}
            if isinstance(block, ThinkingContent) and block.signature is not None:
                out["contentSignature"] = block.signature
            return out
        case ToolCallStartEvent():
            return {
                "type": "toolcall_start",
                "contentIndex": event.index,
                "id": event.id,
                "toolName": event.name,
            }
        case ToolCallEndEvent():
            return {
                "type": "toolcall_end",
                "contentIndex": event.index,
                "toolCall": pi_block(event.tool_call),
            }
        case DoneEvent():
            return {"type": "done", "reason": _TO_PI[event.reason], "usage": pi_usage(event.message.usage)}
        case ErrorEvent():
            return {
                "type": "error",
                "reason": event.reason,
                "errorMessage": event.message.error_message or event.reason,
                "usage": pi_usage(event.message.usage),
            }
        case _:
            assert_never(event)


def replay_events(message: AssistantMessage) -> list[dict[str, JsonValue]]:
    """A journaled reply as proxy events (the fork's `replayStreamRun`), its `done` carrying the
    message. A reply that failed replays as its `error` event."""
    events: list[dict[str, JsonValue]] = [{"type": "start"}]
    for index, block in enumerate(message.content):
        match block:
            case TextContent():
                events += [
                    {"type": "text_start", "contentIndex": index},
                    {"type": "text_delta", "contentIndex": index, "delta": block.text},
                    {"type": "text_end", "contentIndex": index},
                ]
            case ThinkingContent():
                end: dict[str, JsonValue] = {"type": "thinking_end", "contentIndex": index}
                if block.signature is not None:
                    end["contentSignature"] = block.signature
                events += [
                    {"type": "thinking_start", "contentIndex": index},
                    {"type": "thinking_delta", "contentIndex": index, "delta": block.thinking},
                    end,
                ]
            case ToolCall():
                events += [
                    {"type": "toolcall_start", "contentIndex": index, "id": block.id, "toolName": block.name},
                    {"type": "toolcall_delta", "contentIndex": index, "delta": block.arguments_text},
                    {"type": "toolcall_end", "contentIndex": index, "toolCall": pi_block(block)},
                ]
            case _:
                assert_never(block)
    usage = pi_usage(message.usage)
    if message.stop_reason in ("error", "aborted"):
        events.append({
            "type": "error", "reason": message.stop_reason,
            "errorMessage": message.error_message or message.stop_reason, "usage": usage,
        })  # fmt: skip
    else:
        reason = _TO_PI[message.stop_reason]
        events.append({"type": "done", "reason": reason, "usage": usage, "message": pi_message(message)})
    return events


def wire_entries(entries: Iterable[Mapping[str, object]]) -> list[Entry]:
    """Wire entries (pi's dialect) as rein's entries, messages stored in pi's shape or rein's made
    rein's; entries that do not decode are skipped, as a local load skips them."""
    decoded: list[Entry] = []
    for raw in entries:
        item = dict(raw)
        message = item.get("message")
        if item.get("type") == "message" and isinstance(message, dict):
            try:
                item["message"] = message_to_json(wire_message(message, "message"))
            except ProtocolError:
                continue
        try:
            decoded.append(decode_entry(item, PI_KEYS))
        except Malformed:
            continue
    return decoded


def branch_messages(entries: Sequence[Mapping[str, object]]) -> list[Message]:
    """The model's context for a root-to-leaf branch of wire entries, as a local run builds it:
    compaction summaries, branch summaries and custom messages included."""
    context = build_context(wire_entries(entries))
    agent = [m for m in (to_agent_message(c) for c in context.messages) if m is not None]
    return list(to_llm(agent))


def _obj(data: object, path: str) -> dict[str, object]:
    if not isinstance(data, dict):
        raise MessageFormatError(path, f"expected a JSON object, got {type(data).__name__}")
    return data


def _str(obj: Mapping[str, object], key: str, path: str, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str):
        raise MessageFormatError(f"{path}.{key}", f"expected a string, got {value!r:.60}")
    return value


def _opt_str(obj: Mapping[str, object], key: str, path: str) -> str | None:
    return None if obj.get(key) is None else _str(obj, key, path)


def _int(obj: Mapping[str, object], key: str, path: str, default: int) -> int:
    value = obj.get(key, default)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MessageFormatError(f"{path}.{key}", f"expected an integer, got {value!r:.60}")
    return value


def _list(obj: Mapping[str, object], key: str, path: str) -> list[object]:
    value = obj.get(key)
    if not isinstance(value, list):
        raise MessageFormatError(f"{path}.{key}", f"expected a list, got {value!r:.60}")
    return value


def _user_content(obj: Mapping[str, object], path: str) -> tuple[UserContent, ...]:
    content = obj.get("content")
    if isinstance(content, str):
        return (TextContent(text=content),)
    blocks: list[UserContent] = []
    for i, item in enumerate(_list(obj, "content", path)):
        where = f"{path}.content[{i}]"
        block = _obj(item, where)
        kind = block.get("type")
        if kind == "text":
            blocks.append(TextContent(text=_str(block, "text", where)))
        elif kind == "image":
            blocks.append(
                ImageContent(data=_str(block, "data", where), mime_type=_str(block, "mimeType", where))
            )
        else:
            raise MessageFormatError(f"{where}.type", f"expected text or image, got {kind!r:.60}")
    return tuple(blocks)


def _assistant_block(item: object, path: str) -> AssistantContent:
    block = _obj(item, path)
    kind = block.get("type")
    if kind == "text":
        return TextContent(text=_str(block, "text", path))
    if kind == "thinking":
        return ThinkingContent(
            thinking=_str(block, "thinking", path),
            signature=_opt_str(block, "thinkingSignature", path),
            redacted=block.get("redacted") is True,
        )
    if kind == "toolCall":
        arguments = block.get("arguments", {})
        if not isinstance(arguments, dict):
            raise MessageFormatError(f"{path}.arguments", f"expected a JSON object, got {arguments!r:.60}")
        raw = block.get("rawArguments")
        return ToolCall(
            id=_str(block, "id", path),
            name=_str(block, "name", path),
            arguments=arguments,
            raw_arguments=raw if isinstance(raw, str) else "",
            arguments_error=_opt_str(block, "argumentsError", path),
        )
    raise MessageFormatError(f"{path}.type", f"expected text, thinking or toolCall, got {kind!r:.60}")


def _usage(data: object, path: str) -> Usage:
    if data is None:
        return Usage()
    obj = _obj(data, path)
    return Usage(
        input=_int(obj, "input", path, 0),
        output=_int(obj, "output", path, 0),
        cache_read=_int(obj, "cacheRead", path, 0),
        cache_write=_int(obj, "cacheWrite", path, 0),
    )


def _pi_user_block(block: UserContent) -> dict[str, JsonValue]:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    return {"type": "image", "data": block.data, "mimeType": block.mime_type}
