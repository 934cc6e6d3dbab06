"""The agent loop on the faux provider: events, tools, scheduling, the stream hook, abort, queues."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from rein.agent import (
    AbortRetry,
    AgentConfig,
    AgentEvent,
    AgentMessage,
    Block,
    CustomMessage,
    ExecutionMode,
    StreamDelta,
    ToolCallInfo,
    ToolContext,
    ToolOutput,
    run_agent,
)
from rein.ai import (
    AbortSignal,
    AssistantMessage,
    AssistantStream,
    Context,
    Model,
    StreamOptions,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from rein.ai.providers.faux import FauxProvider, FauxTurn

MODEL = Model(provider="faux", id="faux-1")


@dataclass
class Recorder:
    events: list[AgentEvent] = field(default_factory=list)

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def types(self) -> list[str]:
        return [e.type for e in self.events if e.type != "message_update"]


@dataclass
class Sleepy:
    """A test tool that records when it starts and ends."""

    name: str
    execution_mode: ExecutionMode = "parallel"
    log: list[str] = field(default_factory=list)
    description: str = "test tool"
    parameters: Mapping[str, object] = field(default_factory=lambda: {"type": "object", "properties": {}})
    updates: int = 0

    def mutates(self, args: Mapping[str, object], cwd: str) -> str | None:
        path = args.get("path")
        return path if isinstance(path, str) else None

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        label = str(args.get("label", self.name))
        self.log.append(f"start {label}")
        for index in range(self.updates):
            context.on_update(ToolOutput(text=f"progress {index}"))
        await asyncio.sleep(float(str(args.get("sleep", 0.01))))
        self.log.append(f"end {label}")
        return ToolOutput(text=f"done {label}")


def call(id: str, name: str, **arguments: object) -> ToolCall:
    return ToolCall(id=id, name=name, arguments=arguments)  # type: ignore[arg-type]


def run(
    script: Sequence[FauxTurn | Callable[[Context], FauxTurn]],
    prompt: str = "go",
    signal: AbortSignal | None = None,
    **config: object,
) -> tuple[list[AgentMessage], Recorder, FauxProvider]:
    faux = FauxProvider(script, chunk_size=3)
    recorder = Recorder()
    settings = AgentConfig(provider=faux, model=MODEL, **config)  # type: ignore[arg-type]
    added = asyncio.run(run_agent([UserMessage.of(prompt)], [], settings, signal or AbortSignal(), recorder))
    return added, recorder, faux


def test_a_plain_reply_emits_lifecycle_pairs() -> None:
    added, recorder, _ = run([[TextContent(text="hello there")]])
    assert recorder.types() == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    reply = added[-1]
    assert isinstance(reply, AssistantMessage) and reply.text == "hello there"
    updates = [e for e in recorder.events if e.type == "message_update"]
    assert "".join(e.delta.delta for e in updates if e.delta) == "hello there"


def test_tool_calls_run_and_results_come_back_in_order() -> None:
    tool = Sleepy(name="t")
    script: list[FauxTurn] = [
        [
            call("a", "t", label="slow", sleep=0.05),
            call("b", "t", label="fast", sleep=0.0),
            call("c", "nope"),
        ],
        [TextContent(text="ok")],
    ]
    added, recorder, _ = run(script, tools=[tool])
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ["a", "b", "c"]
    assert results[0].content[0] == TextContent(text="done slow")
    assert results[2].is_error and "unknown tool 'nope'" in str(results[2].content[0])
    assert tool.log.index("end fast") < tool.log.index("end slow")  # parallel
    assert recorder.types().count("turn_start") == 2


def test_sequential_tool_is_a_barrier() -> None:
    log: list[str] = []
    par = Sleepy(name="p", log=log)
    seq = Sleepy(name="s", execution_mode="sequential", log=log)
    script: list[FauxTurn] = [
        [
            call("1", "p", label="p1", sleep=0.03),
            call("2", "p", label="p2", sleep=0.01),
            call("3", "s", label="s1"),
            call("4", "p", label="p3"),
        ],
        [TextContent(text="ok")],
    ]
    run(script, tools=[par, seq])
    assert log.index("end p1") < log.index("start s1")
    assert log.index("end s1") < log.index("start p3")
    assert log.index("start p2") < log.index("end p1")


def test_writes_to_one_path_keep_the_model_order() -> None:
    log: list[str] = []
    tool = Sleepy(name="w", log=log)
    script: list[FauxTurn] = [
        [
            call("1", "w", label="first", path="/x", sleep=0.03),
            call("2", "w", label="second", path="/x", sleep=0.0),
            call("3", "w", label="other", path="/y", sleep=0.0),
        ],
        [TextContent(text="ok")],
    ]
    run(script, tools=[tool])
    assert log.index("end first") < log.index("start second")
    assert log.index("start other") < log.index("end first")


def test_stream_hook_cuts_injects_and_retries() -> None:
    seen: list[Context] = []

    def second(context: Context) -> FauxTurn:
        seen.append(context)
        return [TextContent(text="logger.info(x)")]

    deltas: list[str] = []

    def hook(delta: StreamDelta) -> AbortRetry | None:
        deltas.append(delta.delta)
        if "console.log(" in delta.partial.text:
            return AbortRetry(inject=[CustomMessage(custom_type="ttsr-injection", content="use the logger")])
        return None

    script: list[FauxTurn | Callable[[Context], FauxTurn]] = [
        [TextContent(text="x; console.log(secret); and much more text after the match")],
        second,
    ]
    added, recorder, faux = run(script, on_stream_delta=hook)
    assert faux.calls == 2
    streamed = "".join(deltas)
    assert "console.log(" in streamed and "much more" not in streamed  # no delta after the cut
    retry = [e for e in recorder.events if e.type == "stream_retry"]
    assert len(retry) == 1
    context_text = str(seen[0].messages)
    assert "use the logger" in context_text and "console.log" not in context_text
    assert [type(m).__name__ for m in added] == ["UserMessage", "CustomMessage", "AssistantMessage"]


def test_stream_hook_keep_partial() -> None:
    seen: list[Context] = []

    def second(context: Context) -> FauxTurn:
        seen.append(context)
        return [TextContent(text="fine")]

    def hook(delta: StreamDelta) -> AbortRetry | None:
        if "bad" in delta.partial.text:
            return AbortRetry(inject=[CustomMessage(custom_type="r", content="rule")], keep_partial=True)
        return None

    run([[TextContent(text="so bad here")], second], on_stream_delta=hook)
    kept = [m for m in seen[0].messages if isinstance(m, AssistantMessage)]
    assert len(kept) == 1 and "bad" in kept[0].text and kept[0].stop_reason == "stop"


def test_a_rule_that_keeps_firing_stops_after_the_retry_limit() -> None:
    script = [[TextContent(text="bad bad bad")]] * 4
    added, _, faux = run(
        script,
        on_stream_delta=lambda d: AbortRetry(inject=[]) if "bad" in d.partial.text else None,
        max_retries_per_turn=2,
    )
    assert faux.calls == 3
    assert isinstance(added[-1], AssistantMessage) and added[-1].text == "bad bad bad"


def test_before_tool_call_blocks_and_after_tool_call_rewrites() -> None:
    tool = Sleepy(name="t")

    async def before(info: ToolCallInfo) -> Block | None:
        return Block(reason="[steering:no@user] not this") if info.call.id == "a" else None

    async def after(info: ToolCallInfo, output: ToolOutput) -> ToolOutput | None:
        return ToolOutput(text="reminder\n" + output.text, is_error=output.is_error)

    script: list[FauxTurn] = [[call("a", "t"), call("b", "t")], [TextContent(text="ok")]]
    added, _, _ = run(script, tools=[tool], before_tool_call=before, after_tool_call=after)
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert results[0].is_error and results[0].content[0] == TextContent(
        text="reminder\n[steering:no@user] not this"
    )
    assert results[1].content[0] == TextContent(text="reminder\ndone t")
    assert tool.log == ["start t", "end t"]


def test_a_raising_before_hook_blocks() -> None:
    async def before(info: ToolCallInfo) -> Block | None:
        raise RuntimeError("boom")

    script: list[FauxTurn] = [[call("a", "t")], [TextContent(text="ok")]]
    added, _, _ = run(script, tools=[Sleepy(name="t")], before_tool_call=before)
    result = next(m for m in added if isinstance(m, ToolResultMessage))
    assert result.is_error and "boom" in str(result.content[0])


def test_progress_updates_are_coalesced_and_flushed_before_end() -> None:
    tool = Sleepy(name="t", updates=50)
    _, recorder, _ = run([[call("a", "t")], [TextContent(text="ok")]], tools=[tool])
    kinds = [e.type for e in recorder.events if e.type.startswith("tool_execution")]
    assert kinds[0] == "tool_execution_start" and kinds[-1] == "tool_execution_end"
    updates = [e for e in recorder.events if e.type == "tool_execution_update"]
    assert 1 <= len(updates) < 50
    assert updates[-1].output is not None and updates[-1].output.text == "progress 49"


def test_abort_mid_stream_ends_the_run() -> None:
    signal = AbortSignal()

    def hook(delta: StreamDelta) -> AbortRetry | None:
        if len(delta.partial.text) > 6:
            signal.abort()
        return None

    added, recorder, faux = run(
        [[TextContent(text="a long reply that goes on")]], signal=signal, on_stream_delta=hook
    )
    reply = added[-1]
    assert isinstance(reply, AssistantMessage) and reply.stop_reason == "aborted"
    assert len(reply.text) < 12 and faux.calls == 1
    assert recorder.types()[-1] == "agent_end"


def test_abort_during_tools_stops_after_the_batch() -> None:
    signal = AbortSignal()

    class Aborting(Sleepy):
        async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
            signal.abort()
            return ToolOutput(text="aborted it")

    script: list[FauxTurn] = [[call("a", "x"), call("b", "t")], [TextContent(text="never")]]
    added, _, faux = run(
        script, signal=signal, tools=[Aborting(name="x", execution_mode="sequential"), Sleepy(name="t")]
    )
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert results[1].is_error and "aborted" in str(results[1].content[0])
    assert faux.calls == 1


def test_steering_and_follow_up_queues() -> None:
    steering = [[UserMessage.of("also check tests")]]
    follow = [[UserMessage.of("now summarize")]]
    script: list[FauxTurn] = [[call("a", "t")], [TextContent(text="checked")], [TextContent(text="summary")]]
    added, _, faux = run(
        script,
        tools=[Sleepy(name="t")],
        steering_messages=lambda: steering.pop() if steering else [],
        follow_up_messages=lambda: follow.pop() if follow else [],
    )
    texts = [m.text for m in added if isinstance(m, AssistantMessage)]
    assert texts[-2:] == ["checked", "summary"] and faux.calls == 3
    users = [m for m in added if isinstance(m, UserMessage)]
    assert len(users) == 3


def test_provider_error_ends_the_turn_without_raising() -> None:
    added, recorder, _ = run([])  # the exhausted script makes the provider fail
    reply = added[-1]
    assert isinstance(reply, AssistantMessage) and reply.stop_reason == "error"
    assert "exhausted" in (reply.error_message or "")
    assert recorder.types()[-2:] == ["turn_end", "agent_end"]


def test_the_same_call_past_the_limit_in_a_row_is_not_run_and_the_run_ends() -> None:
    """A model sending one command over and over (a small local model did, 7 times): past
    `max_repeated_calls` in a row the call gets a notice instead of running, and the run stops."""
    tool = Sleepy(name="t")
    script: list[FauxTurn] = [[call(f"c{n}", "t", label="same")] for n in range(7)]
    script.append([TextContent(text="never reached")])
    added, recorder, _ = run(script, tools=[tool], max_repeated_calls=3)
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert tool.log.count("start same") == 3
    assert [r.is_error for r in results] == [False, False, False, True]
    assert "already ran 3 times in a row" in str(results[-1].content[0])
    assert recorder.types().count("turn_start") == 4 and recorder.types()[-1] == "agent_end"


def test_calls_that_differ_or_alternate_are_never_counted_as_a_loop() -> None:
    tool = Sleepy(name="t")
    edit_then_test = [[call(f"c{n}", "t", label="edit" if n % 2 else "test")] for n in range(8)]
    added, _, _ = run([*edit_then_test, [TextContent(text="done")]], tools=[tool], max_repeated_calls=2)
    assert tool.log.count("start test") == 4 and tool.log.count("start edit") == 4
    assert isinstance(added[-1], AssistantMessage) and added[-1].text == "done"
    unlimited = Sleepy(name="t")
    same = [[call(f"c{n}", "t", label="same")] for n in range(6)]
    run([*same, [TextContent(text="done")]], tools=[unlimited], max_repeated_calls=0)
    assert unlimited.log.count("start same") == 6  # 0: no limit


class _Avoiding(FauxProvider):
    """The faux provider, recording what each call was asked to avoid."""

    def __init__(self, script: Sequence[FauxTurn | Callable[[Context], FauxTurn]]) -> None:
        super().__init__(script, chunk_size=3)
        self.avoided: list[tuple[str, ...]] = []

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        self.avoided.append(options.avoid if options else ())
        return super().stream(model, context, options)


def test_each_retry_is_asked_to_avoid_what_the_turns_cuts_matched() -> None:
    def hook(delta: StreamDelta) -> AbortRetry | None:
        for bad in ("console.log(", "print("):
            if bad in delta.partial.text:
                return AbortRetry(inject=[], avoid=(bad, ""))
        return None

    script: list[FauxTurn | Callable[[Context], FauxTurn]] = [
        [TextContent(text="x console.log(1)")],
        [TextContent(text="y print(1)")],
        [TextContent(text="z console.log(2)")],  # a repeat adds nothing new
        [TextContent(text="log.info(1)")],
    ]
    faux = _Avoiding(script)
    config = AgentConfig(
        provider=faux, model=MODEL, on_stream_delta=hook, options=StreamOptions(avoid=("eval(",))
    )
    added = asyncio.run(run_agent([UserMessage.of("go")], [], config, AbortSignal(), Recorder()))
    assert isinstance(added[-1], AssistantMessage) and added[-1].text == "log.info(1)"
    assert faux.avoided == [
        ("eval(",),
        ("eval(", "console.log("),
        ("eval(", "console.log(", "print("),
        ("eval(", "console.log(", "print("),
    ]
