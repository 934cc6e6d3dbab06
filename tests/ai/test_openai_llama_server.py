"""The openai provider against a real OpenAI-compatible peer: llama.cpp's own server (llama-server).

`python -m tests.ai.llama_server` runs it (xllamacpp's `Server`) with the bundled SmolLM2-135M model as
a subprocess on a port of 127.0.0.1 that it picks itself (port 0, read back from its output: no other
process can take it first);
the tests stream real replies from it, abort one, kill a server mid-reply and call a port where
nothing listens. Replies are kept short: the model runs on the CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from signal import SIGKILL

import pytest

from rein.ai import (
    AbortSignal,
    AssistantEvent,
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    JsonValue,
    Model,
    StreamOptions,
    TextDeltaEvent,
    Usage,
    UserMessage,
)
from rein.ai.providers.local_files import bundled_model
from rein.ai.providers.openai_chat import OpenAIChatProvider, build_request
from tests.ai.helpers import check_contract, collect, kinds, run

# No skip when llama.cpp is missing: `make test` installs it, and a broken install must fail here.
# Run `pytest -m "not local"` to leave these tests out.
pytestmark = pytest.mark.local

MODEL_ID = "smollm2"
"""The alias the server is started with; it would answer to any name (an unknown one means its model)."""
STARTUP_SECONDS = 60.0
TIMEOUT = 20.0
"""Bound of each test's coroutine (`run`): generous, the CPU is shared."""
DISCONNECTED = "stop: cancel task"
"""What llama-server logs when a streaming client goes away mid-reply (it cancels the task at once)."""
STORY = "Write a long story about a dragon who learns to cook."


@dataclass(frozen=True, slots=True)
class LlamaServer:
    process: subprocess.Popen[bytes]
    port: int
    log: Path
    """The server's stderr and stdout (its address, and llama.cpp's log: each task and each cancel)."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def model(self) -> Model:
        return Model(provider="openai", id=MODEL_ID, base_url=self.base_url)


LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)\n")
"""What the server prints once it listens; with port 0 it names the port the system gave it."""


@contextlib.contextmanager
def llama_server(log: Path) -> Iterator[LlamaServer]:
    """A running llama-server, its output in `log`; stopped (killed if need be) on exit. It runs one
    thread throughout (the CPU is shared, and spinning threads fight for it); see tests/ai/llama_server.py."""
    model_path = bundled_model()
    assert model_path is not None
    command = [
        sys.executable,
        "-m",
        "tests.ai.llama_server",
        str(model_path),
        "--alias",
        MODEL_ID,
        "--n-ctx",
        "1024",
    ]
    environment = os.environ | {"PYTHONUNBUFFERED": "1"}  # its prints reach the log as they happen
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=environment,
            cwd=Path(__file__).parents[2],  # where `tests` is importable
        )
    try:
        port = wait_until_up(process, log)
        yield LlamaServer(process=process, port=port, log=log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def read_log(log: Path) -> str:
    return log.read_text(errors="replace")


def wait_until_up(process: subprocess.Popen[bytes], log: Path) -> int:
    """The server's port, once it listens and `/v1/models` lists the model; fail with its output if it
    never does."""
    deadline = time.monotonic() + STARTUP_SECONDS
    last_error = "no answer yet"
    port = 0
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"llama-server exited with {process.returncode}; its output:\n{read_log(log)}")
        port = port or next((int(found[1]) for found in LISTENING.finditer(read_log(log))), 0)
        if not port:
            time.sleep(0.1)  # polling its log: the model loads before it listens
            continue
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as response:
                listing = json.load(response)
            assert [entry["id"] for entry in listing["data"]] == [MODEL_ID], listing
            return port
        except (OSError, ValueError) as exc:  # refused while loading; URLError and timeouts are OSErrors
            last_error = f"{type(exc).__name__}: {exc}"
        time.sleep(0.1)
    pytest.fail(
        f"llama-server did not answer on port {port or '(none logged)'} within {STARTUP_SECONDS:.0f}s "
        f"({last_error}); its output:\n{read_log(log)}"
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    with llama_server(tmp_path_factory.mktemp("llama") / "server.log") as running:
        yield running


@pytest.fixture
def doomed_server(tmp_path: Path) -> Iterator[LlamaServer]:
    """A server of its own, for the test that kills it."""
    with llama_server(tmp_path / "server.log") as running:
        yield running


def ask(prompt: str) -> Context:
    return Context(messages=(UserMessage.of(prompt),))


def options(max_tokens: int, signal: AbortSignal | None = None) -> StreamOptions:
    return StreamOptions(
        temperature=0.0, max_tokens=max_tokens, signal=signal or AbortSignal(), max_retries=0, timeout=15.0
    )


async def reply(model: Model, context: Context, opts: StreamOptions) -> list[AssistantEvent]:
    return await collect(OpenAIChatProvider().stream(model, context, opts))


async def logged(server: LlamaServer, text: str, count: int, within: float) -> None:
    """Wait until the server's log holds `text` `count` times; fail with the log if it does not."""
    deadline = time.monotonic() + within
    while read_log(server.log).count(text) < count:
        if time.monotonic() > deadline:
            pytest.fail(f"the server never logged {text!r} ({within}s); its log:\n{read_log(server.log)}")
        await asyncio.sleep(0.05)


def deltas(events: list[AssistantEvent]) -> list[str]:
    return [event.delta for event in events if isinstance(event, TextDeltaEvent)]


def raw_chunks(server: LlamaServer, body: Mapping[str, object]) -> list[dict[str, JsonValue]]:
    """The chunks of one streamed request, read off the wire without the SDK."""
    request = urllib.request.Request(
        server.base_url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    chunks: list[dict[str, JsonValue]] = []
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        for raw_line in response:
            line = raw_line.decode().strip()
            if line.startswith("data: ") and line != "data: [DONE]":
                chunks.append(json.loads(line.removeprefix("data: ")))
    return chunks


def test_a_reply_streams_as_text_deltas(server: LlamaServer) -> None:
    events = run(reply(server.model(), ask("Say hello to the world in one sentence."), options(24)), TIMEOUT)
    message = check_contract(events)
    assert isinstance(events[-1], DoneEvent)
    assert kinds(events)[:2] == ["start", "text_start"]
    assert kinds(events)[-2:] == ["text_end", "done"]
    assert len(deltas(events)) >= 3, "the server streams token by token"
    assert re.search(r"[A-Za-z]{2}", message.text), message.text
    assert message.stop_reason in {"stop", "length"}
    assert (message.provider, message.model) == ("openai", MODEL_ID)
    assert (message.response_id or "").startswith("chatcmpl-")


def test_the_servers_usage_reaches_the_reply(server: LlamaServer) -> None:
    # llama-server honours `stream_options: {include_usage: true}`: a last chunk, without choices,
    # carries the usage (llama_cpp.server ignored it, and the reply had none).
    model, context, opts = server.model(), ask("Name three colours."), options(8)
    body = build_request(model, context, opts, official=False)
    assert body.get("stream_options") == {"include_usage": True}
    chunks = raw_chunks(server, body)
    assert chunks, "the server streamed something"
    [last] = [chunk for chunk in chunks if chunk.get("usage") is not None]
    assert last is chunks[-1] and last["choices"] == []
    message = check_contract(run(reply(model, context, opts), TIMEOUT))
    assert message.stop_reason in {"stop", "length"} and message.text
    assert message.usage.input > 0 and 0 < message.usage.output <= 8
    assert message.usage != Usage()


def test_max_tokens_ends_the_reply_with_length(server: LlamaServer) -> None:
    events = run(reply(server.model(), ask(STORY), options(4)), TIMEOUT)
    message = check_contract(events)
    assert isinstance(events[-1], DoneEvent)
    assert message.stop_reason == "length"
    assert message.text
    assert 1 <= len(deltas(events)) <= 4, "at most one delta per token"


def test_an_abort_at_the_first_delta_stops_the_reply_at_once(server: LlamaServer) -> None:
    signal = AbortSignal()
    aborted_at: list[float] = []

    def abort_at_first_delta(event: AssistantEvent) -> None:
        if isinstance(event, TextDeltaEvent) and not aborted_at:
            aborted_at.append(time.monotonic())
            signal.abort("rule fired")

    disconnects = read_log(server.log).count(DISCONNECTED)

    async def scenario() -> tuple[list[AssistantEvent], float, AssistantMessage]:
        # A full reply would be 256 tokens: many seconds on this CPU.
        stream = OpenAIChatProvider().stream(server.model(), ask(STORY), options(256, signal))
        events = await collect(stream, abort_at_first_delta)
        ended_at = time.monotonic()
        # The provider closed the response: the server sees the client go (at its next token) and
        # stops generating. Checked before the next request, which would interrupt the reply anyway.
        await logged(server, DISCONNECTED, disconnects + 1, within=5.0)
        after = await OpenAIChatProvider().stream(server.model(), ask("Say hi."), options(4)).result()
        return events, ended_at, after

    events, ended_at, after = run(scenario(), TIMEOUT)
    message = check_contract(events)
    assert kinds(events) == ["start", "text_start", "text_delta", "error"], "no delta after the abort"
    assert isinstance(events[-1], ErrorEvent)
    assert message.stop_reason == "aborted"
    assert message.error_message == "rule fired"
    assert message.text == deltas(events)[0]
    assert ended_at - aborted_at[0] < 1.0, "the final event follows the abort at once"
    # The server is still usable.
    assert after.stop_reason in {"stop", "length"} and after.text, after.error_message


def test_a_server_killed_mid_reply_ends_the_stream_with_an_error(doomed_server: LlamaServer) -> None:
    seen: list[str] = []

    def kill_at_second_delta(event: AssistantEvent) -> None:
        if isinstance(event, TextDeltaEvent):
            seen.append(event.delta)
            if len(seen) == 2:
                doomed_server.process.kill()

    async def scenario() -> list[AssistantEvent]:
        stream = OpenAIChatProvider().stream(doomed_server.model(), ask(STORY), options(512))
        return await collect(stream, kill_at_second_delta)

    events = run(scenario(), TIMEOUT)
    assert doomed_server.process.wait(timeout=5) == -SIGKILL, "the server died of the kill"
    message = check_contract(events)
    assert isinstance(events[-1], ErrorEvent)
    assert [event for event in events if isinstance(event, ErrorEvent)] == [events[-1]]
    assert message.stop_reason == "error"
    # The SDK wraps the transport's failure (h11 sees the chunked body cut short) as a connection
    # error; a reset may surface as a read error instead.
    prefix = f"connection to the server at {doomed_server.base_url} failed: "
    assert re.fullmatch(
        re.escape(prefix) + r"(RemoteProtocolError|ReadError): .+", message.error_message or ""
    ), message.error_message
    # What arrived before the server died is kept; deltas already in flight may follow the kill.
    assert message.text.startswith("".join(seen[:2])) and message.text == "".join(deltas(events))


def test_no_server_listening_is_a_connection_error() -> None:
    with socket.socket() as bound:  # held, never listening: refused, and no parallel test can take it
        bound.bind(("127.0.0.1", 0))
        base_url = f"http://127.0.0.1:{bound.getsockname()[1]}/v1"
        model = Model(provider="openai", id=MODEL_ID, base_url=base_url)
        events = run(reply(model, ask("hi"), options(8)), TIMEOUT)
    message = check_contract(events)
    assert kinds(events) == ["start", "error"]
    assert message.stop_reason == "error"
    prefix = f"connection to the server at {base_url} failed: ConnectError: "
    assert (message.error_message or "").startswith(prefix), message.error_message
