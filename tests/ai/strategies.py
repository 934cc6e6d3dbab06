"""Hypothesis strategies for rein's messages, shared by the round-trip tests of the store's JSON
(`rein.ai.message_to_json`) and the wire's pi JSON (`rein.server._wire`)."""

from __future__ import annotations

from hypothesis import strategies as st

from rein.ai import (
    AssistantMessage,
    ImageContent,
    JsonValue,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

ANY_INTEGER = st.integers()
TIMESTAMPS = st.integers(min_value=0, max_value=10**9)
TEXT = st.text(max_size=20)


def messages(
    *,
    integers: st.SearchStrategy[int] = ANY_INTEGER,
    timestamps: st.SearchStrategy[int] = TIMESTAMPS,
    mime_types: st.SearchStrategy[str] = TEXT,
) -> st.SearchStrategy[Message]:
    """Any message: user, tool result or assistant, with every kind of block. `integers` fill JSON
    arguments (the wire keeps them JavaScript-safe), `timestamps` the messages' times."""
    text = TEXT
    json_values: st.SearchStrategy[JsonValue] = st.recursive(
        st.none() | st.booleans() | integers | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=8,
    )
    user_blocks = st.builds(TextContent, text=text) | st.builds(ImageContent, data=text, mime_type=mime_types)
    assistant_blocks = (
        st.builds(TextContent, text=text)
        | st.builds(ThinkingContent, thinking=text, signature=st.none() | text, redacted=st.booleans())
        | st.builds(
            ToolCall,
            id=text,
            name=text,
            arguments=st.dictionaries(st.text(max_size=5), json_values, max_size=3),
            raw_arguments=text,
            arguments_error=st.none() | text,
        )
    )
    counts = st.integers(min_value=0, max_value=10**9)
    return st.one_of(
        st.builds(UserMessage, content=st.tuples(user_blocks), timestamp=timestamps),
        st.builds(
            ToolResultMessage,
            tool_call_id=text,
            tool_name=text,
            content=st.lists(user_blocks, max_size=3).map(tuple),
            is_error=st.booleans(),
            timestamp=timestamps,
        ),
        st.builds(
            AssistantMessage,
            content=st.lists(assistant_blocks, max_size=4).map(tuple),
            provider=text,
            model=text,
            usage=st.builds(Usage, input=counts, output=counts, cache_read=counts, cache_write=counts),
            stop_reason=st.sampled_from(["stop", "length", "tool_use", "error", "aborted"]),
            error_message=st.none() | text,
            response_id=st.none() | text,
            timestamp=timestamps,
        ),
    )
