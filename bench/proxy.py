"""Benchmark `rein proxy`: `python -m bench.proxy`.

Processes on loopback: the upstream (`bench._proxy_upstream`, a fast Chat Completions SSE server that
stamps every chunk with the machine's monotonic clock as it writes it); `rein proxy` in front of it,
twice: with no rule of its own (rein's built-in rules watch tool calls only, so prose has no hold-back
window) and with a text rule (`console\\.log\\(`, a 13-character window); a byte pipe
(`bench._proxy_pipe`), the control: what one more process hop costs on this machine, before any HTTP;
and this one, the client: raw httpx2 streaming (not the openai SDK, whose own parsing would dwarf what
is measured), the same code for every path.

Latency: replies of `CHUNKS` chunks, one every `INTERVAL` seconds, 1 stream at a time, 20 and 50 at
once (started spread over `SPREAD` intervals), with the proxy's CPU per chunk at that pace (requests
included: what a paced stream costs, where the throughput phases below give the cost of a chunk).
Time to first token is from sending the request to the first content the client parses; a chunk's
latency is from the upstream writing it to the client holding all of its text (so it includes the
hold-back wait); the gap is the time between two content events.
Throughput: chunks as fast as the upstream writes them, chunks and bytes the client received per
second, and the proxy's CPU time per chunk (every thread, /proc/PID/task/*/schedstat; the byte pipe's
too, the floor of any proxy in Python); 1-chunk replies one after another give the cost of a request.

Goals (issue 17): time to first token adds at most the hold-back window (the time its characters take
to arrive at this pace) plus 2 ms; chunk overhead under 50 us, shown both as the proxy's CPU per chunk
and as added latency. Loopback on a shared machine is noisy: the header prints the load average.
Bounded: about 35 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx2

from bench._proxy_report import PIPE, FloodRow, LatencyRow, Sample, Target, report
from bench._proxy_upstream import stamp_us

CHUNKS = 40
INTERVAL = 0.010
SPREAD = 10
"""Concurrent streams start spread over this many intervals, not all at one instant."""
SERIAL_STREAMS = 10
CONCURRENCY = (20, 50)
"""Concurrent streams of the latency phases (2 rounds each) and of the throughput phases; issue 38
measured 20."""
CONCURRENT_ROUNDS = 2
FLOODS = ((1, 4_000, 1), *((streams, 200, 1) for streams in CONCURRENCY), (1, 1, 200))
"""Throughput phases: (concurrent streams, chunks per reply, rounds); the last one costs a request."""
PHASE_TIMEOUT = 30.0
STARTUP_TIMEOUT = 30.0
TEXT_RULE = "---\ncondition: console\\.log\\(\n---\nDo not leave console.log calls.\n"
LISTENING = re.compile(r"rein proxy listening on (http://\S+)")
WINDOW = re.compile(r"hold-back \(text\): (\d+) chars, and up to (\d+) of an unfinished line")
"""What the proxy says it holds of prose: always, and at most of an unfinished line."""


async def one_stream(
    http: httpx2.AsyncClient, target: Target, chunks: int, interval: float, delay: float = 0.0
) -> Sample:
    """One streamed reply, started after `delay` seconds (concurrent streams are spread over an interval,
    as replies that began at different times are, rather than all chunking at the same instant)."""
    await asyncio.sleep(delay)
    body = {
        "model": "bench",
        "stream": True,
        "messages": [{"role": "user", "content": "go"}],
        "bench": {"chunks": chunks, "interval": interval},
    }
    sample = Sample()
    pending, rest, last = "", b"", 0
    sent = stamp_us()
    async with http.stream("POST", target.base_url + "/chat/completions", json=body) as response:
        if response.status_code != 200:
            raise RuntimeError(
                f"{target.name}: HTTP {response.status_code} {(await response.aread())[:200]!r}"
            )
        async for data in response.aiter_bytes():
            now = stamp_us()
            sample.bytes += len(data)
            *lines, rest = (rest + data).split(b"\n")
            for line in lines:
                if not line.startswith(b"data: ") or line == b"data: [DONE]":
                    continue
                choices = json.loads(line[6:]).get("choices") or [{}]
                content = choices[0].get("delta", {}).get("content")
                if not content:
                    continue
                if not sample.ttft_us:
                    sample.ttft_us.append(now - sent)
                elif last:
                    sample.gap_us.append(now - last)
                last = now
                pending += content
                *stamps, pending = pending.split(" ")
                sample.latency_us += [now - int(stamp) for stamp in stamps]
                sample.chunks += len(stamps)
    if sample.chunks != chunks:
        raise RuntimeError(f"{target.name}: {sample.chunks} of {chunks} chunks arrived")
    return sample


async def warm(http: httpx2.AsyncClient, target: Target, streams: int) -> None:
    """Open the connections the phase will use, and let the proxy serve its first requests untimed."""
    await asyncio.wait_for(asyncio.gather(*(one_stream(http, target, 2, 0.0) for _ in range(streams))), 10)


async def run_streams(target: Target, streams: int, rounds: int, chunks: int, interval: float) -> Sample:
    limits = httpx2.Limits(max_connections=streams + 4, max_keepalive_connections=streams + 4)
    total = Sample()
    async with httpx2.AsyncClient(limits=limits, timeout=PHASE_TIMEOUT) as http:
        await warm(http, target, streams)
        for _ in range(rounds):
            batch = [
                one_stream(http, target, chunks, interval, n * SPREAD * interval / streams)
                for n in range(streams)
            ]
            for sample in await asyncio.wait_for(asyncio.gather(*batch), PHASE_TIMEOUT):
                total.add(sample)
    return total


def cpu_seconds(pid: int | None) -> float:
    """CPU time of every thread of `pid` so far (/proc/PID/task/*/schedstat, in ns); 0 without one."""
    if pid is None:
        return 0.0
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return total / 1e9


async def flood(target: Target, streams: int, chunks: int, rounds: int = 1) -> FloodRow:
    """`rounds` batches of `streams` concurrent replies of `chunks` chunks each, as fast as they go."""
    limits = httpx2.Limits(max_connections=streams + 4, max_keepalive_connections=streams + 4)
    total = Sample()
    async with httpx2.AsyncClient(limits=limits, timeout=PHASE_TIMEOUT) as http:
        await warm(http, target, streams)
        cpu, start = cpu_seconds(target.pid), time.perf_counter()
        async with asyncio.timeout(PHASE_TIMEOUT):
            for _ in range(rounds):
                for sample in await asyncio.gather(
                    *(one_stream(http, target, chunks, 0.0) for _ in range(streams))
                ):
                    total.add(sample)
        seconds, cpu = time.perf_counter() - start, cpu_seconds(target.pid) - cpu
    per_chunk = cpu / total.chunks * 1e6 if target.pid is not None else None
    return FloodRow(target, streams, streams * rounds, seconds, total, per_chunk)


@contextmanager
def helper(module: str, *args: str) -> Iterator[tuple[int, int]]:
    """One of the benchmark's own servers (`bench._proxy_upstream`, `bench._proxy_pipe`) in its own
    process; yields its port and process id. It stops when its stdin closes."""
    command = [sys.executable, "-m", module, *args]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("listening "):
            raise RuntimeError(f"{module} did not start: {line!r}")
        yield int(line.split()[1]), process.pid
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def proxy(upstream_url: str, place: Path, rules: dict[str, str]) -> Iterator[Target]:
    """`rein proxy` in front of `upstream_url`, its rules in `place/rules`; yields it as a target, with
    the prose window it says it holds (none said: it holds no prose)."""
    home, rules_dir = place / "home", place / "rules"
    home.mkdir(parents=True)
    rules_dir.mkdir()
    for name, text in rules.items():
        (rules_dir / f"{name}.md").write_text(text)
    log = place / "proxy.log"
    command = [sys.executable, "-m", "rein.cli", "proxy", "--upstream", upstream_url, "--port", "0"]
    command += ["--rules", str(rules_dir)]
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")} | {"HOME": str(home)}
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=place, env=environment, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not (found := LISTENING.search(log.read_text(errors="replace"))):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"rein proxy did not start; its output:\n{log.read_text(errors='replace')}"
                )
            time.sleep(0.05)  # polling its log: it prints the line once it listens
        window = WINDOW.search(log.read_text(errors="replace"))
        held = max(int(window[1]), int(window[2])) if window else 0
        yield Target(place.name, found[1].rstrip("/") + "/v1", held, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def proxy_status(target: Target) -> dict[str, object]:
    origin = target.base_url.removesuffix("/v1")
    status = httpx2.get(f"{origin}/rein/status", timeout=5).raise_for_status().json()
    assert isinstance(status, dict), status
    return status


def own_figures(target: Target) -> str:
    """The proxy's own account (`/rein/status`) of the latency phases; no rule may have fired."""
    status = proxy_status(target)
    if status.get("retries") or status.get("firings") or status.get("late_firings"):
        raise RuntimeError(f"{target.name}: a rule fired on the benchmark's text: {status}")
    added, held = status.get("added_latency_ms"), status.get("chars_held")
    return f"  {target.name}: added_latency_ms {json.dumps(added)}, chars_held {json.dumps(held)}"


def measure(port: int, base: Path) -> tuple[list[LatencyRow], list[FloodRow], list[str]]:
    latency: list[LatencyRow] = []
    floods: list[FloodRow] = []
    notes: list[str] = []
    upstream_url = f"http://127.0.0.1:{port}/v1"
    rule_sets = {"proxy, built-in rules": {}, "proxy, a text rule": {"no-console-log": TEXT_RULE}}
    targets = [Target("direct", upstream_url)]
    with ExitStack() as stack:
        pipe, pipe_pid = stack.enter_context(helper("bench._proxy_pipe", str(port)))
        targets.append(Target(PIPE, f"http://127.0.0.1:{pipe}/v1", pid=pipe_pid))
        for name, rules in rule_sets.items():
            targets.append(stack.enter_context(proxy(upstream_url, base / name, rules)))
        phases = ((1, SERIAL_STREAMS), *((streams, CONCURRENT_ROUNDS) for streams in CONCURRENCY))
        for streams, rounds in phases:
            for target in targets:
                cpu = cpu_seconds(target.pid)
                sample = asyncio.run(run_streams(target, streams, rounds, CHUNKS, INTERVAL))
                cpu = cpu_seconds(target.pid) - cpu
                per_chunk = cpu / (sample.chunks + 2 * streams) * 1e6 if target.pid is not None else None
                latency.append(LatencyRow(target, streams, sample, per_chunk))
        notes += [own_figures(target) for target in targets[2:]]
        for streams, chunks, rounds in FLOODS:
            for target in targets:
                floods.append(asyncio.run(flood(target, streams, chunks, rounds)))
        for target in targets[2:]:
            own_figures(target)
    return latency, floods, notes


def main() -> int:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, helper("bench._proxy_upstream") as (port, _):
        latency, floods, notes = measure(port, Path(tmp))
    report(latency, floods, CHUNKS, INTERVAL)
    print("the proxy's own figures (/rein/status, latency phases):")
    for line in notes:
        print(line)
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
