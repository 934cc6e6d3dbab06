"""Benchmark compaction: `python -m bench.compaction`.

Builds a coding session of 10,000 entries in memory (user prompts; assistant replies with text and
read / edit / write / bash calls; tool results from a line to a few KB; failing and passing test runs),
then compacts its branch with a summarizer that answers at once, so the time is rein's own: planning
the cut, pruning superseded outputs, chunking the history for the summarizer's window, extracting the
operational state, composing and writing the entry, and re-building the context. Also prints the
context's size before and after (estimated tokens) and how many summary requests the chunking made,
for a large window (200k, Claude) and a small one (8k, the embedded local model).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time

from bench._common import percentile
from rein.ai import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    message_to_json,
)
from rein.session import Session
from rein.session.compaction import Budget, CompactionSettings, compact_session, context_tokens
from rein.session.compaction._compact import Compacted, context_items

ENTRIES = 10_000
RUNS = 5
WINDOWS = (200_000, 8_192)
SUMMARY = "## Goal\nKeep the parser fast.\n\n## Progress\n### Done\n- [x] the lexer\n"

_WORDS = (
    "session", "context", "branch", "parser", "handler", "request", "buffer", "token", "record",
    "status", "config", "result", "value", "index", "cache", "limit", "offset", "stream", "assert",
)  # fmt: skip


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _call(rng: random.Random, n: int) -> ToolCall:
    path = f"src/mod{rng.randrange(40)}.py"
    kind = rng.choice(("read", "read", "edit", "write", "bash", "bash"))
    if kind == "bash":
        return ToolCall(
            id=f"c{n}", name="bash", arguments={"command": rng.choice(("pytest -q", "make lint", "ls"))}
        )
    if kind == "read":
        return ToolCall(id=f"c{n}", name="read", arguments={"path": path})
    if kind == "edit":
        return ToolCall(
            id=f"c{n}", name="edit", arguments={"path": path, "old_string": "a", "new_string": "b"}
        )
    return ToolCall(id=f"c{n}", name="write", arguments={"path": path, "content": _text(rng, 40)})


def _result(rng: random.Random, call: ToolCall) -> ToolResultMessage:
    failing = call.name == "bash" and rng.random() < 0.3
    body = _text(rng, rng.choice((5, 60, 400)))
    if failing:
        body += "\nE   assert parse(x) == 3\n[exit code 1]"
    return ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content=(TextContent(text=body),), is_error=failing
    )


def build(entries: int = ENTRIES, seed: int = 7) -> Session:
    rng = random.Random(seed)
    store = Session.in_memory("/work/project")
    n = 0
    while len(store.tree) < entries:
        store.append_message(message_to_json(UserMessage.of(f"{_text(rng, 12)}\n- [ ] {_text(rng, 4)}")))
        for _ in range(rng.randrange(1, 5)):
            n += 1
            call = _call(rng, n)
            reply = AssistantMessage(
                content=(TextContent(text=_text(rng, 20)), call),
                provider="anthropic",
                model="claude-sonnet-4-5",
                usage=Usage(),
                stop_reason="tool_use",
            )
            store.append_message(message_to_json(reply))
            store.append_message(message_to_json(_result(rng, call)))
    return store


async def _instant(system: str, prompt: str, max_tokens: int) -> str:
    return SUMMARY


def compact_once(store: Session, window: int) -> tuple[float, Compacted]:
    leaf = store.leaf_id
    budget = Budget.of(window, CompactionSettings(), fixed=1_500)
    started = time.perf_counter()
    result = asyncio.run(compact_session(store, _instant, budget, reason="manual", fixed=1_500))
    elapsed = time.perf_counter() - started
    store.branch(leaf)  # the next run compacts the same branch again
    return elapsed, result


def main(argv: list[str]) -> int:
    entries = int(argv[0]) if argv else ENTRIES
    store = build(entries)
    before = context_tokens([item.message for item in context_items(store.context())])
    print(f"compaction of a {len(store.tree):,}-entry session ({before:,} estimated tokens on the branch)")
    print(
        f"{'window':>8} {'median ms':>10} {'p90 ms':>8} {'requests':>9} {'summarized':>11} {'kept':>5}"
        f" {'pruned':>7} {'tokens after':>13}"
    )
    for window in WINDOWS:
        runs = [compact_once(store, window) for _ in range(RUNS)]
        times = [t * 1000 for t, _ in runs]
        result = runs[-1][1]
        print(
            f"{window:>8,} {statistics.median(times):>10.1f} {percentile(times, 0.9):>8.1f}"
            f" {result.requests:>9} {result.summarized:>11,} {result.kept:>5} {result.pruned:>7,}"
            f" {result.tokens_after:>13,}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
