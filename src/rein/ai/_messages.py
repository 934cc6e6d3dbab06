"""Messages, content blocks, usage, models and the request context.

Every value is a frozen, slotted, keyword-only dataclass, so a message handed to a hook or stored in a
session cannot change under it. Lists are tuples; tool arguments and JSON schemas are read-only
mappings by type (do not mutate them). `message_to_json` and `message_from_json` persist messages as
plain JSON objects whose keys are the field names.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, get_args

from rein.ai.errors import MessageFormatError

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
"""A value that `json.dumps` writes and `json.loads` reads back unchanged."""

StopReason: TypeAlias = Literal["stop", "length", "tool_use", "error", "aborted"]
"""Why a reply ended: a natural end, the output token limit, tool calls to run, a failure, an abort."""


def now_ms() -> int:
    """Milliseconds since the epoch, the unit of every `timestamp`."""
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True, kw_only=True)
class TextContent:
    """Plain text from the user, the assistant or a tool."""

    type: Literal["text"] = field(default="text", init=False)
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ImageContent:
    """An image as base64 `data` with its `mime_type` (image/png, image/jpeg, image/gif, image/webp)."""

    type: Literal["image"] = field(default="image", init=False)
    data: str
    mime_type: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingContent:
    """The model's reasoning.

    `signature` is the provider's opaque proof that lets the same provider and model accept the block
    back (Anthropic's signature, an encrypted OpenAI reasoning item). `redacted` blocks carry no
    readable text, only the signature. The model that thought it gets it back as thinking when its
    API can take it (else it is left out); a different model gets the text as plain text.
    """

    type: Literal["thinking"] = field(default="thinking", init=False)
    thinking: str
    signature: str | None = None
    redacted: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """A call the assistant asks for.

    `raw_arguments` is the JSON text exactly as the model streamed it; `arguments` is that text
    decoded, filled when the call ends, and `{}` while streaming or when the text is not a JSON object
    (`arguments_error` then says why, so the loop can answer with an error result instead of running
    the tool on empty input). A scripted call may leave `raw_arguments` empty; it is then
    `json.dumps(arguments)`.
    """

    type: Literal["tool_call"] = field(default="tool_call", init=False)
    id: str
    name: str
    arguments: Mapping[str, JsonValue] = field(default_factory=dict)
    raw_arguments: str = ""
    arguments_error: str | None = None

    @property
    def arguments_text(self) -> str:
        """The arguments as JSON text: as streamed, or encoded from `arguments` for a scripted call."""
        return self.raw_arguments or json.dumps(dict(self.arguments))


UserContent: TypeAlias = TextContent | ImageContent
AssistantContent: TypeAlias = TextContent | ThinkingContent | ToolCall


@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """Tokens of one reply. `input` excludes tokens read from or written to the prompt cache."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def __add__(self, other: Usage) -> Usage:
        """The tokens of both (several replies, or the attempts of one)."""
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessage:
    """What the user (or the loop on the user's behalf) says."""

    role: Literal["user"] = field(default="user", init=False)
    content: tuple[UserContent, ...]
    timestamp: int = field(default_factory=now_ms)

    @classmethod
    def of(cls, text: str, *images: ImageContent) -> UserMessage:
        """A user message of one text block followed by `images`."""
        return cls(content=(TextContent(text=text), *images))

    @property
    def text(self) -> str:
        """All text blocks joined, without images."""
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessage:
    """One reply of the model, complete or (inside stream events) partial.

    `stop_reason` is "stop" while streaming; the final message has the real reason and, for "error"
    and "aborted", an `error_message`. Providers skip assistant messages that ended in "error" or
    "aborted" when they build a request (their tool calls may be cut off); to keep such a reply in
    context, the loop replaces it with a message that ended normally.
    """

    role: Literal["assistant"] = field(default="assistant", init=False)
    content: tuple[AssistantContent, ...] = ()
    provider: str
    model: str
    usage: Usage = Usage()
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    response_id: str | None = None
    timestamp: int = field(default_factory=now_ms)

    @property
    def text(self) -> str:
        """All text blocks joined, without thinking or tool calls."""
        return "".join(block.text for block in self.content if isinstance(block, TextContent))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(block for block in self.content if isinstance(block, ToolCall))


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultMessage:
    """The result of one tool call, answered in the order the calls were made."""

    role: Literal["tool_result"] = field(default="tool_result", init=False)
    tool_call_id: str
    tool_name: str
    content: tuple[UserContent, ...]
    is_error: bool = False
    timestamp: int = field(default_factory=now_ms)

    @property
    def text(self) -> str:
        """All text blocks joined, without images."""
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    """A tool the model may call; `parameters` is a JSON schema of type "object"."""

    name: str
    description: str
    parameters: Mapping[str, JsonValue] = field(default_factory=lambda: {"type": "object", "properties": {}})


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """Everything one request sends: the system prompt, the conversation so far and the tools."""

    system_prompt: str | None = None
    messages: tuple[Message, ...] = ()
    tools: tuple[Tool, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Model:
    """A model to call.

    `provider` is a registry name ("anthropic", "openai", "openai-responses", "local", "faux"); `base_url`
    points "openai" at any compatible server (Ollama, vLLM, llama.cpp) and overrides the
    ANTHROPIC_BASE_URL / OPENAI_BASE_URL environment variables. `max_output_tokens` is the default
    reply limit when the request gives none.
    """

    provider: str
    id: str
    base_url: str | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None


def message_to_json(message: Message) -> dict[str, JsonValue]:
    """A JSON object of the message's fields, `role` and `type` tags included; `message_from_json`
    reads it back equal."""
    encoded = _plain(dataclasses.asdict(message))
    assert isinstance(encoded, dict)
    return encoded


def _plain(value: object) -> JsonValue:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    raise TypeError(f"not JSON data: {type(value).__name__}")


def message_from_json(data: object, path: str = "message") -> Message:
    """Decode what `message_to_json` wrote; `MessageFormatError` names the first bad field."""
    obj = _Obj(data, path)
    role = obj.text("role")
    if role == "user":
        return UserMessage(content=_user_blocks(obj), timestamp=obj.integer("timestamp"))
    if role == "tool_result":
        return ToolResultMessage(
            tool_call_id=obj.text("tool_call_id"),
            tool_name=obj.text("tool_name"),
            content=_user_blocks(obj),
            is_error=obj.flag("is_error"),
            timestamp=obj.integer("timestamp"),
        )
    if role == "assistant":
        content = tuple(_assistant_block(item) for item in obj.items("content"))
        usage = obj.child("usage")
        stop = obj.text("stop_reason")
        for reason in _STOP_REASONS:
            if stop == reason:
                break
        else:
            raise MessageFormatError(f"{path}.stop_reason", f"expected one of {_STOP_REASONS}, got {stop!r}")
        return AssistantMessage(
            content=content,
            provider=obj.text("provider"),
            model=obj.text("model"),
            usage=Usage(
                input=usage.integer("input"),
                output=usage.integer("output"),
                cache_read=usage.integer("cache_read"),
                cache_write=usage.integer("cache_write"),
            ),
            stop_reason=reason,
            error_message=obj.optional_text("error_message"),
            response_id=obj.optional_text("response_id"),
            timestamp=obj.integer("timestamp"),
        )
    raise MessageFormatError(f"{path}.role", f"expected user, assistant or tool_result, got {role!r}")


_STOP_REASONS: tuple[StopReason, ...] = get_args(StopReason)


class _Obj:
    """A JSON object being decoded, with the path that error messages name."""

    __slots__ = ("data", "path")

    def __init__(self, data: object, path: str) -> None:
        if not isinstance(data, dict):
            raise MessageFormatError(path, f"expected a JSON object, got {type(data).__name__}")
        self.data: dict[str, object] = data
        self.path = path

    def _fail(self, key: str, what: str) -> MessageFormatError:
        return MessageFormatError(f"{self.path}.{key}", f"expected {what}, got {self.data.get(key)!r:.60}")

    def text(self, key: str) -> str:
        value = self.data.get(key)
        if not isinstance(value, str):
            raise self._fail(key, "a string")
        return value

    def optional_text(self, key: str) -> str | None:
        return None if self.data.get(key) is None else self.text(key)

    def integer(self, key: str) -> int:
        value = self.data.get(key)
        # bool is an int in Python; a count or a timestamp must not accept true or false.
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._fail(key, "an integer")
        return value

    def flag(self, key: str) -> bool:
        value = self.data.get(key)
        if not isinstance(value, bool):
            raise self._fail(key, "true or false")
        return value

    def mapping(self, key: str) -> dict[str, JsonValue]:
        value = self.data.get(key)
        if not isinstance(value, dict):
            raise self._fail(key, "a JSON object")
        return value

    def child(self, key: str) -> _Obj:
        return _Obj(self.data.get(key), f"{self.path}.{key}")

    def items(self, key: str) -> list[_Obj]:
        value = self.data.get(key)
        if not isinstance(value, list):
            raise self._fail(key, "a list")
        return [_Obj(item, f"{self.path}.{key}[{i}]") for i, item in enumerate(value)]


def _user_blocks(obj: _Obj) -> tuple[UserContent, ...]:
    blocks: list[UserContent] = []
    for item in obj.items("content"):
        kind = item.text("type")
        if kind == "text":
            blocks.append(TextContent(text=item.text("text")))
        elif kind == "image":
            blocks.append(ImageContent(data=item.text("data"), mime_type=item.text("mime_type")))
        else:
            raise MessageFormatError(f"{item.path}.type", f"expected text or image, got {kind!r}")
    return tuple(blocks)


def _assistant_block(item: _Obj) -> AssistantContent:
    kind = item.text("type")
    if kind == "text":
        return TextContent(text=item.text("text"))
    if kind == "thinking":
        return ThinkingContent(
            thinking=item.text("thinking"),
            signature=item.optional_text("signature"),
            redacted=item.flag("redacted"),
        )
    if kind == "tool_call":
        return ToolCall(
            id=item.text("id"),
            name=item.text("name"),
            arguments=item.mapping("arguments"),
            raw_arguments=item.text("raw_arguments"),
            arguments_error=item.optional_text("arguments_error"),
        )
    raise MessageFormatError(f"{item.path}.type", f"expected text, thinking or tool_call, got {kind!r}")
