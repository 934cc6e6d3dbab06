"""Commands real agents ran and the tldr pages' examples (tests/steering/real): each runs through the
default policy in an empty project, read from disk as a hook would. A line that blocks carries
`expect: block` (`ask` where a pack rule asks the person) with the rule and why (`choice:` and `gap:`
mark the blocks of harmless commands); every other line must run. A change in either direction fails
here, and its label is updated with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rein.gitio import host_context
from rein.steering import Steering, ToolCall, build_policy

REAL = Path(__file__).parent / "real"


@pytest.mark.parametrize("name", ["agents.jsonl", "cheatsheets.jsonl"])
def test_real_commands_block_exactly_as_labelled(name: str, tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    engine = Steering(build_policy([]).policy)
    wrong: list[str] = []
    rows = [json.loads(line) for line in (REAL / name).read_text().splitlines()]
    for row in rows:
        verdict = engine.evaluate(
            ToolCall(tool="bash", command=row["command"]),
            host_context(str(project), str(home), branch="feature"),
        )
        expected = row.get("rule") if row.get("expect") in ("block", "ask") else None
        got = None if verdict.allow else verdict.rule
        if got != expected or verdict.ask != (row.get("expect") == "ask"):
            wrong.append(f"{row['command'][:120]!r}: expected {expected or 'allow'}, got {got or 'allow'}")
    assert not wrong, f"{len(wrong)} of {len(rows)} differ from their labels:\n" + "\n".join(wrong[:30])


def test_every_block_says_why() -> None:
    for name in ("agents.jsonl", "cheatsheets.jsonl"):
        for line in (REAL / name).read_text().splitlines():
            row = json.loads(line)
            expect = row.get("expect")
            assert expect in (None, "block", "ask") and (expect is None or row.get("why"))
