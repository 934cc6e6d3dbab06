"""One streamed reply of llama.cpp's in-process server, read chunk by chunk (OpenAI chat.completion.chunk
dicts, or `{"error": {...}}`), in the worker thread that generates it.

Text pieces are handed on as they come. The token count comes from the `timings` each chunk carries
(`timings_per_token`), the usage from the final chunk (`stream_options.include_usage`). The server
counts the end-of-generation token in `completion_tokens`; rein does not, so a reply the model ended
itself counts one fewer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from rein.ai._messages import Usage
from rein.ai.errors import ProviderError


@dataclass(frozen=True, slots=True)
class Finished:
    stop_reason: Literal["stop", "length"]
    usage: Usage


class Reply:
    """Reads the chunks of one reply; `send` gets each text piece."""

    def __init__(self, send: Callable[[str], None]) -> None:
        self._send = send
        self.tokens = 0
        """Tokens sampled so far, the end-of-generation token excluded."""
        self.prompt_tokens = 0
        """The prompt's tokens as an error told them (a prompt too long for the context); else 0."""
        self.failed: BaseException | None = None
        """Set when the server answered with an error, or reading a chunk failed."""
        self._finish: str | None = None
        self._usage: dict[str, object] | None = None

    def read(self, chunk: dict[str, object]) -> None:
        error = chunk.get("error")
        if isinstance(error, dict):
            self.failed = ProviderError(_error_text(error))
            prompt = error.get("n_prompt_tokens")
            self.prompt_tokens = prompt if isinstance(prompt, int) else 0
            return
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            piece = delta.get("content") if isinstance(delta, dict) else None
            if isinstance(piece, str) and piece:
                self._send(piece)
            finish = choice.get("finish_reason") if isinstance(choice, dict) else None
            if isinstance(finish, str):
                self._finish = finish
        timings = chunk.get("timings")
        sampled = timings.get("predicted_n") if isinstance(timings, dict) else None
        if isinstance(sampled, int) and self._finish is None:
            self.tokens = sampled
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._usage = usage

    def finished(self) -> Finished:
        """The end of a reply read to its last chunk; a ProviderError when the server sent no end."""
        if self._finish is None or self._usage is None:
            raise ProviderError("the local model's reply ended without a finish reason and usage")
        prompt = self._usage.get("prompt_tokens")
        completion = self._usage.get("completion_tokens")
        if not isinstance(prompt, int) or not isinstance(completion, int):
            raise ProviderError(f"the local model's usage has no token counts: {self._usage}")
        if self._finish == "length":
            return Finished("length", Usage(input=prompt, output=completion))
        return Finished("stop", Usage(input=prompt, output=max(0, completion - 1)))


def _error_text(error: dict[str, object]) -> str:
    prompt, window = error.get("n_prompt_tokens"), error.get("n_ctx")
    overflow = error.get("type") == "exceed_context_size_error"
    if overflow and isinstance(prompt, int) and isinstance(window, int):
        return f"the prompt is {prompt} tokens; the model's context is {window}"  # as `_overflow` reads it
    return str(error.get("message") or error)
