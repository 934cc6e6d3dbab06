"""The "local" provider: a GGUF model run in-process by llama.cpp (xllamacpp, a prebuilt wheel), no key.

`Model(provider="local", id="smollm2")` runs the bundled SmolLM2-135M-Instruct; any other id is the
path of a GGUF file. llama.cpp's own server code runs inside the process (`xllamacpp.Server`): it
renders the prompt with the chat template stored in the file (Jinja) and streams each token's text to
a callback in a worker thread, so the event loop never waits on the model; an abort makes the callback
return True, which cancels generation at the next token. Usage is exact: the server's own
`stream_options.include_usage` count of prompt and generated tokens (the end-of-generation token
excluded). The server also listens on a free port of 127.0.0.1, which it cannot do without; that
port needs a random API key that nothing else knows, and rein never calls it.

Tools: each ```bash block of a finished reply becomes a `bash` tool call when the context offers
`bash` (stop reason "tool_use"; see `local_chat`), and the agent's steering checks it like any other.
A loaded model is kept for the life of the process, keyed by file and context size; one generation
runs on it at a time, and a retry reuses the prompt prefix already in its KV cache.

`StreamOptions.avoid` (what a stream rule cut from an earlier try of the turn) becomes a grammar that
every sampled token must keep to (`local_grammar`): the retry cannot write that text again, which no
hosted API can promise.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import secrets
import threading
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

import xllamacpp

from rein.ai._events import AssistantEvent, MessageBuilder
from rein.ai._messages import (
    Context,
    Model,
    Usage,
)
from rein.ai._stream import AssistantStream, Reader, StreamOptions, run_stream
from rein.ai.providers.local_chat import CALL_PREFIX, chat_messages, offers_bash, shell_commands
from rein.ai.providers.local_files import model_file
from rein.ai.providers.local_grammar import avoiding
from rein.ai.providers.local_reply import Finished, Reply

REPEAT_PENALTY = 1.1
"""llama.cpp's long-standing default: small models sampled greedily loop without it."""
DEFAULT_CONTEXT = 8192
"""Context size when the model names none: the bundled model's own, and a sane cap for larger files."""
MIN_CONTEXT = 256
THREADS = max(1, (os.cpu_count() or 2) // 2)
"""llama.cpp's own default for generation, used for the prompt too."""


_Item: TypeAlias = str | Finished | BaseException


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
                    if isinstance(item, Finished):
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
    """The worker thread: load (or reuse) the model, send text pieces as they come, then the end."""
    try:
        # A context under 256 tokens is rounded up by llama.cpp; ask for what it will really have.
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


def _sample(loaded: _Loaded, context: Context, model: Model, options: StreamOptions, job: _Job) -> Finished:
    temperature = 0.8 if options.temperature is None else options.temperature
    request: dict[str, object] = {
        "messages": chat_messages(context),
        "stream": True,
        "stream_options": {"include_usage": True},
        "timings_per_token": True,  # each chunk then says how many tokens were sampled so far
        "temperature": temperature,
        "repeat_penalty": REPEAT_PENALTY,
        "cache_prompt": True,  # llama-server's default, said aloud: a retry reuses the prompt prefix
    }
    if limit := options.max_tokens or model.max_output_tokens:
        request["max_tokens"] = limit
    if grammar := avoiding(options.avoid):
        request["grammar"] = grammar
    reply = Reply(job.send)

    def on_chunk(chunk: dict[str, object]) -> bool:
        # Runs inside llama.cpp, which swallows an exception and stops: keep it for the stream instead.
        try:
            if job.stop.is_set():
                job.record.aborted = True
                return True
            reply.read(chunk)
            job.record.tokens = reply.tokens
            return reply.failed is not None
        except BaseException as exc:
            reply.failed = exc
            return True

    try:
        loaded.server.handle_chat_completions(request, on_chunk)
    finally:
        job.record.stopped_at = time.perf_counter()
    if job.record.aborted:
        return Finished("stop", Usage())  # nobody reads it: the stream already ended as aborted
    if reply.failed is not None:
        job.record.prompt_tokens = reply.prompt_tokens
        raise reply.failed
    finished = reply.finished()
    job.record.prompt_tokens, job.record.tokens = finished.usage.input, finished.usage.output
    return finished


@dataclass(slots=True)
class _Loaded:
    server: xllamacpp.Server
    busy: threading.Lock
    api_key: str
    """The key of the server's HTTP port (`server.listening_address`): rein never calls it; tests do."""


_models: dict[tuple[Path, int], _Loaded] = {}
_loading = threading.Lock()
_running: set[threading.Event] = set()


def _load(path: Path, n_ctx: int) -> _Loaded:
    with _loading:
        loaded = _models.get((path, n_ctx))
        if loaded is None:
            key = secrets.token_urlsafe(32)
            server = xllamacpp.Server(_params(path, n_ctx, key))
            _models[path, n_ctx] = loaded = _Loaded(server, threading.Lock(), key)
        return loaded


def _params(path: Path, n_ctx: int, api_key: str) -> xllamacpp.CommonParams:
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx
    params.n_parallel = 1  # one slot: one generation at a time, and its KV cache kept for the next
    # One thread count for prompt and tokens: llama.cpp's default batch threads (every core) spin
    # against each other on a busy machine, and a cold prompt then took seconds instead of 0.6 s.
    params.cpuparams.n_threads = THREADS
    params.cpuparams_batch.n_threads = THREADS
    params.verbosity = -1  # no llama.cpp log on rein's terminal, errors included: they reach the stream
    params.port = 0  # the server must listen somewhere: a free port of 127.0.0.1 (its default host)
    params.api_keys = [api_key]  # so no other local process can use that port
    params.endpoint_metrics = False
    params.use_jinja = True  # the GGUF's own chat template, rendered as the model's authors wrote it
    return params


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
