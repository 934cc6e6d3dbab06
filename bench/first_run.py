"""First-run benchmark: `make demo` and `make test` on a fresh clone with an empty uv cache, as a
newcomer pays them.

    python -m bench.first_run [repository]

Takes a few minutes. Target (issue 20): `make demo` cold under 60 s on 2 cores.

Per command, two runs, each in a fresh `git clone` of the repository (default: this checkout; the clone
holds its last commit, not uncommitted changes) with `UV_CACHE_DIR` at a folder of this benchmark's own:
cold (the cache starts empty) and warm (the cache the cold run filled). Each run executes the recipe
that `make -n demo` (or `make -n test`) prints, one command at a time, so the figures follow the Makefile
as it changes; uv commands run without `--quiet`, and every line they print is timestamped as it
arrives. For `make test` only the set-up is timed (up to the first check: the suite itself takes its
own minutes, which `.ci/run` prints).

Phases, summed over the uv commands of a run (they add up to the total):
- clone: `git clone`;
- venv: `uv venv`;
- resolve: a uv command's start to its "Resolved" line;
- download: "Resolved" to "Prepared", less the build window below (wheels downloaded while llama.cpp
  builds are counted as build: they wait on it anyway);
- build: the first "Building" line to the last "Built" line (llama-cpp-python and its build tools);
- install: "Prepared" to the command's end (unpacking, linking, bytecode), other uv commands (the
  editable install of rein) and the Makefile's other set-up steps (`compileall`, the stamp);
- demo: `rein demo` itself (it must run the embedded model, not the scripted fallback).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 60.0
PHASES = ("clone", "venv", "resolve", "download", "build", "install", "demo")
_RESOLVED = re.compile(r"^Resolved \d+ packages? in ")
_PREPARED = re.compile(r"^Prepared \d+ packages? in ")
_BUILDING = re.compile(r"^\s+Building (\S+)")
_BUILT = re.compile(r"^\s+Built (\S+)")
_FALLBACK = "showing the scripted demo"


@dataclass(frozen=True, slots=True)
class Timed:
    """One command: its wall time and its output lines, each with seconds since the command started."""

    seconds: float
    lines: tuple[tuple[float, str], ...]


@dataclass(slots=True)
class Run:
    name: str
    phases: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    built: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return sum(self.phases.values())


def timed(command: str, cwd: Path, env: dict[str, str]) -> Timed:
    """Run `command` in a shell; stdout and stderr merged, each line stamped on arrival. A failure
    stops the benchmark with the command's last lines."""
    start = time.perf_counter()
    lines: list[tuple[float, str]] = []
    with subprocess.Popen(
        command,
        shell=True,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append((time.perf_counter() - start, line.rstrip("\n")))
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        tail = "\n".join(text for _, text in lines[-20:])
        raise SystemExit(f"bench.first_run: `{command}` exited {process.returncode} in {cwd}:\n{tail}")
    return Timed(seconds, tuple(lines))


def uv_phases(result: Timed) -> tuple[dict[str, float], list[str]]:
    """Split one `uv pip` command's time into resolve, download, build and install, from the summary
    lines uv prints without `--quiet`; also the packages it built from source."""
    resolved = prepared = None
    building: float | None = None
    built_at: float | None = None
    built: list[str] = []
    for at, text in result.lines:
        if resolved is None and _RESOLVED.match(text):
            resolved = at
        elif prepared is None and _PREPARED.match(text):
            prepared = at
        elif _BUILDING.match(text):
            building = at if building is None else building
        elif match := _BUILT.match(text):
            built_at = at
            built.append(match.group(1))
    resolved = resolved or 0.0
    prepared = prepared or resolved  # nothing to prepare: every package was cached and installed
    build = built_at - building if building is not None and built_at is not None else 0.0
    return {
        "resolve": resolved,
        "download": max(0.0, prepared - resolved - build),
        "build": build,
        "install": result.seconds - prepared,
    }, built


def recipe(clone: Path, env: dict[str, str], target: str) -> list[str]:
    """The commands `make TARGET` would run in a fresh clone, in order; for `test`, its set-up only."""
    printed = subprocess.run(
        ["make", "-n", target], cwd=clone, env=env, capture_output=True, text=True, check=True
    ).stdout
    commands = [line.strip() for line in printed.splitlines() if line.strip()]
    if target == "test":
        commands = commands[: next(i for i, c in enumerate(commands) if c.startswith("touch")) + 1]
    return commands


def first_run(name: str, target: str, repository: Path, scratch: Path, cache: Path) -> Run:
    """One fresh clone, then the `make TARGET` recipe step by step, with `cache` as uv's cache."""
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    env |= {"UV_CACHE_DIR": str(cache), "UV_NO_PROGRESS": "1", "COLUMNS": "100"}
    run = Run(name)
    clone = scratch / f"clone-{name.replace(' ', '-')}"
    run.phases["clone"] = timed(
        f"git clone --quiet {shlex.quote(str(repository))} {clone}", scratch, env
    ).seconds
    for command in recipe(clone, env, target):
        argv = shlex.split(command)
        if Path(argv[0]).name == "uv":
            result = timed(shlex.join(a for a in argv if a not in ("--quiet", "-q")), clone, env)
            if argv[1] == "venv":
                run.phases["venv"] += result.seconds
                continue
            phases, built = uv_phases(result)
            for phase, seconds in phases.items():
                run.phases[phase] += seconds
            run.built += built
        elif argv[-1] == "demo":
            result = timed(command, clone, env)
            if any(_FALLBACK in text for _, text in result.lines):
                raise SystemExit(
                    "bench.first_run: `rein demo` fell back to the scripted demo (no local model)"
                )
            run.phases["demo"] += result.seconds
        else:
            run.phases["install"] += timed(command, clone, env).seconds
    return run


def table(runs: Sequence[Run]) -> Table:
    cores = os.cpu_count()
    out = Table(
        title=f"make demo, make test's set-up: fresh clone, {cores} cores (demo cold < {TARGET_S:.0f} s)"
    )
    out.add_column("phase")
    for run in runs:
        out.add_column(f"{run.name} s", justify="right")
    for phase in PHASES:
        out.add_row(phase, *(f"{run.phases[phase]:.1f}" for run in runs))
    out.add_row("total", *(f"{run.total:.1f}" for run in runs), style="bold")
    out.add_row("built from source", *(", ".join(run.built) or "-" for run in runs))
    return out


def main(argv: Sequence[str] = ()) -> None:
    repository = Path(argv[0]).resolve() if argv else ROOT
    with tempfile.TemporaryDirectory(prefix="rein-first-run-") as folder:
        scratch = Path(folder)
        runs: list[Run] = []
        for target in ("demo", "test"):
            cache = scratch / f"uv-cache-{target}"
            cache.mkdir()
            runs += [
                first_run(f"{target} {name}", target, repository, scratch, cache) for name in ("cold", "warm")
            ]
    Console().print(table(runs))


if __name__ == "__main__":
    main(sys.argv[1:])
