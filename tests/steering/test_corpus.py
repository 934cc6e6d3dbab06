"""The adversarial corpus: every case in `tests/steering/corpus/*.jsonl` through the engine with the
default rules, from a repo on a feature branch (the `check` fixture's context).

One JSON object per line: `command`, `expect` (`block`, `ask` for a pack rule that asks, or `allow`),
optional `rule` (the rule that must decide a block or an ask) and `why` (what the case tests). The
files are grouped by the classes of the steering issue; `bench/steering_peers.py` runs the same
corpus through rein and a peer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.steering.conftest import Check

CORPUS = Path(__file__).parent / "corpus"
CLASSES = (
    "runners",
    "unknown_commands",
    "runtime_args",
    "options",
    "later",
    "interpreters",
    "servers",
    "safe",
    "malformed",
)
MINIMUM = 400


@dataclass(frozen=True, slots=True)
class Case:
    file: str
    line: int
    command: str
    expect: str
    rule: str | None
    why: str

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"


def read_cases(path: Path) -> list[Case]:
    """The cases of one corpus file (this corpus's and the packs')."""
    cases: list[Case] = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        raw = json.loads(text)
        cases.append(
            Case(
                file=path.name,
                line=number,
                command=raw["command"],
                expect=raw["expect"],
                rule=raw.get("rule"),
                why=raw.get("why", ""),
            )
        )
    return cases


def load() -> list[Case]:
    return [case for name in CLASSES for case in read_cases(CORPUS / f"{name}.jsonl")]


CASES = load()


def test_the_corpus_is_large_enough_and_every_line_is_well_formed() -> None:
    assert sorted(path.stem for path in CORPUS.glob("*.jsonl")) == sorted(CLASSES)
    assert len(CASES) >= MINIMUM
    for path in CORPUS.glob("*.jsonl"):
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            raw = json.loads(text)
            where = f"{path.name}:{number}"
            assert isinstance(raw, dict), where
            assert set(raw) <= {"command", "expect", "rule", "why"}, where
            assert isinstance(raw.get("command"), str) and raw["command"], where
            assert raw.get("expect") in ("block", "ask", "allow"), where
            assert isinstance(raw.get("why"), str) and raw["why"].strip(), where
            assert "rule" not in raw or (raw["expect"] != "allow" and isinstance(raw["rule"], str)), where
    commands = [case.command for case in CASES]
    assert len(commands) == len(set(commands)), "a command appears twice"


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_case(check: Check, case: Case) -> None:
    verdict = check(case.command)
    shown = f"{case.command!r} ({case.why}): {verdict.reason or 'allowed'}"
    if case.expect == "allow":
        assert verdict.allow, f"false block of {shown}"
        return
    assert not verdict.allow, f"false allow of {shown}"
    if case.rule is not None:
        assert verdict.rule == case.rule, f"expected {case.rule}, got {verdict.rule} for {shown}"
    assert verdict.ask == (case.expect == "ask"), f"expected {case.expect} for {shown}"
