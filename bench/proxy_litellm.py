"""Benchmark `rein proxy` against LiteLLM's proxy: `python -m bench.proxy_litellm [--setup]`.

Both in front of the same local upstream (`bench._proxy_upstream`), each in its own process, measured
by the same raw httpx2 client as `bench.proxy`, in interleaved rounds (rein, LiteLLM, rein, ...), so
the machine's load falls on both alike. rein proxy runs with its built-in rules only (no prose window);
LiteLLM with one model routed to the upstream and no database. Per round:

- time to first token added: 1 stream at a time, `CHUNKS` chunks one every `INTERVAL` s, against the
  upstream reached directly (p50);
- CPU per chunk at 20 concurrent paced streams (requests included) and at 20 streams as fast as the
  upstream writes (every thread of the proxy and of any process it started, /proc schedstat);
- CPU per request: 1-chunk replies one after another;
- resident memory of the proxy's processes after the round.

Then a rule firing mid-stream, once each, on fresh instances: the upstream writes `console.log(` as
chunk `SAY_AT` of the first attempt; rein proxy has a text rule on it (cut, retry: the retry has no
such chunk); LiteLLM its regex guardrail (`litellm_content_filter`, a `regex` pattern, action BLOCK,
`post_call`). What the client received is reported: a clean stream, an error event, or a dropped
connection.

LiteLLM lives in its own venv, never in rein's locks: `--setup` creates `VENV` with `uv venv` and
installs `litellm[proxy]==VERSION` there. It starts with `LITELLM_LOCAL_MODEL_COST_MAP` (no fetch of its
price table) and without a master key (loopback only). Bounded: a few minutes (LiteLLM takes 20-30 s to
start).
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from bench._proxy_report import Target, p50
from bench.proxy import CHUNKS, INTERVAL, TEXT_RULE, cpu_seconds, flood, helper, proxy, run_streams

VENV = Path("/tmp/litellm-venv")
VERSION = "1.108.7"
ROUNDS = 3
CONCURRENT = 20
STARTUP_TIMEOUT = 120.0
LITELLM_CONFIG = """model_list:
  - model_name: bench
    litellm_params:
      model: openai/bench
      api_base: {upstream}
      api_key: sk-bench
"""
GUARDRAIL = r"""guardrails:
  - guardrail_name: no-console-log
    litellm_params:
      guardrail: litellm_content_filter
      mode: post_call
      default_on: true
      patterns:
        - pattern_type: regex
          pattern: 'console\.log\('
          name: console-log
          action: BLOCK
"""
SAY, SAY_AT = "console.log(", 20
CONTENT = re.compile(rb'"content":\s*"(?!")')
"""Where a non-empty piece of content starts in the client's bytes."""


@dataclass(slots=True)
class Figures:
    """One proxy's figures, a list per measure (one value per round)."""

    ttft_added_ms: list[float] = field(default_factory=list)
    paced_us: list[float] = field(default_factory=list)
    flood_us: list[float] = field(default_factory=list)
    request_ms: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)


def setup() -> None:
    """LiteLLM's own venv, outside the project."""
    subprocess.run(["uv", "venv", "--python", "3.11", str(VENV)], check=True)
    install = ["uv", "pip", "install", "--python", str(VENV / "bin" / "python"), f"litellm[proxy]=={VERSION}"]
    subprocess.run(install, check=True)


def installed_version() -> str | None:
    command = [
        str(VENV / "bin" / "python"),
        "-c",
        "import importlib.metadata as m; print(m.version('litellm'))",
    ]
    try:
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def tree(pid: int) -> list[int]:
    """`pid` and every process under it."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                queue += [int(child) for child in task.read_text().split()]
            except OSError:
                continue  # gone meanwhile
    return found


def tree_cpu(pid: int) -> float:
    return sum(cpu_seconds(each) for each in tree(pid) if Path(f"/proc/{each}").exists())


def tree_rss_mb(pid: int) -> float:
    total = 0
    for each in tree(pid):
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total / 1024


@contextmanager
def litellm(upstream_url: str, place: Path, version: str, *, guardrail: bool = False) -> Iterator[Target]:
    """LiteLLM's proxy on a free port of 127.0.0.1, one model (`bench`) routed to `upstream_url`; with
    `guardrail`, its regex guardrail on `SAY`."""
    place.mkdir(parents=True)
    config = place / "litellm.yaml"
    config.write_text(LITELLM_CONFIG.format(upstream=upstream_url) + (GUARDRAIL if guardrail else ""))
    port, log = free_port(), place / "litellm.log"
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")} | {
        "HOME": str(place),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_DANGEROUSLY_PERMIT_WEAK_OR_UNSET_MASTER_KEY": "true",
    }
    command = [
        str(VENV / "bin" / "litellm"),
        "--config",
        str(config),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=place, env=environment, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while "Uvicorn running on" not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"LiteLLM did not start; its output:\n{log.read_text(errors='replace')}")
            time.sleep(0.2)  # polling its log: it prints the line once it listens
        yield Target(f"LiteLLM {version}", f"http://127.0.0.1:{port}/v1", 0, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def cpu_of_flood(target: Target, streams: int, chunks: int, rounds: int) -> float:
    """CPU of the proxy's processes per chunk received (us), chunks as fast as the upstream writes."""
    assert target.pid is not None
    before = tree_cpu(target.pid)
    row = await flood(Target(target.name, target.base_url, target.window), streams, chunks, rounds)
    return (tree_cpu(target.pid) - before) / row.sample.chunks * 1e6


def one_round(target: Target, direct_ttft_us: float, figures: Figures) -> None:
    assert target.pid is not None
    sample = asyncio.run(run_streams(target, 1, 5, CHUNKS, INTERVAL))
    figures.ttft_added_ms.append((p50(sample.ttft_us) - direct_ttft_us) / 1000)
    before = tree_cpu(target.pid)
    sample = asyncio.run(run_streams(target, CONCURRENT, 1, CHUNKS, INTERVAL))
    figures.paced_us.append((tree_cpu(target.pid) - before) / (sample.chunks + 2 * CONCURRENT) * 1e6)
    figures.flood_us.append(asyncio.run(cpu_of_flood(target, CONCURRENT, 200, 1)))
    figures.request_ms.append(asyncio.run(cpu_of_flood(target, 1, 1, 50)) / 1000)
    figures.rss_mb.append(tree_rss_mb(target.pid))


async def fired(target: Target) -> str:
    """One stream whose upstream breaks the rule mid-way: what the client received."""
    body = {
        "model": "bench",
        "stream": True,
        "messages": [{"role": "user", "content": "go"}],
        "bench": {"chunks": CHUNKS, "interval": INTERVAL, "say": SAY, "at": SAY_AT},
    }
    received, chunks = b"", 0
    try:
        url = target.base_url + "/chat/completions"
        async with httpx2.AsyncClient(timeout=30) as http, http.stream("POST", url, json=body) as response:
            if response.status_code != 200:
                return f"HTTP {response.status_code} before any text"
            async for data in response.aiter_bytes():
                received += data
    except httpx2.HTTPError as error:
        chunks = len(CONTENT.findall(received))
        return f"connection dropped after {chunks} chunks ({type(error).__name__})"
    text = b"".join(CONTENT.split(received)[1:])
    chunks = len(CONTENT.findall(received))
    if b'"error"' in received:
        return f"an error event after {chunks} chunks"
    if SAY.encode() in text:
        return f"the violation delivered ({chunks} chunks)"
    done = "[DONE]" if received.rstrip().endswith(b"data: [DONE]") else "no [DONE]"
    return f"one clean stream, {chunks} chunks, {done}"


def report(results: dict[str, Figures], version: str) -> None:
    load = ", ".join(f"{figure:.2f}" for figure in os.getloadavg())
    print(f"rein proxy against LiteLLM {version}: same upstream, {ROUNDS} interleaved rounds, medians")
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, load {load}")
    names = list(results)
    rows = [
        ("time to first token added (1 stream)", "ttft_added_ms", "{:.1f} ms"),
        (f"CPU per chunk, {CONCURRENT} paced streams (requests incl.)", "paced_us", "{:.0f} us"),
        (f"CPU per chunk, {CONCURRENT} streams at full speed", "flood_us", "{:.0f} us"),
        ("CPU per request (1-chunk replies)", "request_ms", "{:.1f} ms"),
        ("resident memory", "rss_mb", "{:.0f} MB"),
    ]
    print(f"| | {' | '.join(names)} |")
    print("|---|" + "---|" * len(names))
    for label, key, shape in rows:
        cells = [shape.format(statistics.median(getattr(results[name], key))) for name in names]
        print(f"| {label} | {' | '.join(cells)} |")


def main(argv: list[str]) -> int:
    if "--setup" in argv and installed_version() is None:
        setup()
    version = installed_version()
    if version is None:
        print(f"LiteLLM is not installed in {VENV}: run with --setup", file=sys.stderr)
        return 2
    started = time.perf_counter()
    results: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory() as tmp, helper("bench._proxy_upstream") as (port, _):
        upstream_url = f"http://127.0.0.1:{port}/v1"
        with ExitStack() as stack:
            targets = [
                stack.enter_context(proxy(upstream_url, Path(tmp) / "rein proxy", {})),
                stack.enter_context(litellm(upstream_url, Path(tmp) / "litellm", version)),
            ]
            direct = Target("direct", upstream_url)
            for target in targets:  # warm both (first requests, imports on first use), untimed
                asyncio.run(run_streams(target, CONCURRENT, 1, 4, 0.0))
            for _ in range(ROUNDS):
                direct_ttft = p50(asyncio.run(run_streams(direct, 1, 5, CHUNKS, INTERVAL)).ttft_us)
                for target in targets:
                    one_round(target, direct_ttft, results.setdefault(target.name, Figures()))
        outcomes: dict[str, str] = {}
        with ExitStack() as stack:
            rule = {"no-console-log": TEXT_RULE}
            rein = stack.enter_context(proxy(upstream_url, Path(tmp) / "rein proxy, a rule", rule))
            guarded = stack.enter_context(
                litellm(upstream_url, Path(tmp) / "litellm, a guardrail", version, guardrail=True)
            )
            outcomes[rein.name] = asyncio.run(fired(rein))
            outcomes[guarded.name] = asyncio.run(fired(guarded))
    report(results, version)
    cells = " | ".join(outcomes.values())
    print(f"| a rule firing mid-stream (chunk {SAY_AT} of {CHUNKS}) | {cells} |")
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
