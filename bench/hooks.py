"""Hook benchmark: the wall time of one `rein hook claude pre-tool-use` process, as a host pays it.

    python -m bench.hooks [runs]

A host starts the hook as a fresh process for every tool call, so start-up is the cost. Target
(issue 6): median under 100 ms. Baselines show what is not rein's: the interpreter alone, and
importing the steering engine. Plain text output: this measures start-up, so it loads nothing extra.
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

RUNS = 20
TARGET_MS = 100.0
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


def main(argv: Sequence[str] = ()) -> None:
    runs = int(argv[0]) if argv else RUNS
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        project = home / "project"
        (project / ".rein").mkdir(parents=True)
        (project / ".rein" / "steering.toml").write_text(STEERING)
        env = {**os.environ, "HOME": str(home)}
        hook = [*rein_argv(), "hook", "claude"]
        cases: list[tuple[str, list[str], str]] = [
            ("python -c pass", [sys.executable, "-c", "pass"], ""),
            ("python -c 'import rein.steering'", [sys.executable, "-c", "import rein.steering"], ""),
            (
                "hook claude pre-tool-use (allow)",
                [*hook, "pre-tool-use"],
                payload(project, "PreToolUse", "ls -la"),
            ),
            (
                "hook claude pre-tool-use (deny)",
                [*hook, "pre-tool-use"],
                payload(project, "PreToolUse", "git add -A && git commit -m wip"),
            ),
            (
                "hook claude post-tool-use",
                [*hook, "post-tool-use"],
                payload(project, "PostToolUse", "pytest -q"),
            ),
        ]
        print(f"hook start-up, {runs} runs each ({' '.join(hook)}); target: median < {TARGET_MS:.0f} ms")
        print(f"{'case':<38} {'median ms':>10} {'p90 ms':>8} {'min ms':>8}")
        for name, command, stdin in cases:
            samples = measure(command, stdin, env, project, runs)
            median, p90 = statistics.median(samples), percentile(samples, 0.9)
            print(f"{name:<38} {median:>10.1f} {p90:>8.1f} {min(samples):>8.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
