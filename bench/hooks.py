"""Hook benchmark: the wall time of one `rein hook claude pre-tool-use` process, as a host pays it.

    python -m bench.hooks [runs]

A host starts the hook as a fresh process for every tool call, so start-up is the cost. Target
(issue 31): median at most 3x `python -c pass` on the same machine in the same run, reading the
project's files from disk included (the daemon's cache warm); p99 at most 8x.
Rows: the interpreter alone; rein's hook answered by the warm hook daemon (the default); answered
in-process (`REIN_HOOK_DAEMON=off`, the first call of a session, or a daemon that failed), with
compiled bytecode and without any (`PYTHONDONTWRITEBYTECODE=1` and an empty bytecode cache: what an
install that does not compile pays); and cc-safety-net's Claude Code hook, where npm installs it.
Plain text output: this measures start-up, so it loads nothing extra.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench._common import percentile
from bench._project import make_project
from bench.steering_peers import PEER, PEER_VERSION, install_peer

RUNS = 40
MEDIAN_X = 3.0
P99_X = 8.0
STEERING = """\
[[observer]]
name = "tests"
writes = ["tests-passed"]
watch = { tool = "bash", command = "^pytest", exit_code = 0 }

[[rule]]
name = "commit-after-tests"
reason = "Run pytest in this agent loop before committing."
command = "git"
subcommand = "commit"
[rule.when]
not = { happened = { event = "tests-passed", in = "agent_loop" } }
"""


def rein_argv() -> list[str]:
    """The installed `rein` script next to this interpreter (what `rein hook install` writes), else
    `python -m rein.cli`."""
    script = Path(sys.executable).with_name("rein")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "rein.cli"]


def payload(project: Path, event: str, command: str) -> str:
    body: dict[str, object] = {
        "session_id": "bench",
        "transcript_path": None,
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_bench",
    }
    if event == "PostToolUse":
        body["tool_response"] = {"stdout": "3 passed", "stderr": "", "interrupted": False}
    return json.dumps(body)


def measure(argv: Sequence[str], stdin: str, env: dict[str, str], cwd: Path, runs: int) -> list[float]:
    """Milliseconds per process, after two warm-up runs (page cache, .pyc files)."""
    samples: list[float] = []
    for index in range(runs + 2):
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, env=env, cwd=cwd, capture_output=True, text=True, check=True)
        if index >= 2:
            samples.append((time.perf_counter() - start) * 1000)
    return samples


Case = tuple[str, list[str], str, dict[str, str]]


def cases(project: Path, env: dict[str, str], empty_cache: Path) -> list[Case]:
    hook = [*rein_argv(), "hook", "claude"]
    allow, deny = (
        payload(project, "PreToolUse", "ls -la"),
        payload(project, "PreToolUse", "git commit -m wip"),
    )
    off = {**env, "REIN_HOOK_DAEMON": "off"}
    cold = {**off, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(empty_cache)}
    rows: list[Case] = [
        ("python -c pass", [sys.executable, "-c", "pass"], "", env),
        ("daemon: pre-tool-use (allow)", [*hook, "pre-tool-use"], allow, env),
        ("daemon: pre-tool-use (deny)", [*hook, "pre-tool-use"], deny, env),
        (
            "daemon: npm run build (package.json)",
            [*hook, "pre-tool-use"],
            payload(project, "PreToolUse", "npm run build"),
            env,
        ),
        (
            "daemon: make test (makefile, include)",
            [*hook, "pre-tool-use"],
            payload(project, "PreToolUse", "make test"),
            env,
        ),
        (
            "daemon: bash scripts/check.sh",
            [*hook, "pre-tool-use"],
            payload(project, "PreToolUse", "bash scripts/check.sh"),
            env,
        ),
        (
            "daemon: post-tool-use",
            [*hook, "post-tool-use"],
            payload(project, "PostToolUse", "pytest -q"),
            env,
        ),
        ("in-process: pre-tool-use (allow)", [*hook, "pre-tool-use"], allow, off),
        ("in-process, no bytecode: (allow)", [*hook, "pre-tool-use"], allow, cold),
    ]
    peer = install_peer()
    if isinstance(peer, Path):
        argv = ["node", str(peer), "hook", "--claude-code"]
        rows.append((f"{PEER} {PEER_VERSION} (allow)", argv, allow, env))
    else:
        print(peer)
    return rows


def main(argv: Sequence[str] = ()) -> None:
    runs = int(argv[0]) if argv else RUNS
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryDirectory(prefix="rein-rt-") as runtime:
        home = Path(scratch)
        project = make_project(home / "project")
        (project / ".rein").mkdir(parents=True)
        (project / ".rein" / "steering.toml").write_text(STEERING)
        (home / "empty-cache").mkdir()
        env = {**os.environ, "HOME": str(home), "REIN_RUNTIME_DIR": runtime, "REIN_HOOK_DAEMON": "on"}
        rows = cases(project, env, home / "empty-cache")
        print(f"hook start-up, {runs} runs each ({' '.join(rein_argv())} hook claude ...)")
        print(f"target: median <= {MEDIAN_X:.0f}x and p99 <= {P99_X:.0f}x python -c pass")
        print(f"{'case':<36} {'median ms':>10} {'p99 ms':>8} {'x median':>9} {'x p99':>7}")
        base: tuple[float, float] | None = None
        try:
            subprocess.run(
                [*rein_argv(), "hook", "daemon", "start"], env=env, capture_output=True, check=True
            )
            for name, command, stdin, case_env in rows:
                samples = measure(command, stdin, case_env, project, runs)
                median, p99 = statistics.median(samples), percentile(samples, 0.99)
                base = base or (median, p99)
                print(
                    f"{name:<36} {median:>10.1f} {p99:>8.1f} {median / base[0]:>8.1f}x {p99 / base[1]:>6.1f}x"
                )
        finally:
            subprocess.run(
                [*rein_argv(), "hook", "daemon", "stop"], env=env, capture_output=True, check=False
            )


if __name__ == "__main__":
    main(sys.argv[1:])
