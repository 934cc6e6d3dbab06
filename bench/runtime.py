"""Runtime benchmark: the agent loop's overhead per streamed delta, and session load + context build.

    python -m bench.runtime

Targets (issue 4): under 20 microseconds of loop overhead per delta with TTSR (100 rules) and steering
loaded; load and build the context of a 10,000-entry session in under 100 ms.

Overhead per delta = (time of a run through the loop - time of draining the same provider stream
directly) / deltas. The faux provider streams a 200 KB reply in 20-character deltas; no rule matches.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench._common import SilentUI
from rein.agent import AgentConfig, run_agent
from rein.ai import AbortSignal, Context, FauxProvider, Model, TextContent, UserMessage
from rein.builtins import load_extensions
from rein.session import AgentSession, Session

MODEL = Model(provider="faux", id="bench")
REPLY = "".join(f"    value_{i} = compute(item_{i}, offset={i})  # step {i}\n" for i in range(3500))[:200_000]
CHUNK = 20
RULES = 100


def write_rules(project: Path) -> None:
    folder = project / ".rein" / "rules"
    folder.mkdir(parents=True)
    for index in range(RULES):
        front = f"condition: 'forbidden_call_{index}\\('\nscope: text, tool"
        (folder / f"rule-{index}.md").write_text(f"---\n{front}\n---\nDo not call forbidden_call_{index}.\n")


async def drain() -> float:
    faux = FauxProvider([[TextContent(text=REPLY)]], chunk_size=CHUNK)
    start = time.perf_counter()
    async with faux.stream(MODEL, Context(messages=(UserMessage.of("go"),))) as events:
        async for _ in events:
            pass
    return time.perf_counter() - start


async def bare_loop() -> float:
    faux = FauxProvider([[TextContent(text=REPLY)]], chunk_size=CHUNK)
    config = AgentConfig(provider=faux, model=MODEL)
    start = time.perf_counter()
    await run_agent([UserMessage.of("go")], [], config, AbortSignal(), lambda event: None)
    return time.perf_counter() - start


async def full_session(project: Path, home: Path) -> float:
    faux = FauxProvider([[TextContent(text=REPLY)]], chunk_size=CHUNK)
    ui = SilentUI()
    session = AgentSession(
        store=Session.in_memory(str(project)), provider=faux, model=MODEL, cwd=str(project), ui=ui
    )
    load_extensions(session, cwd=str(project), home=str(home), settings={}, discovered=False)
    await session.start()
    start = time.perf_counter()
    await session.prompt("go")
    return time.perf_counter() - start


def median_of(runs: int, make: Callable[[], Coroutine[None, None, float]]) -> float:
    return statistics.median(asyncio.run(make()) for _ in range(runs))


def session_load(home: Path, entries: int) -> tuple[float, float]:
    store = Session.create("/bench/project", home=home)
    for index in range(entries // 2):
        store.append_message({"role": "user", "content": [{"type": "text", "text": f"prompt {index} " * 10}]})
        store.append_message(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"reply {index} " * 40}],
                "provider": "faux",
                "model": "bench",
                "stop_reason": "stop",
            }
        )
    assert store.path is not None
    opens: list[float] = []
    builds: list[float] = []
    for _ in range(5):
        start = time.perf_counter()
        loaded = Session.open(store.path)
        middle = time.perf_counter()
        loaded.context()
        opens.append(middle - start)
        builds.append(time.perf_counter() - middle)
    return statistics.median(opens), statistics.median(builds)


def main() -> None:
    deltas = len(REPLY) // CHUNK
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        project = home / "project"
        project.mkdir(parents=True)
        write_rules(project)
        base = median_of(5, drain)
        bare = median_of(5, bare_loop)
        full = median_of(5, lambda: full_session(project, home))
        opened, built = session_load(home, 10_000)
    table = Table(title=f"runtime: {deltas} deltas of {CHUNK} characters (200 KB reply)", header_style="bold")
    for column in ("case", "per delta", "target"):
        table.add_column(column, justify="left" if column == "case" else "right")
    table.add_row("provider stream alone (faux)", f"{base / deltas * 1e6:.1f} us", "")
    table.add_row("loop overhead, no extensions", f"{(bare - base) / deltas * 1e6:.1f} us", "< 20 us")
    table.add_row(
        f"loop overhead, TTSR ({RULES} rules) + steering", f"{(full - base) / deltas * 1e6:.1f} us", "< 20 us"
    )
    table.add_row("session of 10,000 entries: open", f"{opened * 1000:.1f} ms", "")
    table.add_row("session of 10,000 entries: build context", f"{built * 1000:.1f} ms", "")
    table.add_row("session of 10,000 entries: both", f"{(opened + built) * 1000:.1f} ms", "< 100 ms")
    Console().print(table)


if __name__ == "__main__":
    main()
