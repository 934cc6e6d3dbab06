"""`make demo` as docs/agent.md shows it: the demo runs on the local model, the stream rule cuts the
model's own text, the retry follows the rule, steering blocks the command the model writes, and the
output printed in docs/agent.md is this run's, line for line (greedy sampling on the pinned build of
llama.cpp writes the same replies every run)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import rein_env

ROOT = Path(__file__).resolve().parents[1]
START = "````console\n$ make demo\n"


def shown() -> list[str]:
    text = (ROOT / "docs" / "agent.md").read_text()
    start = text.index(START) + len(START)
    return text[start : text.index("````\n", start)].splitlines()


@pytest.mark.local
@pytest.mark.slow
def test_the_demo_cuts_the_retry_complies_steering_blocks_and_the_docs_show_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    env = rein_env(home) | {"COLUMNS": "100"}  # the width the docs show
    done = subprocess.run(
        [sys.executable, "-m", "rein.cli", "demo"],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "SmolLM2-135M through llama.cpp" in out
    # The model's own text tripped the rule: the cut, the injected rule and the retry are shown.
    fired = out.index("stream rule fired: no-console-log")
    assert out.index("console.log(") < fired < out.index("cut: stream rule: no-console-log")
    assert "<system-interrupt" in out[fired:] and "what happened: The stream rule cut the reply" in out
    # The retried reply follows the rule: no console.log between the injection and the verdict.
    retried = out[out.index("</system-interrupt>") : out.index("what happened: The stream rule")]
    assert "```javascript" in retried and "console.log" not in retried
    assert "The retried reply does not use console.log" in " ".join(out.split())
    # The command the model wrote was checked and blocked; the word-for-word repeat was not run.
    assert "> bash: npm start" in out and "[steering:no-dev-server@defaults]" in out
    assert "what happened: Steering blocked" in out and "loop detection answered" in " ".join(out.split())
    assert "rein check: may the agent run this?" in out
    # docs/agent.md prints this very run, from the first prompt to the last verdict.
    lines = [line.rstrip() for line in out.splitlines()]
    first = lines.index(shown()[0])
    assert lines[first : first + len(shown())] == shown()
