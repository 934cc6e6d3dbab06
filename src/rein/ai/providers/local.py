"""The "local" provider: a GGUF model run in-process by llama.cpp (llama-cpp-python), no key, no network.

`Model(provider="local", id="smollm2")` runs the bundled SmolLM2-135M-Instruct; any other id is the
path of a GGUF file. The prompt is rendered with the chat template stored in the file, and tokens are
sampled one at a time in a worker thread, so the event loop never waits on the model and an abort
stops generation at the next token. Usage is exact: prompt and generated tokens as the model counted
them.

Tools: each ```bash block of a finished reply becomes a `bash` tool call when the context offers
`bash` (stop reason "tool_use"; see `local_chat`), and the agent's steering checks it like any other.
A loaded model is kept for the life of the process, keyed by file and context size; one generation
runs on it at a time, and a retry reuses the prompt prefix already in its KV cache.
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import json
import os
import threading
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

import llama_cpp
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from rein.ai._events import AssistantEvent, MessageBuilder
from rein.ai._messages import (
    Context,
    Model,
    Usage,
)
from rein.ai._stream import AssistantStream, Reader, StreamOptions, run_stream
from rein.ai.errors import ProviderError
from rein.ai.providers.local_chat import CALL_PREFIX, chat_messages, offers_bash, shell_commands
from rein.ai.providers.local_files import model_file

REPEAT_PENALTY = 1.1
"""llama.cpp's long-standing default: small models sampled greedily loop without it."""
DEFAULT_CONTEXT = 8192
"""Context size when the model names none: the bundled model's own, and a sane cap for larger files."""
MIN_CONTEXT = 256
THREADS = max(1, (os.cpu_count() or 2) // 2)
"""llama.cpp's own default for generation, used for the prompt too."""


@dataclass(frozen=True, slots=True)
class _Finished:
    stop_reason: Literal["stop", "length"]
    usage: Usage


_Item: TypeAlias = str | _Finished | BaseException


@dataclass(slots=True)
class Generation:
    """One generation as its worker thread saw it; tests and benchmarks read these."""

    prompt_tokens: int = 0
    tokens: int = 0
    """Tokens sampled so far, the end-of-generation token excluded."""
    stopped_at: float | None = None
    """`time.perf_counter()` when sampling stopped and the model was free again."""
    aborted: bool = False
    """Sampling stopped because the stream was aborted or closed."""


class LocalProvider:
    """The "local" provider; follows the `Provider` contract."""

    def __init__(self) -> None:
        self.generations: list[Generation] = []
        """One record per stream, in order; the worker fills it in as it samples."""
        self._workers: list[threading.Thread] = []

    def join(self, timeout: float | None = None) -> None:
        """Wait until every generation started so far has stopped sampling."""
        for worker in self._workers:
            worker.join(timeout)

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        opts = options or StreamOptions()

        async def body(builder: MessageBuilder, reader: Reader) -> AsyncGenerator[AssistantEvent, None]:
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue[_Item] = asyncio.Queue()
            stop = threading.Event()

            def send(item: _Item) -> None:
                try:
                    loop.call_soon_threadsafe(queue.put_nowait, item)
                except RuntimeError:  # the event loop is gone: nobody reads any more
                    stop.set()

            record = Generation()
            self.generations.append(record)
            worker = threading.Thread(
                target=_generate,
                args=(model, context, opts, _Job(stop, send, record)),
                name="rein-local",
                daemon=True,
            )
            self._workers = [*(w for w in self._workers if w.is_alive()), worker]
            _running.add(stop)
            worker.start()
            try:
                while True:
                    item = await reader.read(queue.get)
                    if isinstance(item, BaseException):
                        raise item
                    if isinstance(item, _Finished):
                        if builder.open_block is not None:
                            yield builder.end()
                        builder.usage = item.usage
                        commands = shell_commands(builder.snapshot().text) if offers_bash(context) else []
                        for number, command in enumerate(commands, 1):
                            yield builder.begin_tool_call(id=f"{CALL_PREFIX}{number}", name="bash")
                            yield builder.append(json.dumps({"command": command}))
                            yield builder.end()
                        yield builder.done("tool_use" if commands else item.stop_reason)
                        return
                    if builder.open_block is None:
                        yield builder.begin_text()
                    yield builder.append(item)
            finally:
                stop.set()  # an abort or an early close ends generation at the next token
                _running.discard(stop)

        builder = MessageBuilder(provider=model.provider, model=model.id)
        return run_stream(builder, body, opts, _describe)


@dataclass(frozen=True, slots=True)
class _Job:
    stop: threading.Event
    send: Callable[[_Item], None]
    record: Generation


def _generate(model: Model, context: Context, options: StreamOptions, job: _Job) -> None:
    """The worker thread: load (or reuse) the model, render the prompt, send text pieces, then the end."""
    try:
        # llama.cpp rounds a smaller context up to 256 while its Python buffers keep the size asked for.
        loaded = _load(model_file(model.id), max(MIN_CONTEXT, model.context_window or DEFAULT_CONTEXT))
        with loaded.busy:
            if job.stop.is_set():
                job.record.aborted = True
            else:
                job.send(_sample(loaded, context, model, options, job))
    except BaseException as exc:  # reported by the stream as its error event
        job.send(exc)
    finally:
        if job.record.stopped_at is None:
            job.record.stopped_at = time.perf_counter()


def _sample(loaded: _Loaded, context: Context, model: Model, options: StreamOptions, job: _Job) -> _Finished:
    llm = loaded.llm
    prompt = loaded.formatter(messages=chat_messages(context)).prompt
    tokens = llm.tokenize(prompt.encode(), add_bos=False, special=True)
    job.record.prompt_tokens = len(tokens)
    room = llm.n_ctx() - len(tokens)
    if room <= 0:
        raise ProviderError(f"the prompt is {len(tokens)} tokens; the model's context is {llm.n_ctx()}")
    limit = min(room, options.max_tokens or model.max_output_tokens or room)
    temperature = 0.8 if options.temperature is None else options.temperature
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    generated = 0
    reason: Literal["stop", "length"] = "length"
    sampled = llm.generate(tokens, temp=temperature, repeat_penalty=REPEAT_PENALTY)
    try:
        for token in sampled:
            if job.stop.is_set():
                job.record.aborted = True
                break
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                reason = "stop"
                break
            piece = decoder.decode(llm.detokenize([token]))
            generated += 1
            job.record.tokens = generated
            if piece:
                job.send(piece)
            if generated >= limit:
                break
    finally:
        sampled.close()
        job.record.stopped_at = time.perf_counter()
    if tail := decoder.decode(b"", final=True):
        job.send(tail)
    return _Finished(reason, Usage(input=len(tokens), output=generated))


@dataclass(slots=True)
class _Loaded:
    llm: llama_cpp.Llama
    formatter: Jinja2ChatFormatter
    busy: threading.Lock


_models: dict[tuple[Path, int], _Loaded] = {}
_loading = threading.Lock()
_running: set[threading.Event] = set()


def _load(path: Path, n_ctx: int) -> _Loaded:
    with _loading:
        loaded = _models.get((path, n_ctx))
        if loaded is None:
            # One thread count for prompt and tokens: llama.cpp's default batch threads (every core) spin
            # against each other on a busy machine, and a cold prompt then took seconds instead of 0.6 s.
            llm = llama_cpp.Llama(
                model_path=str(path), n_ctx=n_ctx, n_threads=THREADS, n_threads_batch=THREADS, verbose=False
            )
            template = llm.metadata.get("tokenizer.chat_template")
            if not template:
                raise ProviderError(f"{path}: the GGUF file has no chat template")
            formatter = Jinja2ChatFormatter(
                template=template,
                eos_token=_token_text(llm, llm.token_eos()),
                bos_token=_token_text(llm, llm.token_bos()),
            )
            loaded = _models[path, n_ctx] = _Loaded(llm, formatter, threading.Lock())
        return loaded


def _token_text(llm: llama_cpp.Llama, token: int) -> str:
    return "" if token < 0 else llm.detokenize([token], special=True).decode(errors="replace")


@atexit.register
def _stop_all() -> None:
    # A daemon thread still inside llama.cpp at interpreter exit can crash it: stop them first.
    for stop in list(_running):
        stop.set()
    for loaded in _models.values():
        if loaded.busy.acquire(timeout=5):
            loaded.busy.release()


def _describe(exc: Exception) -> str:
    return f"local model failed: {type(exc).__name__}: {exc}"
