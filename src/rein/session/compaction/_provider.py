"""A `Summarize` over a provider: one streamed request per summary, its failure translated.

A provider stream never raises; its final `error` event becomes `SummaryOverflow` when the provider
says the request was too large (with the window its text names), else `SummaryError` with its text.
"""

from __future__ import annotations

import dataclasses

from rein.ai import Context, Model, Provider, StreamOptions, UserMessage, context_overflow
from rein.session.compaction._summarize import Summarize, SummaryError, SummaryOverflow


def provider_summarize(provider: Provider, model: Model, options: StreamOptions | None = None) -> Summarize:
    """Summary requests to `model` through `provider`. `options` (signal, API key, timeout, ...) apply
    to every request, with each request's own `max_tokens`; `model.base_url` picks the server."""
    base = options or StreamOptions()

    async def summarize(system: str, prompt: str, max_tokens: int) -> str:
        context = Context(system_prompt=system, messages=(UserMessage.of(prompt),))
        request = dataclasses.replace(base, max_tokens=max_tokens)
        async with provider.stream(model, context, request) as events:
            reply = await events.result()
        if reply.stop_reason == "aborted":
            raise SummaryError("the summary was aborted")
        if reply.stop_reason == "error":
            overflow = context_overflow(reply)
            text = reply.error_message or "the summary request failed"
            if overflow is not None:
                raise SummaryOverflow(overflow.text or text, overflow.window)
            raise SummaryError(text)
        return reply.text  # a "length" stop keeps what was written; the caller judges an empty text

    return summarize
