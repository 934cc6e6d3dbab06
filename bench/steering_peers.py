"""The adversarial steering corpus (`tests/steering/corpus`) and the packs' corpus
(`tests/steering/corpus/packs`, one file per pack) through rein and a peer, side by side.

    python -m bench.steering_peers

rein: the engine in process, default rules, cwd /home/dev/project, HOME /home/dev, branch `feature`.
cc-safety-net 2.4.5 (npm, installed at run time into ~/.cache/rein-bench/): called as its Claude Code
plugin calls it, `node dist/bin/cc-safety-net.js hook --coding-cli` with a PreToolUse payload on stdin,
in a throwaway git repo on `feature` under a throwaway HOME (so the few cases that spell /home/dev out
differ for it). Without node or npm, or if the install fails, only rein's column is shown.

Correct: stops what should not run, allows what should run (the rule that decides is not compared). An
`ask` case counts as one that should not run: a peer without an ask verdict is right to block it, and
rein's ask is not an allow. Time: rein's is one in-process evaluation; the peer's is one hook process,
start to exit, as a host pays it.

dcg (destructive_command_guard, Rust, the broadest peer by pack count) is not compared: it cannot be
built here. Its Cargo.lock pins 594 crates, and crates.io cannot be reached from this workplace
(`cargo fetch` fails: could not resolve host index.crates.io; only PyPI, npm and Debian's packages are
reachable). Four of its direct dependencies (ast-grep-core, rust-mcp-sdk, fsqlite, self_update) are not
packaged by Debian, and dcg itself is published on neither npm nor PyPI. It speaks the same Claude Code
PreToolUse protocol as cc-safety-net (`dcg` with the payload on stdin, a `deny` decision to block): on
a machine that has it, `_call_peer` running its binary instead of the node script is all it takes (with
its non-default packs enabled in its config, for a fair count).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from rein.steering import Context, MemoryEntries, Steering, ToolCall, build_policy
from rein.steering._packs import default_packs

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "steering" / "corpus"
PACKS = CORPUS / "packs"
PEER = "cc-safety-net"
PEER_VERSION = "2.4.5"
CACHE = Path.home() / ".cache" / "rein-bench" / f"{PEER}-{PEER_VERSION}"
HOME = "/home/dev"
CWD = "/home/dev/project"
ROUNDS = 5


@dataclass(frozen=True, slots=True)
class Case:
    group: str
    command: str
    block: bool


@dataclass(slots=True)
class Score:
    correct: int = 0
    false_allows: int = 0
    false_blocks: int = 0


@dataclass(slots=True)
class Result:
    tool: str
    total: Score
    groups: dict[str, Score]
    times_us: list[float]
    note: str = ""


def load(folder: Path = CORPUS) -> list[Case]:
    """Every case of the folder's `*.jsonl` files, grouped by file; `block` for block and ask alike."""
    cases: list[Case] = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                raw = json.loads(line)
                cases.append(Case(path.stem, raw["command"], raw["expect"] != "allow"))
    return cases


def score(tool: str, cases: list[Case], verdicts: list[bool], times: list[float], note: str = "") -> Result:
    total, groups = Score(), {case.group: Score() for case in cases}
    for case, blocked in zip(cases, verdicts, strict=True):
        for tally in (total, groups[case.group]):
            tally.correct += blocked == case.block
            tally.false_allows += case.block and not blocked
            tally.false_blocks += blocked and not case.block
    return Result(tool, total, groups, times, note)


def run_rein(cases: list[Case]) -> Result:
    engine = Steering(build_policy([]).policy)
    context = Context(cwd=CWD, home=HOME, env={"HOME": HOME}, branch="feature", entries=MemoryEntries())
    verdicts, times = list[bool](), list[float]()
    for case in cases:
        call = ToolCall(tool="bash", command=case.command)
        verdicts.append(not engine.evaluate(call, context).allow)  # the first call also warms up
        samples: list[float] = []
        for _ in range(ROUNDS):
            start = time.perf_counter_ns()
            engine.evaluate(call, context)
            samples.append((time.perf_counter_ns() - start) / 1000)
        times.append(statistics.median(samples))
    return score("rein", cases, verdicts, times)


def install_peer() -> Path | str:
    """The peer's hook script, installed into the cache when missing; or why it cannot run."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return f"{PEER}: node or npm is not installed, so only rein's column is shown"
    script = CACHE / "node_modules" / PEER / "dist" / "bin" / "cc-safety-net.js"
    manifest = script.parents[2] / "package.json"
    if manifest.is_file() and json.loads(manifest.read_text()).get("version") == PEER_VERSION:
        return script
    CACHE.mkdir(parents=True, exist_ok=True)
    argv = [npm, "install", "--prefix", str(CACHE), "--no-save", "--no-audit", "--no-fund"]
    try:
        done = subprocess.run(
            [*argv, "--loglevel=error", f"{PEER}@{PEER_VERSION}"],
            cwd=CACHE,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{PEER}: npm install failed ({error}), so only rein's column is shown"
    if done.returncode != 0 or not script.is_file():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"{PEER}: npm install failed ({last}), so only rein's column is shown"
    return script


def run_peer(cases: list[Case], script: Path) -> Result:
    """Each case through the peer's hook, one process each, in a throwaway repo on `feature`."""
    with tempfile.TemporaryDirectory(prefix="rein-bench-peer-") as scratch:
        home = Path(scratch) / "home" / "dev"
        repo = home / "project"
        repo.mkdir(parents=True)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
        git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
        subprocess.run([*git, "init", "-q", "-b", "feature"], cwd=repo, env=env, check=True)
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "init"], cwd=repo, env=env, check=True)
        verdicts, times, errors = list[bool](), list[float](), 0
        for number, case in enumerate(cases):
            payload: dict[str, object] = {
                "session_id": "rein-bench",
                "transcript_path": str(home / "transcript.jsonl"),
                "cwd": str(repo),
                "permission_mode": "default",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": case.command, "description": "bench"},
                "tool_use_id": f"toolu_{number}",
            }
            start = time.perf_counter_ns()
            blocked, error = _call_peer(script, payload, repo, env)
            times.append((time.perf_counter_ns() - start) / 1000)
            errors += error
            verdicts.append(blocked)
    note = f"{errors} hook errors (a host lets the call through)" if errors else ""
    return score(f"{PEER} {PEER_VERSION}", cases, verdicts, times, note)


def _call_peer(script: Path, payload: dict[str, object], cwd: Path, env: dict[str, str]) -> tuple[bool, bool]:
    """(blocked, error), read as Claude Code reads a PreToolUse hook: exit 2 or a `deny` decision blocks;
    a crash, a time-out or unreadable output is a non-blocking error, so the call goes through."""
    argv = ["node", str(script), "hook", "--coding-cli"]
    try:
        done = subprocess.run(
            argv,
            input=json.dumps(payload),
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        output = json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else {}
    except (subprocess.TimeoutExpired, json.JSONDecodeError):
        return False, True
    if done.returncode not in (0, 2):
        return False, True
    decision = output.get("hookSpecificOutput", {}).get("permissionDecision")
    return done.returncode == 2 or decision == "deny" or output.get("decision") == "block", False


def _time(samples: list[float]) -> str:
    median = statistics.median(samples)
    return f"{median:.0f} us" if median < 10_000 else f"{median / 1000:.0f} ms"


def _row(name: str, score: Score, count: int, timing: str) -> list[str]:
    percent = f"{100 * score.correct / count:.1f}"
    return [name, str(score.correct), percent, str(score.false_allows), str(score.false_blocks), timing]


def show(results: list[Result], cases: list[Case]) -> None:
    blocks = sum(case.block for case in cases)
    title = f"steering corpus: {len(cases)} commands ({blocks} block, {len(cases) - blocks} allow)"
    caption = "time: rein, one evaluation in process; the peer, one hook process from start to exit"
    table = Table(title=title, caption=caption, header_style="bold")
    for column in ("tool", "correct", "%", "false allows", "false blocks", "time/command (median)"):
        table.add_column(column, justify="left" if column == "tool" else "right")
    for result in results:
        table.add_row(*_row(result.tool, result.total, len(cases), _time(result.times_us)))
    groups = sorted({case.group for case in cases})
    for result in results:
        table.add_section()
        table.add_row(f"{result.tool}, by class:")
        for group in groups:
            count = sum(case.group == group for case in cases)
            table.add_row(*_row(f"  {group} ({count})", result.groups[group], count, ""))
    console = Console(width=max(Console().width, 110))
    console.print(table)
    for result in results:
        if result.note:
            console.print(f"{result.tool}: {result.note}")


def show_packs(results: list[Result], cases: list[Case]) -> None:
    """Per pack, one row for each tool: correct, false allows, false blocks and median time."""
    stops = sum(case.block for case in cases)
    title = f"packs corpus: {len(cases)} commands ({stops} block or ask, {len(cases) - stops} allow)"
    caption = "ask counts as not allowed: a peer that blocks an ask case is right; time as above"
    table = Table(title=title, caption=caption, header_style="bold")
    for column in ("pack (cases)", "tool", "correct", "%", "false allows", "false blocks", "time (median)"):
        table.add_column(column, justify="left" if column in ("pack (cases)", "tool") else "right")
    order = {pack.name: index for index, pack in enumerate(default_packs())}
    groups = sorted({case.group for case in cases}, key=lambda name: (order.get(name, len(order)), name))
    for number, group in enumerate(groups):
        if number and len(results) > 1:
            table.add_section()
        count = sum(case.group == group for case in cases)
        for index, result in enumerate(results):
            times = [t for case, t in zip(cases, result.times_us, strict=True) if case.group == group]
            label = f"{group} ({count})" if index == 0 else ""
            table.add_row(label, *_row(result.tool, result.groups[group], count, _time(times)))
    table.add_section()
    for index, result in enumerate(results):
        label = f"all packs ({len(cases)})" if index == 0 else ""
        table.add_row(label, *_row(result.tool, result.total, len(cases), _time(result.times_us)))
    console = Console(width=max(Console().width, 110))
    console.print(table)
    for result in results:
        if result.note:
            console.print(f"{result.tool}: {result.note}")


def main() -> None:
    cases, pack_cases = load(), load(PACKS)
    results, pack_results = [run_rein(cases)], [run_rein(pack_cases)]
    peer = install_peer()
    if isinstance(peer, str):
        print(peer)
    else:
        results.append(run_peer(cases, peer))
        pack_results.append(run_peer(pack_cases, peer))
    show(results, cases)
    print()
    show_packs(pack_results, pack_cases)


if __name__ == "__main__":
    main()
