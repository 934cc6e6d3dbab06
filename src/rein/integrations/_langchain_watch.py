"""Stream rules on one LangChain model call: a callback handler on the chat model feeds every token and
tool-call fragment into a rein `Watch`, and raises `CutSignal` out of the model's stream when a rule
fires, which closes the HTTP stream mid-reply. A response that was not streamed is checked whole."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk

from rein.integrations._guard import Cut, Watch

T = TypeVar("T")


class CutSignal(Exception):
    """Raised from the token callback to stop the model call; carries the cut."""

    def __init__(self, cut: Cut) -> None:
        super().__init__(f"rein stream rule fired: {', '.join(m.name for m in cut.matches)}")
        self.cut = cut


class TokenWatch(BaseCallbackHandler):
    """Feeds one model call's tokens into `watch`. `raise_error` lets `CutSignal` leave LangChain's
    callback manager; `run_inline` keeps the async path from moving it to a thread."""

    raise_error = True
    run_inline = True

    def __init__(self, watch: Watch) -> None:
        super().__init__()
        self._watch = watch
        self._text = False
        self._calls: dict[int, tuple[str, str]] = {}
        """Tool-call fragments carry id and name only on their first chunk: index -> (id, name)."""
        self.streamed = False

    def on_llm_new_token(
        self,
        token: str | list[str | dict[str, Any]],
        *,
        chunk: GenerationChunk | ChatGenerationChunk | None = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.streamed = True
        if isinstance(token, str) and token:
            self._text = True
            _raise(self._watch.feed(token))
        message = chunk.message if isinstance(chunk, ChatGenerationChunk) else None
        if not isinstance(message, AIMessageChunk):
            return
        for part in message.tool_call_chunks:
            index = part.get("index") or 0
            known_id, known_name = self._calls.get(index, ("", ""))
            call_id, name = part.get("id") or known_id, part.get("name") or known_name
            self._calls[index] = (call_id, name)
            if fragment := part.get("args"):
                _raise(
                    self._watch.feed(fragment, source="tool", tool_name=name, tool_call_id=call_id or None)
                )

    def finish(self, messages: list[BaseMessage]) -> Cut | None:
        """After the call: the end-of-block checks of what streamed, or the whole reply if nothing did."""
        if self.streamed:
            cut = self._watch.feed("", final=True) if self._text else None
            for call_id, name in self._calls.values():
                end = self._watch.feed(
                    "", source="tool", tool_name=name, tool_call_id=call_id or None, final=True
                )
                cut = cut or end
            return cut
        for message in messages:
            if not isinstance(message, AIMessage):
                continue
            cut = self._watch.check_whole(message.text) if message.text else None
            for call in message.tool_calls:
                arguments = json.dumps(call["args"])
                cut = cut or self._watch.feed(
                    arguments, source="tool", tool_name=call["name"], tool_call_id=call["id"], final=True
                )
            if cut is not None:
                return cut
        return None


class StreamingTokenWatch(TokenWatch):
    """A `TokenWatch` that also makes the model stream: LangChain streams a call when a handler of its
    streaming-callback protocol (these two pass-through methods) is attached."""

    def tap_output_iter(self, run_id: UUID, output: Iterator[T]) -> Iterator[T]:
        return output

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[T]) -> AsyncIterator[T]:
        return output


def _raise(cut: Cut | None) -> None:
    if cut is not None:
        raise CutSignal(cut)
