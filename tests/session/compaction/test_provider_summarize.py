"""`provider_summarize` over the faux provider: replies, overflows and failures, and one chunked summary
of a history far larger than the faux model's window."""

from __future__ import annotations

import asyncio
import re

import pytest

from rein.ai import (
    AbortSignal,
    AssistantStream,
    Context,
    FauxProvider,
    FauxReply,
    Model,
    StreamOptions,
    TextContent,
    UserMessage,
)
from rein.ai.providers.faux import FauxTurn
from rein.session.compaction._provider import provider_summarize
from rein.session.compaction._serialize import serialize
from rein.session.compaction._summarize import SummaryError, SummaryOverflow, summarize_chunked
from rein.session.compaction._tokens import text_tokens

MODEL = Model(provider="faux", id="faux-1")


class Recording:
    """The faux provider, recording what each request was given."""

    def __init__(self, faux: FauxProvider) -> None:
        self.faux = faux
        self.calls: list[tuple[Context, StreamOptions | None]] = []

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        self.calls.append((context, options))
        return self.faux.stream(model, context, options)


def prompt_tokens(context: Context) -> int:
    user = context.messages[0]
    assert isinstance(user, UserMessage)
    return text_tokens(context.system_prompt or "") + text_tokens(user.text)


def faux_model(window: int) -> FauxProvider:
    """A faux summarizer with a `window`-token context: larger requests fail as Anthropic words it;
    a summary names the messages its input mentions."""

    def reply(context: Context) -> FauxTurn:
        size = prompt_tokens(context)
        if size > window:
            return FauxReply(error=f"prompt is too long: {size} tokens > {window} maximum")
        user = context.messages[0]
        assert isinstance(user, UserMessage)
        ids = sorted({int(n) for n in re.findall(r"msg-(\d+)", user.text)})
        return [TextContent(text="## Goal\nseen " + " ".join(f"msg-{n}" for n in ids))]

    return FauxProvider(reply, chunk_size=64)


def call(
    provider: Recording | FauxProvider, options: StreamOptions | None = None, max_tokens: int = 500
) -> str:
    summarize = provider_summarize(provider, MODEL, options)
    return asyncio.run(
        summarize("You summarize.", "<conversation>\n[User]: msg-1\n</conversation>", max_tokens)
    )


def test_a_reply_is_the_summary_and_the_request_carries_system_prompt_prompt_and_limit() -> None:
    provider = Recording(faux_model(8000))
    signal = AbortSignal()
    text = call(provider, StreamOptions(signal=signal, api_key="k", timeout=5.0), max_tokens=321)
    assert text == "## Goal\nseen msg-1"
    [(context, options)] = provider.calls
    assert context.system_prompt == "You summarize."
    [user] = context.messages
    assert isinstance(user, UserMessage)
    assert user.content == (TextContent(text="<conversation>\n[User]: msg-1\n</conversation>"),)
    assert context.tools == ()
    assert options == StreamOptions(signal=signal, api_key="k", timeout=5.0, max_tokens=321)


def test_an_overflow_reply_raises_summary_overflow_with_the_window_it_names() -> None:
    faux = FauxProvider(lambda context: FauxReply(error="prompt is too long: 9000 tokens > 8000 maximum"))
    with pytest.raises(SummaryOverflow) as caught:
        call(faux)
    assert caught.value.text == "prompt is too long: 9000 tokens > 8000 maximum"
    assert caught.value.window == 8000


def test_an_overflow_in_other_words_carries_its_window_when_named() -> None:
    text = "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."
    with pytest.raises(SummaryOverflow) as caught:
        call(FauxProvider([FauxReply(error=text)]))
    assert caught.value.window == 4096
    with pytest.raises(SummaryOverflow) as unnamed:
        call(FauxProvider([FauxReply(error="context_length_exceeded")]))
    assert unnamed.value.window is None


def test_any_other_error_raises_summary_error_with_the_providers_text() -> None:
    faux = FauxProvider([FauxReply(blocks=(TextContent(text="## Go"),), error="overloaded_error: try later")])
    with pytest.raises(SummaryError, match=r"^overloaded_error: try later$"):
        call(faux)


def test_an_aborted_request_raises_summary_error() -> None:
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(SummaryError, match=r"^the summary was aborted$"):
        call(faux_model(8000), StreamOptions(signal=signal))


def test_an_empty_reply_is_an_empty_summary() -> None:
    assert call(FauxProvider([[]])) == ""


def test_a_history_far_larger_than_the_window_is_summarized_in_chunks_and_merged() -> None:
    messages = [UserMessage.of(f"msg-{n}: please look at src/mod_{n}.py " + "a" * 300) for n in range(120)]
    pieces = [serialize(message) for message in messages]
    assert text_tokens("\n\n".join(pieces)) > 5 * 2000
    provider = Recording(faux_model(2000))
    summarize = provider_summarize(provider, MODEL)
    # rein believes the window is 8000; the first overflow teaches it the real 2000.
    result = asyncio.run(summarize_chunked(pieces, summarize, window=8000, max_tokens=300))
    assert result.window == 2000
    assert result.text == "## Goal\nseen " + " ".join(f"msg-{n}" for n in range(120))
    assert result.requests == len(provider.calls) > 3
    overflowed = [context for context, _ in provider.calls if prompt_tokens(context) > 2000]
    assert len(overflowed) == 1
