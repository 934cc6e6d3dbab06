"""ADK model responses as rein's stream rules read them, and the requests and responses the adapter
writes back: the retry request with the injection, the response that hides the rest of a cut call, the
timebox's closing answer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from rein.integrations._guard import Cut, Watch
from rein.ttsr import Source


@dataclass(slots=True)
class ModelCall:
    """One model call of one agent, from `before_model_callback` to its last streamed response."""

    request: LlmRequest
    watch: Watch
    streamed: set[Source] = field(default_factory=set)
    """Sources ("text", "thinking") already fed from partial responses; the closing aggregate repeats
    them, so it only closes their blocks."""
    cut: Cut | None = None
    replaced: bool = False
    """The call's answer was replaced by the retry; every later response of its stream is dropped."""


def scan(call: ModelCall, response: LlmResponse) -> Cut | None:
    """Feed one response of a model call to its watch: partial text as it streams, the closing
    response's text if nothing streamed, its function calls' arguments whole."""
    parts = response.content.parts if response.content and response.content.parts else []
    found: Cut | None = None
    for part in parts:
        source: Source = "thinking" if part.thought else "text"
        if part.text and response.partial:
            call.streamed.add(source)
            found = found or call.watch.feed(part.text, source=source)
        elif part.text and source not in call.streamed:
            found = found or call.watch.feed(part.text, source=source, final=True)
        elif part.function_call and not response.partial:
            fc = part.function_call
            arguments = json.dumps(fc.args or {})
            found = found or call.watch.feed(
                arguments, source="tool", tool_name=fc.name, tool_call_id=fc.id, final=True
            )
    if not response.partial:
        for closing in sorted(call.streamed):  # end-of-block checks (`$`) for what streamed
            found = found or call.watch.feed("", source=closing, final=True)
        call.streamed.clear()
    return found


def scan_whole(watch: Watch, response: LlmResponse) -> Cut | None:
    """A finished, non-streamed response (a retry's) at once."""
    return scan(ModelCall(request=LlmRequest(), watch=watch), response.model_copy(update={"partial": False}))


def with_user_text(request: LlmRequest, texts: Sequence[str]) -> LlmRequest:
    """A copy of `request` whose conversation ends with `texts` from the user (the original is kept:
    ADK still holds it)."""
    copy = request.model_copy()
    contents = list(request.contents)
    extra = [types.Part(text=text) for text in texts]
    last = contents[-1] if contents else None
    if last is not None and last.role == "user":  # one user turn: Gemini wants turns to alternate
        contents[-1] = types.Content(role="user", parts=[*(last.parts or []), *extra])
    else:
        contents.append(types.Content(role="user", parts=extra))
    copy.contents = contents
    return copy


def add_user_text(request: LlmRequest, text: str) -> None:
    """Add `text` to the user's side of the request ADK is about to send (the timebox's nudge)."""
    request.contents = with_user_text(request, [text]).contents


async def complete(model: BaseLlm, request: LlmRequest) -> LlmResponse:
    """One non-streamed call of `model`; its last response. Model errors propagate."""
    last: LlmResponse | None = None
    async for response in model.generate_content_async(request, stream=False):
        last = response
    if last is None:
        raise RuntimeError(f"{type(model).__name__} returned no response to rein's retry")
    return last.model_copy(update={"partial": False})


def text_response(text: str) -> LlmResponse:
    """An answer that is not the model's (the timebox's stop, a reply withheld): final, no tool calls."""
    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        partial=False,
        turn_complete=True,
        finish_reason=types.FinishReason.STOP,
    )


def dropped(response: LlmResponse) -> LlmResponse:
    """What replaces a response of a cut call: no content, so ADK emits no event for it."""
    return LlmResponse(partial=True, usage_metadata=response.usage_metadata)


def tokens_of(response: LlmResponse) -> int:
    usage = response.usage_metadata
    return (usage.total_token_count or 0) if usage is not None else 0
