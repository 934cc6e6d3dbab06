"""What `bench.proxy` measured, and its tables: the values the client and /proc gave, per path."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from bench._common import percentile
from bench._proxy_upstream import stamp_us

TTFT_SLACK_MS = 2.0
CHUNK_GOAL_US = 50.0
PIPE = "byte pipe (control)"


@dataclass(slots=True)
class Sample:
    """What the client saw of one or more streams."""

    ttft_us: list[float] = field(default_factory=list)
    latency_us: list[float] = field(default_factory=list)
    gap_us: list[float] = field(default_factory=list)
    chunks: int = 0
    bytes: int = 0

    def add(self, other: Sample) -> None:
        self.ttft_us += other.ttft_us
        self.latency_us += other.latency_us
        self.gap_us += other.gap_us
        self.chunks += other.chunks
        self.bytes += other.bytes


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    base_url: str
    window: int | None = None
    """The prose hold-back window in characters; None for the direct connection."""
    pid: int | None = None


@dataclass(frozen=True, slots=True)
class LatencyRow:
    target: Target
    streams: int
    sample: Sample
    cpu_us_per_chunk: float | None = None
    """The process's CPU over the phase per chunk (requests included); None for the direct path."""


@dataclass(frozen=True, slots=True)
class FloodRow:
    target: Target
    streams: int
    replies: int
    seconds: float
    sample: Sample
    cpu_us_per_chunk: float | None


def _ms(us: float) -> str:
    return f"{us / 1000:.2f}"


def wait_us(window: int, gap_us: float) -> float:
    """How long a window of `window` characters keeps the first character back at the latency phase's
    pace (`gap_us` between chunks of one stamp and a space each)."""
    if not window:
        return 0.0
    per_chunk = len(f"{stamp_us():012d}") + 1
    return (-(-(window + 1) // per_chunk) - 1) * gap_us


def p50(values: list[float]) -> float:
    return percentile(values, 0.5)


def latency_table(rows: list[LatencyRow], chunks: int, interval: float) -> None:
    print(f"latency: {chunks} chunks per stream, one every {interval * 1000:.0f} ms")
    head = "{:>7} {:<24} {:>6} {:>8} {:>9} {:>9} {:>9} {:>10} {:>8} {:>8}"
    print(
        head.format(
            "streams", "path", "window", "TTFT ms", "+TTFT ms", "chunk us", "p99 us", "+chunk us", "gap p99",
            "CPU us",
        )
    )  # fmt: skip
    direct = {row.streams: row.sample for row in rows if row.target.name == "direct"}
    for row in rows:
        s, base = row.sample, direct[row.streams]
        ttft, chunk = p50(s.ttft_us), p50(s.latency_us)
        first = row.sample is base
        added_ttft = "-" if first else _ms(ttft - p50(base.ttft_us))
        added_chunk = "-" if first else f"{chunk - p50(base.latency_us):.0f}"
        print(
            head.format(
                row.streams, row.target.name, "-" if row.target.window is None else row.target.window,
                _ms(ttft), added_ttft, f"{chunk:.0f}", f"{percentile(s.latency_us, 0.99):.0f}", added_chunk,
                _ms(percentile(s.gap_us, 0.99)),
                "-" if row.cpu_us_per_chunk is None else f"{row.cpu_us_per_chunk:.0f}",
            )
        )  # fmt: skip


def flood_table(floods: list[FloodRow]) -> None:
    print("throughput: chunks as fast as the upstream writes them (1-chunk replies: the cost of a request)")
    head = "{:>7} {:<24} {:>7} {:>7} {:>8} {:>10} {:>7} {:>12}"
    print(head.format("streams", "path", "replies", "chunks", "seconds", "chunks/s", "MB/s", "CPU us/chunk"))
    for flow in floods:
        cpu = "-" if flow.cpu_us_per_chunk is None else f"{flow.cpu_us_per_chunk:.1f}"
        rate, mbps = flow.sample.chunks / flow.seconds, flow.sample.bytes / flow.seconds / 1e6
        print(
            head.format(
                flow.streams, flow.target.name, flow.replies, flow.sample.chunks, f"{flow.seconds:.2f}",
                f"{rate:,.0f}", f"{mbps:.2f}", cpu,
            )
        )  # fmt: skip


def goals(rows: list[LatencyRow], floods: list[FloodRow]) -> None:
    """The issue's two goals, per concurrency, against the direct connection (p50)."""
    slack, goal = f"{TTFT_SLACK_MS:.0f} ms", f"{CHUNK_GOAL_US:.0f} us"
    print(f"goals: time to first token adds <= window + {slack}; chunk overhead < {goal}")
    for streams in sorted({row.streams for row in rows}):
        mine = {row.target.name: row.sample for row in rows if row.streams == streams}
        direct, pipe = mine["direct"], mine[PIPE]
        gap = p50(direct.gap_us)
        for row in rows:
            if row.streams != streams or row.target.window is None:
                continue
            window, sample = row.target.window, row.sample
            added = p50(sample.ttft_us) - p50(direct.ttft_us)
            bound = wait_us(window, gap) + TTFT_SLACK_MS * 1000
            verdict = "met" if added <= bound else "MISSED"
            print(
                f"  {streams:>2} stream(s), {row.target.name}: first token +{_ms(added)} ms, "
                f"bound {_ms(bound)} ms (window {window} chars = {_ms(wait_us(window, gap))} ms here):"
                f" {verdict}"
            )
            cpu = next(
                flow.cpu_us_per_chunk or 0.0
                for flow in floods
                if (flow.streams, flow.target.name) == (streams, row.target.name) and flow.replies == streams
            )
            cpu_verdict = "met" if cpu < CHUNK_GOAL_US else "MISSED"
            line = f"  {streams:>2} stream(s), {row.target.name}: chunk CPU {cpu:.1f} us ({cpu_verdict})"
            if not window:  # with a window, a chunk's latency is mostly the wait for the text after it
                chunk = p50(sample.latency_us)
                hop = p50(pipe.latency_us) - p50(direct.latency_us)
                over = chunk - p50(direct.latency_us)
                line += (
                    f"; chunk latency +{over:.0f} us ({'met' if over < CHUNK_GOAL_US else 'MISSED'}), "
                    f"of which a byte pipe's hop is {hop:.0f} us"
                )
            print(line)


def report(latency: list[LatencyRow], floods: list[FloodRow], chunks: int, interval: float) -> None:
    python, cores = sys.version.split()[0], os.cpu_count()
    load = ", ".join(f"{figure:.2f}" for figure in os.getloadavg())
    print(f"rein proxy: Chat Completions over loopback, Python {python}, {cores} cores, load {load}")
    print("client: raw httpx2 streaming; upstream, proxy and client in separate processes")
    latency_table(latency, chunks, interval)
    print()
    flood_table(floods)
    print()
    goals(latency, floods)
