"""What reading files from disk, and reading the agent's own files strictly, does to real traffic.

    python -m bench.provenance

Each trajectory of tests/steering/real/agents.jsonl (one source file: one agent run) is replayed in
its own empty project, command by command, as a hook sees it: the files each allowed line writes are
written to disk where rein knows their text (heredocs, `echo >`, `sed -i`, ...), so a later call that
runs one reads it. The harnesses' absolute roots (`/code`, `/app`, `/testbed`, `/workspace`) are moved
into the project. Three runs: the session's provenance kept (a file the agent wrote is read strictly),
every file taken as the person's (nothing recorded), and each command alone in an empty project (the
labels of tests/steering/test_real.py). The table counts the commands that ran a file from disk, whose
file it was, and the blocks each run adds or removes.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from rein.gitio import host_context
from rein.steering import MemoryEntries, Steering, ToolCall, Verdict, build_policy

AGENTS = Path(__file__).resolve().parent.parent / "tests" / "steering" / "real" / "agents.jsonl"
_ROOTS = re.compile(r"(?<![\w./-])/(code|app|testbed|workspace)(?=/|\b)")


def _trajectories() -> dict[str, list[dict[str, str]]]:
    runs: dict[str, list[dict[str, str]]] = defaultdict(list)
    for line in AGENTS.read_text().splitlines():
        row = json.loads(line)
        runs[row["source"]].append(row)
    return runs


def _replay(engine: Steering, rows: list[dict[str, str]], keep: bool) -> list[tuple[Verdict, dict[str, str]]]:
    """Each command of one run, in order; `keep`: the session's record of what the agent wrote."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("code", "app", "testbed", "workspace", "home"):
            (root / name).mkdir()
        entries = MemoryEntries()
        done = []
        for row in rows:
            command = _ROOTS.sub(lambda m: f"{tmp}/{m.group(1)}", row["command"])
            context = host_context(
                str(root / "app"), str(root / "home"), branch="feature",
                entries=entries if keep else MemoryEntries(),
            )  # fmt: skip
            verdict = engine.evaluate(ToolCall(tool="bash", command=command), context)
            done.append((verdict, row))
            if verdict.allow and verdict.analysis is not None:
                for path, text in verdict.analysis.contents:
                    if path.startswith(tmp + "/"):
                        Path(path).parent.mkdir(parents=True, exist_ok=True)
                        Path(path).write_text(text)
        return done


def main() -> None:
    engine = Steering(build_policy([]).policy)
    runs = _trajectories()
    table = Table(title=f"Replaying {len(runs):,} agent runs ({sum(map(len, runs.values())):,} commands)")
    for column in ("run", "ran a file on disk", "the agent's", "the person's", "blocked", "vs. alone"):
        table.add_column(column, justify="left" if column == "run" else "right")
    for label, keep in (("provenance kept", True), ("every file the person's", False)):
        on_disk = agents = persons = blocked = added = 0
        for rows in runs.values():
            for verdict, row in _replay(engine, rows, keep):
                refs = verdict.analysis.refs if verdict.analysis is not None else ()
                read = [ref for ref in refs if ref.origin]
                on_disk += bool(read)
                agents += any(not ref.lenient for ref in read)
                persons += bool(read) and all(ref.lenient for ref in read)
                blocked += not verdict.allow
                added += (not verdict.allow) != (row.get("expect") == "block")
        table.add_row(label, str(on_disk), str(agents), str(persons), str(blocked), f"{added} differ")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
