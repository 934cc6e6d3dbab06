"""The local provider: SmolLM2-135M run in-process by llama.cpp (xllamacpp), greedy (temperature 0),
so replies are fixed.

Tests marked `local` run the bundled model (skip them with -m 'not local'); they keep replies to a few
tokens, because the model samples on the CPU. The others check the pure helpers and the paths that never
reach the model.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal as signals
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from rein.ai import (
    AbortSignal,
    AssistantEvent,
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    ImageContent,
    Message,
    Model,
    ProviderError,
    StopReason,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    get_provider,
    provider_names,
)
from rein.ai.providers import local, local_files
from rein.ai.providers.local import Generation, LocalProvider
from rein.ai.providers.local_chat import BASH_PROMPT, chat_messages, shell_commands
from rein.ai.providers.local_files import SYSTEM_PROMPT, bundled_model, model_file
from rein.ai.providers.local_reply import Finished
from tests.ai.helpers import abort_at_first, check_contract, collect, kinds, run

MODEL = Model(provider="local", id="smollm2")
TIMEOUT = 60.0
"""Bound of each model test's coroutine (`run`): generous, the CPU is shared with other work."""
SLACK = 2
"""Tokens a worker may sample past the last delta its consumer read before it stops: the stop flag is
read between tokens, so the token being computed when it is set is finished, and one more may already
wait in the queue, sampled but not yet read, when the event loop was slow to take it."""
NO_IMAGE = "[image omitted: the local model reads text only]"
BASH = Tool(name="bash", description="Run a shell command")
READ = Tool(name="read", description="Read a file")
PARIS = Context(system_prompt=SYSTEM_PROMPT, messages=(UserMessage.of("What is the capital of France?"),))
STORY = Context(
    system_prompt=SYSTEM_PROMPT,
    messages=(UserMessage.of("Write a long story about a dragon who learns to cook."),),
)
GIT = Context(
    system_prompt=SYSTEM_PROMPT,
    messages=(UserMessage.of("Show the current git branch."),),
    tools=(BASH,),
)


# No skip when the model is missing: `make test` installs it, and a broken install must fail here.
model_test = pytest.mark.local


def options(max_tokens: int, signal: AbortSignal | None = None) -> StreamOptions:
    return StreamOptions(temperature=0.0, max_tokens=max_tokens, signal=signal)


def deltas(events: list[AssistantEvent]) -> list[str]:
    return [event.delta for event in events if isinstance(event, TextDeltaEvent)]


class Hold:
    """Holds the worker after it sends its `after`-th text piece until `release()`: the worker cannot
    run ahead of a slow event loop, and a stream that waited for the worker would never end (the hold
    gives up after 10 s and sets `waited_out`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, after: int) -> None:
        self._released = threading.Event()
        self.waited_out = False
        make_job = local._Job

        def held_job(
            stop: threading.Event, send: Callable[[local._Item], None], record: Generation
        ) -> local._Job:
            pieces = 0

            def held(item: local._Item) -> None:
                nonlocal pieces
                send(item)
                pieces += isinstance(item, str)
                if isinstance(item, str) and pieces == after and not self._released.wait(timeout=10):
                    self.waited_out = True

            return make_job(stop, held, record)

        monkeypatch.setattr(local, "_Job", held_job)

    def release(self) -> None:
        self._released.set()


def served(path: str, body: dict[str, object]) -> object:
    """What the loaded model's llama.cpp server answers on its own HTTP port (which rein never calls)."""
    loaded = local._load(model_file("smollm2"), local.DEFAULT_CONTEXT)
    request = urllib.request.Request(
        f"{loaded.server.listening_address}{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": f"Bearer {loaded.api_key}"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def stopped(provider: LocalProvider) -> Generation:
    """The last generation, once its worker has stopped sampling (`join`), which must be soon."""
    provider.join(timeout=10)
    record = provider.generations[-1]
    assert record.stopped_at is not None, f"the worker is still sampling: {record}"
    return record


# -- pure helpers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "commands"),
    [
        ("Run:\n```bash\nnpm start\n```\nthen\n```sh\nls -la\n```", ["npm start", "ls -la"]),
        ("```shell\ncd app\nnpm install\n```", ["cd app\nnpm install"]),
        ("```shell\n# install first\nnpm install\n```", ["# install first\nnpm install"]),
        ("```bash  \nmake test\n```", ["make test"]),
        ("```bash\nls\n```\n```python\nprint(1)\n```", ["ls"]),
        ("```bash\n# only a comment\n\n```", []),
        ("```bash\n```", []),
        ("```javascript\nconsole.log(1)\n```", []),
        ("```\nls\n```", []),
        ("```shellscript\nls\n```", []),
        ("```bash\nnpm start", []),
        ("see ```bash\nls\n```", []),
        ("Just prose, no code.", []),
    ],
    ids=[
        "two-blocks-in-order",
        "multi-line",
        "comment-kept-with-a-command",
        "spaces-after-the-language",
        "other-languages-ignored",
        "comment-only",
        "empty",
        "javascript",
        "no-language",
        "not-a-shell-name",
        "unclosed",
        "fence-not-at-line-start",
        "prose",
    ],
)
def test_shell_commands_are_the_shell_blocks_of_a_reply(text: str, commands: list[str]) -> None:
    assert shell_commands(text) == commands


@pytest.mark.parametrize(
    ("system_prompt", "tools", "system"),
    [
        ("Be brief.", (), "Be brief."),
        ("Be brief.", (READ,), "Be brief."),
        ("Be brief.", (READ, BASH), f"Be brief.\n\n{BASH_PROMPT}"),
        (None, (BASH,), BASH_PROMPT),
        ("", (BASH,), BASH_PROMPT),
        (None, (READ,), None),
        ("", (), None),
    ],
    ids=["prompt", "prompt-no-bash", "prompt-and-bash", "bash-only", "empty-prompt-bash", "no-bash", "none"],
)
def test_chat_messages_system_prompt_says_how_to_run_bash_only_when_offered(
    system_prompt: str | None, tools: tuple[Tool, ...], system: str | None
) -> None:
    rendered = chat_messages(
        Context(system_prompt=system_prompt, messages=(UserMessage.of("hi"),), tools=tools)
    )
    expected: list[dict[str, str]] = [{"role": "system", "content": system}] if system is not None else []
    assert rendered == [*expected, {"role": "user", "content": "hi"}]


def reply(*content: TextContent | ThinkingContent | ToolCall, stop: StopReason = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=content,
        provider="local",
        model="smollm2",
        stop_reason=stop,
        error_message="cut" if stop in ("aborted", "error") else None,
    )


def test_chat_messages_render_tool_calls_results_and_images_as_text() -> None:
    image = ImageContent(data="aGk=", mime_type="image/png")
    messages: tuple[Message, ...] = (
        UserMessage.of("look", image),
        reply(
            ThinkingContent(thinking="I should read it.", signature="sig"),
            TextContent(text="Reading."),
            ToolCall(id="call_1", name="read", arguments={"path": "a.py"}),
            ToolCall(id="call_2", name="read", raw_arguments='{"path":"b.py"}'),
            stop="tool_use",
        ),
        ToolResultMessage(tool_call_id="call_1", tool_name="read", content=(TextContent(text="print(1)"),)),
        ToolResultMessage(
            tool_call_id="call_2",
            tool_name="read",
            content=(TextContent(text="no b.py"), image),
            is_error=True,
        ),
        # A call the local provider made from a ```bash block: the text already holds the command.
        reply(
            TextContent(text="```bash\nls\n```"),
            ToolCall(
                id="local-1", name="bash", arguments={"command": "ls"}, raw_arguments='{"command": "ls"}'
            ),
            stop="tool_use",
        ),
        ToolResultMessage(tool_call_id="local-1", tool_name="bash", content=(TextContent(text="a.py"),)),
        reply(TextContent(text="half a rep"), stop="aborted"),  # failed replies are not replayed
        reply(TextContent(text="broken"), stop="error"),
        reply(ThinkingContent(thinking="only thoughts")),  # nothing to send back: left out
        UserMessage.of("thanks"),
    )
    assert chat_messages(Context(system_prompt="Be brief.", messages=messages, tools=(BASH,))) == [
        {"role": "system", "content": f"Be brief.\n\n{BASH_PROMPT}"},
        {"role": "user", "content": f"look{NO_IMAGE}"},
        {
            "role": "assistant",
            "content": 'Reading.\n[tool call read {"path": "a.py"}]\n[tool call read {"path":"b.py"}]',
        },
        {"role": "user", "content": "[tool read returned]\nprint(1)"},
        {"role": "user", "content": f"[tool read failed]\nno b.py{NO_IMAGE}"},
        {"role": "assistant", "content": "```bash\nls\n```"},
        {"role": "user", "content": "[tool bash returned]\na.py"},
        {"role": "user", "content": "thanks"},
    ]


def test_model_file_names_a_missing_path_clearly(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ProviderError) as raised:
        model_file(str(missing))
    assert str(raised.value) == f"{missing}: no such GGUF file (give --model a path, or 'smollm2')"
    with pytest.raises(ProviderError, match="no such GGUF file"):
        model_file(str(tmp_path))  # a folder is no model file either


def test_model_file_takes_any_existing_path_and_expands_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    assert model_file(str(tmp_path / "m.gguf")) == tmp_path / "m.gguf"
    assert model_file("~/m.gguf") == tmp_path / "m.gguf"


def test_model_file_says_how_to_install_a_missing_bundled_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_files, "bundled_model", lambda: None)
    with pytest.raises(ProviderError) as raised:
        model_file("smollm2")
    assert str(raised.value) == f"the bundled model is not installed: {local_files.INSTALL_HINT}"


@model_test
def test_model_file_of_smollm2_is_the_bundled_gguf() -> None:
    path = model_file("smollm2")
    assert path == bundled_model() and path.is_file() and path.suffix == ".gguf"
    assert path.read_bytes()[:4] == b"GGUF"


def test_the_registry_name_local_is_the_local_provider() -> None:
    assert "local" in provider_names()
    assert isinstance(get_provider("local"), LocalProvider)


def test_a_nonexistent_gguf_path_ends_in_an_error_event_naming_it(tmp_path: Path) -> None:
    provider = LocalProvider()
    missing = str(tmp_path / "missing.gguf")
    events = run(collect(provider.stream(Model(provider="local", id=missing), PARIS, options(8))))
    assert kinds(events) == ["start", "error"]
    message = check_contract(events)
    assert message.stop_reason == "error"
    assert message.error_message == f"{missing}: no such GGUF file (give --model a path, or 'smollm2')"
    assert (message.provider, message.model) == ("local", missing)
    record = stopped(provider)
    assert (record.prompt_tokens, record.tokens) == (0, 0)


def test_a_signal_aborted_before_the_start_sends_nothing() -> None:
    provider = LocalProvider()
    signal = AbortSignal()
    signal.abort("too late")
    events = run(collect(provider.stream(MODEL, PARIS, options(8, signal))))
    assert kinds(events) == ["start", "error"]
    message = check_contract(events)
    assert (message.stop_reason, message.error_message) == ("aborted", "too late")
    assert provider.generations == []  # no worker was started, the model was not even loaded


# -- the model ------------------------------------------------------------------------------------


@model_test
def test_streams_real_text_under_the_contract() -> None:
    events = run(collect(LocalProvider().stream(MODEL, PARIS, options(24))), TIMEOUT)
    message = check_contract(events)
    assert kinds(events)[:3] == ["start", "text_start", "text_delta"]
    assert kinds(events)[-2:] == ["text_end", "done"]
    assert len(deltas(events)) > 3, "the text streams token by token"
    assert "Paris" in message.text and message.text == "".join(deltas(events))
    assert message.stop_reason == "stop"
    assert (message.provider, message.model) == ("local", "smollm2")


@model_test
def test_usage_is_exact_and_matches_the_generation() -> None:
    provider = LocalProvider()
    events = run(collect(provider.stream(MODEL, PARIS, options(24))), TIMEOUT)
    message = check_contract(events)
    record = stopped(provider)
    assert message.stop_reason == "stop"  # ended by the model: the end token is not counted
    assert len(provider.generations) == 1
    assert (message.usage.input, message.usage.output) == (record.prompt_tokens, record.tokens)
    # The prompt is SmolLM2's ChatML with the generation prompt, as the model's own tokenizer counts it.
    chatml = (
        f"<|im_start|>system\n{SYSTEM_PROMPT}<|im_end|>\n"
        "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
    )
    assert served("/apply-template", {"messages": chat_messages(PARIS)}) == {"prompt": chatml}
    tokens = served("/tokenize", {"content": chatml, "add_special": False, "parse_special": True})
    assert isinstance(tokens, dict) and isinstance(tokens["tokens"], list)
    assert message.usage.input == len(tokens["tokens"])
    # Each sampled token of an ASCII reply is one non-empty text delta.
    assert message.text.isascii()
    assert message.usage.output == len(deltas(events))
    assert (message.usage.cache_read, message.usage.cache_write) == (0, 0)


@model_test
def test_max_tokens_cuts_the_reply_with_stop_reason_length() -> None:
    provider = LocalProvider()
    events = run(collect(provider.stream(MODEL, STORY, options(5))), TIMEOUT)
    message = check_contract(events)
    assert (message.stop_reason, message.usage.output) == ("length", 5)
    assert stopped(provider).tokens == 5
    assert message.text


@model_test
def test_greedy_sampling_gives_the_same_reply_twice() -> None:
    first, second = LocalProvider(), LocalProvider()
    one = run(collect(first.stream(MODEL, STORY, options(16))), TIMEOUT)
    two = run(collect(second.stream(MODEL, STORY, options(16))), TIMEOUT)
    assert deltas(one) == deltas(two) and len(deltas(one)) > 5
    assert check_contract(one).usage == check_contract(two).usage


@model_test
def test_an_abort_at_the_first_delta_ends_at_once_and_stops_the_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hold = Hold(monkeypatch, after=1)  # released by the final event
    provider = LocalProvider()
    signal = AbortSignal()
    cut = abort_at_first(TextDeltaEvent, signal)

    def on_event(event: AssistantEvent) -> None:
        cut(event)
        if isinstance(event, ErrorEvent):
            hold.release()

    events = run(collect(provider.stream(MODEL, STORY, options(64, signal)), on_event), TIMEOUT)
    assert kinds(events) == ["start", "text_start", "text_delta", "error"]
    message = check_contract(events)
    assert (message.stop_reason, message.error_message) == ("aborted", "rule fired")
    assert not hold.waited_out, "the final event does not wait for the worker"
    record = stopped(provider)
    assert record.aborted
    assert 1 <= record.tokens <= 1 + SLACK, f"the worker went on sampling: {record}"


@model_test
def test_an_abort_while_waiting_for_a_token_ends_at_once_and_stops_the_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hold = Hold(monkeypatch, after=1)  # no second token comes until the final event is out
    provider = LocalProvider()
    signal = AbortSignal()
    received: list[str] = []
    delivered: list[int] = []  # how many deltas the consumer had when it aborted

    def fire() -> None:
        delivered.append(len(received))
        signal.abort()

    def on_event(event: AssistantEvent) -> None:
        if isinstance(event, TextDeltaEvent):
            if not received:  # the abort runs from the event loop, so while the stream awaits a token
                asyncio.get_running_loop().call_soon(fire)
            received.append(event.delta)
        if isinstance(event, ErrorEvent):
            hold.release()

    events = run(collect(provider.stream(MODEL, STORY, options(64, signal)), on_event), TIMEOUT)
    message = check_contract(events)
    assert (message.stop_reason, message.error_message) == ("aborted", "aborted")
    assert not hold.waited_out, "the pending read is interrupted, not waited for"
    assert delivered == [1] and len(deltas(events)) == 1, "no delta after the abort"
    record = stopped(provider)
    assert record.aborted
    assert 1 <= record.tokens <= 1 + SLACK, f"the worker went on sampling: {record}"


@model_test
def test_closing_the_stream_early_stops_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    hold = Hold(monkeypatch, after=3)  # released once the stream is closed
    provider = LocalProvider()

    async def scenario() -> int:
        stream = provider.stream(MODEL, STORY, options(64))
        received = 0
        async for event in stream:
            received += isinstance(event, TextDeltaEvent)
            if received == 3:
                break
        await stream.aclose()
        hold.release()
        return received

    assert run(scenario(), TIMEOUT) == 3
    assert not hold.waited_out, "closing does not wait for the worker"
    record = stopped(provider)
    assert record.aborted
    assert 3 <= record.tokens <= 3 + SLACK, f"the worker went on sampling: {record}"


@model_test
def test_a_bash_block_becomes_a_bash_tool_call_when_bash_is_offered() -> None:
    provider = LocalProvider()
    events = run(collect(provider.stream(MODEL, GIT, options(40))), TIMEOUT)
    message = check_contract(events)
    assert kinds(events)[-5:] == ["text_end", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]
    # The reply may go on in prose after its one block: still a call, whatever ended it.
    assert message.text.startswith("```bash\ngit branch -vx\n```\n") and message.text.count("```") == 2
    assert message.tool_calls == (
        ToolCall(
            id="local-1",
            name="bash",
            arguments={"command": "git branch -vx"},
            raw_arguments=json.dumps({"command": "git branch -vx"}),
        ),
    )
    assert message.stop_reason == "tool_use"
    assert message.usage.output == stopped(provider).tokens
    # Replayed, the call is not written twice: the text already holds the command.
    replayed = chat_messages(Context(messages=(*GIT.messages, message), tools=GIT.tools))
    assert replayed[-1] == {"role": "assistant", "content": message.text}


@model_test
def test_a_prompt_longer_than_the_context_is_an_error_event() -> None:
    provider = LocalProvider()
    small = Model(provider="local", id="smollm2", context_window=256)
    long = Context(messages=(UserMessage.of("word " * 300),))
    events = run(collect(provider.stream(small, long, options(8))), TIMEOUT)
    message = check_contract(events)
    record = stopped(provider)
    assert record.prompt_tokens > 256 and record.tokens == 0
    assert message.stop_reason == "error"
    assert message.error_message == f"the prompt is {record.prompt_tokens} tokens; the model's context is 256"


@model_test
def test_a_generation_that_ended_by_itself_is_not_recorded_as_aborted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Make the losing order of the race certain: the worker waits, after sending its end, until the
    # consumer has the done event.
    consumer_done = threading.Event()
    make_job = local._Job

    def gated_job(
        stop: threading.Event, send: Callable[[local._Item], None], record: Generation
    ) -> local._Job:
        def gated(item: local._Item) -> None:
            send(item)
            if isinstance(item, Finished):
                consumer_done.wait(timeout=10)

        return make_job(stop, gated, record)

    def on_event(event: AssistantEvent) -> None:
        if isinstance(event, DoneEvent):
            consumer_done.set()

    monkeypatch.setattr(local, "_Job", gated_job)
    provider = LocalProvider()
    message = check_contract(run(collect(provider.stream(MODEL, STORY, options(3)), on_event), TIMEOUT))
    assert message.stop_reason == "length"
    assert stopped(provider).aborted is False


@model_test
def test_the_servers_http_port_refuses_a_call_without_its_key() -> None:
    loaded = local._load(model_file("smollm2"), local.DEFAULT_CONTEXT)
    assert loaded.server.listening_address.startswith("http://127.0.0.1:")
    request = urllib.request.Request(
        f"{loaded.server.listening_address}/v1/chat/completions",
        data=json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}).encode(),
        headers={"content-type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    refused.value.close()
    assert refused.value.code == 401


SILENT_RUN = """
import asyncio, os, signal
from rein.ai import Context, Model, StreamOptions, UserMessage
from rein.ai.providers.local import LocalProvider
context = Context(messages=(UserMessage.of("What is the capital of France?"),))
options = StreamOptions(temperature=0.0, max_tokens=4)
model = Model(provider="local", id="smollm2")
message = asyncio.run(LocalProvider().stream(model, context, options).result())
print(message.stop_reason, flush=True)
try:
    os.kill(os.getpid(), signal.SIGINT)
    signal.sigtimedwait([], 0)  # lets the handler run
    print("no KeyboardInterrupt", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
"""


@model_test
@pytest.mark.slow
def test_the_model_prints_nothing_and_leaves_ctrl_c_to_python() -> None:
    # llama.cpp's server code logs to stderr and may install its own SIGINT handler: neither may reach
    # rein's terminal.
    done = subprocess.run(
        [sys.executable, "-c", SILENT_RUN],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ | {"PYTHONWARNINGS": "error"},
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.split("\n") == ["length", "KeyboardInterrupt", ""]
    assert signals.getsignal(signals.SIGINT) is signals.default_int_handler  # and this process kept it too
