"""How often rein's default policy blocks a harmless command, on the real corpora.

    python -m bench.false_blocks

Each command of tests/steering/real runs through the default policy in an empty project, read from
disk as a hook reads it (`host_context`). A block is true when the command does what the rule is
about (labelled in the corpus with its rule and why); a block of a harmless command is false (its
label starts with `choice:` or `gap:`); text bash itself rejects (prose or Java sent to the shell,
the tldr pages' placeholders) is counted apart, since no policy could run it. The rate is false
blocks per 1,000 commands, with and without that text.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from rein.gitio import host_context
from rein.steering import Steering, ToolCall, build_policy

REAL = Path(__file__).resolve().parent.parent / "tests" / "steering" / "real"
CORPORA = ("agents.jsonl", "cheatsheets.jsonl")


def main() -> None:
    engine = Steering(build_policy([]).policy)
    table = Table(title="False blocks on real commands (default policy, empty project)")
    for column in ("corpus", "commands", "blocked", "true blocks", "not bash", "false blocks", "per 1,000"):
        table.add_column(column, justify="left" if column == "corpus" else "right")
    with tempfile.TemporaryDirectory() as tmp:
        project, home = Path(tmp) / "project", Path(tmp) / "home"
        project.mkdir()
        home.mkdir()
        for name in CORPORA:
            rows = [json.loads(line) for line in (REAL / name).read_text().splitlines()]
            blocked = not_bash = false = 0
            started = time.perf_counter()
            for row in rows:
                context = host_context(str(project), str(home), branch="feature")
                if engine.evaluate(ToolCall(tool="bash", command=row["command"]), context).allow:
                    continue
                blocked += 1
                why = str(row.get("why", "choice: unlabelled"))
                not_bash += why.startswith("not bash")
                false += why.startswith(("choice:", "gap:"))
            elapsed = time.perf_counter() - started
            shell = len(rows) - not_bash
            table.add_row(
                f"{name} ({elapsed:.1f} s)", f"{len(rows):,}", str(blocked), str(blocked - not_bash - false),
                str(not_bash), str(false), f"{1000 * false / shell:.2f}",
            )  # fmt: skip
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
