"""Local model benchmark: rein's cost over llama.cpp, and how soon a stream-rule cut stops the model.

    python -m bench.local

Needs the `local` extra (xllamacpp and the bundled SmolLM2-135M-Instruct). About 100 s on 2 cores.

Targets (issue): tokens per second through rein within 5 percent of llama.cpp called directly with the
same prompt; the time from the delta that completes a match to the model stopping, median and p99.

Throughput. One prompt (the bundled system prompt and a request for a long tutorial, which runs past
the limit), temperature 0 and 128 tokens, so every run writes the same tokens; each run is checked to
reach the limit with the same text. RUNS rounds, each running the three sides back to back:
(a) direct: llama.cpp's in-process server (`Server.handle_chat_completions`, the call rein's worker
    makes) streaming the same messages, with a callback that only keeps the text;
(b) rein: `LocalProvider().stream(...)` drained through its async iterator, from the call to the done
    event (so it includes the worker thread's start, the chat template and the tokenizer);
(c) session: `AgentSession.prompt` with the built-in extensions and 100 stream rules that never match
    (bench/runtime.py's), from the call to its return.
KV cache: the server (`cache_prompt`) reuses the prompt prefix left by the previous call. A warm-up
run comes first, so every timed run, on every side, finds the prompt and a previous reply in the cache
and evaluates only the prompt's last token again (as a retry through rein does). Prompt evaluation is
thus out of the comparison on every side alike (on a 2-core machine with the other core busy it
swings by seconds). tokens/s = 128 / (call to last token); "decode" counts
127 tokens from the first delta to the last one, which leaves out the fixed cost of a call. Overhead =
(direct tokens/s - side tokens/s) / direct tokens/s within each round (one run of each side, back to
back), median over the rounds: pairing the runs cancels the drift of a shared, busy machine.

Match-to-stop. The short JavaScript prompt, temperature 0; the consumer reads deltas, and on the one
that completes a match aborts the stream's `AbortSignal` and reads on, as the agent loop does on a
stream-rule cut. Matches: a real `TtsrManager` (one target rule among 100 that never match) at five
places of the reply, and a plain count standing for a match after the k-th delta, k = 1..30. Per
sample: delta received -> `Generation.stopped_at` (the worker stopped sampling), delta received ->
the final "aborted" event reaching the consumer, and the tokens sampled and sent after the matching
delta (`Generation.tokens` - deltas read). p99 is nearest-rank.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench._common import SilentUI, percentile
from bench.runtime import write_rules
from rein.agent import AgentEvent
from rein.ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    UserMessage,
)
from rein.ai.providers.local import DEFAULT_CONTEXT, REPEAT_PENALTY, THREADS, LocalProvider, _load, _Loaded
from rein.ai.providers.local_chat import ChatMessage, chat_messages
from rein.ai.providers.local_files import SYSTEM_PROMPT, model_file
from rein.builtins import load_extensions
from rein.session import AgentSession, Session
from rein.ttsr import MatchContext, Rule, TtsrManager, parse_rule

MODEL = Model(provider="local", id="smollm2")
RUNS = 7
TOKENS = 128
TARGET_OVERHEAD = 0.05
LONG_PROMPT = "Write a long Python tutorial about lists, dicts, sets and classes, with many examples."
SHORT_PROMPT = (
    "Write a JavaScript function total(items) that adds up item.price and prints the total to the console."
)
SHORT_LIMIT = 64
CUT_PATTERNS = (r"function\s+sumTotal", r"\.reduce\(", r"=>", r"if\s*\(", r"return\s+total")
CUT_REPEATS = 3
CUT_AFTER = range(1, 31)
FILLER_RULES = 100
TEXT = MatchContext(source="text")


def context_of(prompt: str) -> Context:
    return Context(system_prompt=SYSTEM_PROMPT, messages=(UserMessage.of(prompt),))


def llm() -> _Loaded:
    return _load(model_file(MODEL.id), DEFAULT_CONTEXT)


@dataclass(frozen=True, slots=True)
class Run:
    side: str
    seconds: float
    """From the call to the last token (direct) or to the final event (rein, session)."""
    decode: float | None
    """From the first text delta to the last one."""
    tokens: int
    text: str


# -- throughput ---------------------------------------------------------------------------------------


def run_direct(messages: list[ChatMessage]) -> Run:
    request = {
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.0,
        "repeat_penalty": REPEAT_PENALTY,
        "max_tokens": TOKENS,
    }
    pieces: list[str] = []
    usage: list[dict[str, int]] = []
    stamps: list[float] = []

    def on_chunk(chunk: dict[str, object]) -> bool:
        for choice in chunk.get("choices") or []:  # type: ignore[attr-defined]
            if piece := choice["delta"].get("content"):
                stamps.append(time.perf_counter())
                pieces.append(piece)
        if chunk.get("usage"):
            usage.append(chunk["usage"])  # type: ignore[arg-type]
        return False

    start = time.perf_counter()
    llm().server.handle_chat_completions(request, on_chunk)
    end = time.perf_counter()
    decode = stamps[-1] - stamps[0] if stamps else None
    run = Run("direct", end - start, decode, usage[0]["completion_tokens"], "".join(pieces))
    _direct_prompt.append(usage[0]["prompt_tokens"])
    return run


_direct_prompt: list[int] = []


async def run_rein(provider: LocalProvider, context: Context) -> Run:
    options = StreamOptions(max_tokens=TOKENS, temperature=0.0)
    pieces: list[str] = []
    first: float | None = None
    last = 0.0
    final: AssistantMessage | None = None
    start = time.perf_counter()
    async with provider.stream(MODEL, context, options) as events:
        async for event in events:
            if isinstance(event, TextDeltaEvent):
                last = time.perf_counter()
                first = last if first is None else first
                pieces.append(event.delta)
            elif isinstance(event, DoneEvent | ErrorEvent):
                final = event.message
    end = time.perf_counter()
    assert final is not None
    assert final.stop_reason == "length", final.error_message or final.stop_reason
    decode = None if first is None else last - first
    return Run("rein", end - start, decode, final.usage.output, "".join(pieces))


async def run_session(provider: LocalProvider, project: Path, home: Path) -> Run:
    options = StreamOptions(max_tokens=TOKENS, temperature=0.0)
    session = AgentSession(
        store=Session.in_memory(str(project)),
        provider=provider,
        model=MODEL,
        cwd=str(project),
        ui=SilentUI(),
        system_prompt=SYSTEM_PROMPT,
        options=options,
    )
    load_extensions(session, cwd=str(project), home=str(home), settings={}, discovered=False)
    await session.start()
    pieces: list[str] = []
    stamps: list[float] = []
    retries: list[str] = []

    def listen(event: AgentEvent) -> None:
        if event.type == "message_update" and event.delta is not None and event.delta.source == "text":
            stamps.append(time.perf_counter())
            pieces.append(event.delta.delta)
        elif event.type == "stream_retry":
            retries.append(event.reason)

    session.subscribe(listen)
    before = len(provider.generations)
    start = time.perf_counter()
    await session.prompt(LONG_PROMPT)
    end = time.perf_counter()
    assert not retries, f"a stream rule cut the reply: {retries}"
    assert len(provider.generations) == before + 1, "the session made more than one provider call"
    decode = stamps[-1] - stamps[0] if stamps else None
    return Run("session", end - start, decode, provider.generations[-1].tokens, "".join(pieces))


@dataclass(frozen=True, slots=True)
class Throughput:
    runs: dict[str, list[Run]]
    prompt_tokens: int
    same_prompt: bool


def throughput() -> Throughput:
    context = context_of(LONG_PROMPT)
    messages = chat_messages(context)
    provider = LocalProvider()
    runs: dict[str, list[Run]] = {"direct": [], "rein": [], "session": []}
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        project = home / "project"
        project.mkdir(parents=True)
        write_rules(project)
        run_direct(messages)  # warm-up: puts the prompt and a reply in the KV cache
        for _ in range(RUNS):
            runs["direct"].append(run_direct(messages))
            runs["rein"].append(asyncio.run(run_rein(provider, context)))
            provider.join()
            runs["session"].append(asyncio.run(run_session(provider, project, home)))
            provider.join()
    tokens = _direct_prompt[-1]
    same_prompt = (
        all(g.prompt_tokens == tokens for g in provider.generations) and len(set(_direct_prompt)) == 1
    )
    return Throughput(runs, tokens, same_prompt)


# -- match to stop ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cut:
    kind: str
    deltas: int
    """Deltas read up to and including the matching one."""
    to_stop: float
    """Matching delta received -> the worker stopped sampling."""
    to_final: float
    """Matching delta received -> the final "aborted" event read."""
    abort_to_final: float
    after: int
    """Tokens sampled and sent after the matching delta."""


def rule_text(name: str, pattern: str) -> Rule:
    quoted = pattern.replace("'", "''")
    return parse_rule(f"---\ncondition: '{quoted}'\nscope: text\n---\nDo not write {name}.\n", name=name)


def managers() -> dict[str, TtsrManager]:
    filler = [rule_text(f"filler-{i}", rf"forbidden_call_{i}\(") for i in range(FILLER_RULES - 1)]
    made = {}
    for pattern in CUT_PATTERNS:
        manager = TtsrManager([*filler, rule_text("target", pattern)])
        assert not manager.issues, manager.issues
        made[pattern] = manager
    return made


async def cut(
    provider: LocalProvider, context: Context, matches: Callable[[str, int], bool], kind: str
) -> Cut:
    signal = AbortSignal()
    options = StreamOptions(max_tokens=SHORT_LIMIT, temperature=0.0, signal=signal)
    deltas = 0
    received = aborted = final_at = 0.0
    async with provider.stream(MODEL, context, options) as events:
        async for event in events:
            if isinstance(event, TextDeltaEvent):
                assert not signal.aborted, "a delta after the abort"
                received = time.perf_counter()
                deltas += 1
                if matches(event.delta, deltas):
                    signal.abort("stream rule")
                    aborted = time.perf_counter()
            elif isinstance(event, ErrorEvent):
                final_at = time.perf_counter()
                assert event.reason == "aborted", event.message.error_message
            elif isinstance(event, DoneEvent):
                raise AssertionError(f"{kind}: the reply ended ({event.reason}) before the match")
    provider.join()
    record = provider.generations[-1]
    assert record.aborted and record.stopped_at is not None, record
    return Cut(
        kind=kind,
        deltas=deltas,
        to_stop=record.stopped_at - received,
        to_final=final_at - received,
        abort_to_final=final_at - aborted,
        after=record.tokens - deltas,
    )


def match_to_stop() -> list[Cut]:
    context = context_of(SHORT_PROMPT)
    provider = LocalProvider()
    rules = managers()
    cases: list[tuple[str, Callable[[], Callable[[str, int], bool]]]] = []
    for pattern, manager in rules.items():

        def by_rule(manager: TtsrManager = manager) -> Callable[[str, int], bool]:
            manager.reset()
            return lambda delta, _: any(m.interrupt for m in manager.check_delta(delta, TEXT))

        cases += [(f"TTSR {pattern}", by_rule)] * CUT_REPEATS
    for k in CUT_AFTER:

        def by_count(k: int = k) -> Callable[[str, int], bool]:
            return lambda _, count: count == k

        cases.append(("k-th delta", by_count))
    random.Random(7).shuffle(cases)

    async def all_cases() -> list[Cut]:
        # Warm-up: the prompt and a reply into the KV cache; the reply must hold every pattern.
        warm = await provider.stream(
            MODEL, context, StreamOptions(max_tokens=SHORT_LIMIT, temperature=0.0)
        ).result()
        provider.join()
        assert warm.stop_reason in ("stop", "length"), warm.error_message
        reply = "".join(block.text for block in warm.content if isinstance(block, TextContent))
        missing = [p for p in CUT_PATTERNS if not re.search(p, reply)]
        assert not missing, f"the reply lacks {missing}: {reply!r}"
        return [await cut(provider, context, make(), kind) for kind, make in cases]

    return asyncio.run(all_cases())


# -- report -------------------------------------------------------------------------------------------


def overhead_per_round(direct: list[Run], side: list[Run], seconds: Callable[[Run], float]) -> list[float]:
    """(direct rate - side rate) / direct rate for each round; the rate is 1 / seconds for equal tokens."""
    return [(1 / seconds(d) - 1 / seconds(s)) * seconds(d) for d, s in zip(direct, side, strict=True)]


def report(result: Throughput, cuts: list[Cut], load: tuple[float, float], elapsed: float) -> None:
    console = Console()
    if not console.is_terminal:
        console = Console(width=150)
    runs = result.runs
    texts = {r.text for items in runs.values() for r in items}
    full = all(r.tokens == TOKENS for items in runs.values() for r in items)
    table = Table(
        title=f"local model throughput: SmolLM2-135M, {TOKENS} tokens, temperature 0, {RUNS} rounds",
        header_style="bold",
    )
    columns = ("side", "tokens/s", "min-max", "overhead", "per round", "decode tokens/s", "decode overhead",
               "target")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "side" else "right")
    labels = {
        "direct": "llama.cpp directly (Server.handle_chat_completions)",
        "rein": "rein: LocalProvider.stream",
        "session": f"rein: AgentSession, TTSR ({FILLER_RULES} rules + built-in) + steering",
    }
    for side, label in labels.items():
        rates = [TOKENS / r.seconds for r in runs[side]]
        decodes = [(TOKENS - 1) / r.decode for r in runs[side] if r.decode]
        row = [label, f"{statistics.median(rates):.1f}", f"{min(rates):.1f}-{max(rates):.1f}"]
        if side == "direct":
            row += ["", "", f"{statistics.median(decodes):.1f}", "", ""]
        else:
            overheads = overhead_per_round(runs["direct"], runs[side], lambda r: r.seconds)
            decode_overheads = overhead_per_round(runs["direct"], runs[side], lambda r: r.decode or r.seconds)
            overhead = statistics.median(overheads)
            row += [
                f"{overhead:+.1%}",
                f"{min(overheads):+.1%} to {max(overheads):+.1%}",
                f"{statistics.median(decodes):.1f}",
                f"{statistics.median(decode_overheads):+.1%}",
                f"< {TARGET_OVERHEAD:.0%}: {'met' if overhead < TARGET_OVERHEAD else 'NOT met'}",
            ]
        table.add_row(*row)
    console.print(table)
    console.print(
        f"prompt: {result.prompt_tokens} tokens, the same on every side: {result.same_prompt}; every run "
        f"reached {TOKENS} tokens: {full}; identical text on every run and side: {len(texts) == 1}.\n"
        "overhead = median over rounds of (direct tokens/s - side tokens/s) / direct tokens/s, each round "
        "running direct, rein, session back to back (per round: the lowest and highest); decode: the "
        "same from the first delta to the last. Prompt evaluation skipped alike on every side (warm KV "
        "cache, see the docstring)."
    )

    per_token = statistics.median(r.decode / (TOKENS - 1) for r in runs["direct"] if r.decode)
    table = Table(title=f"match to stop: {len(cuts)} stream cuts (JavaScript prompt)", header_style="bold")
    for column in ("cut", "samples", "at delta", "-> model stopped median", "p99", "-> final event median",
                   "p99", "abort -> final median", "tokens after match"):  # fmt: skip
        table.add_column(column, justify="left" if column == "cut" else "right")
    groups: dict[str, list[Cut]] = {}
    for item in cuts:
        groups.setdefault(item.kind, []).append(item)
    ordered = sorted(groups.items(), key=lambda group: group[1][0].deltas)
    for kind, items in [*ordered, ("all", cuts)]:
        positions = sorted({c.deltas for c in items})
        where = str(positions[0]) if len(positions) == 1 else f"{positions[0]}-{positions[-1]}"
        stops = [c.to_stop * 1e3 for c in items]
        finals = [c.to_final * 1e3 for c in items]
        afters = [c.after for c in items]
        table.add_row(
            kind,
            str(len(items)),
            where,
            f"{statistics.median(stops):.1f} ms",
            f"{percentile(stops, 0.99):.1f} ms",
            f"{statistics.median(finals):.2f} ms",
            f"{percentile(finals, 0.99):.2f} ms",
            f"{statistics.median(c.abort_to_final * 1e6 for c in items):.0f} us",
            f"{min(afters)}-{max(afters)} (median {statistics.median(afters):g})",
        )
    console.print(table)
    console.print(
        f"One token's decode (direct, median): {per_token * 1e3:.1f} ms. The worker checks the stop flag "
        "between tokens, so it stops once the token being decoded when the flag is set is done (that token "
        "is dropped, not counted). tokens after match = Generation.tokens - deltas read.\n"
        f"model load {load[0]:.2f} s (llama.cpp threads: {load[1]:g}); whole run {elapsed:.0f} s; "
        f"load average at the end {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores."
    )


def main() -> None:
    started = time.perf_counter()
    llm()
    load = time.perf_counter() - started
    result = throughput()
    cuts = match_to_stop()
    report(result, cuts, (load, THREADS), time.perf_counter() - started)


if __name__ == "__main__":
    main()
