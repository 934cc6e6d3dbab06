"""Rules from JavaScript agents' folders mean what `new RegExp(pattern, flags).test(text)` means.

The verdicts come from node, computed once by `tests/ttsr/js_dialect_gen.mjs` and committed as
`tests/ttsr/data/js_dialect.json`. Each row goes through discovery (`.pi/rules`) and the real manager, fed
whole and in small deltas, with the block's end check: rein fires exactly when JavaScript's test is true.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rein.ttsr import Rule, TtsrManager, discover_rules
from tests.ttsr.helpers import stream

DATA = Path(__file__).parent / "data" / "js_dialect.json"
ROWS: list[dict[str, object]] = json.loads(DATA.read_text(encoding="utf-8"))["rows"]


def _rule_text(pattern: str, flags: str = "") -> str:
    fields: dict[str, str] = {"condition": pattern, "scope": "text"}
    if flags:
        fields["flags"] = flags
    return f"---\n{yaml.safe_dump(fields, allow_unicode=True)}---\nFollow the rule.\n"


def _load(tmp_path: Path, folder: str, pattern: str, flags: str = "") -> Rule:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    target = cwd / folder / "r.md"
    target.parent.mkdir(parents=True)
    home.mkdir()
    target.write_text(_rule_text(pattern, flags), encoding="utf-8")
    found = discover_rules(cwd, home, builtin=False)
    assert [str(i) for i in found.issues] == []
    [rule] = found.rules
    return rule


def _fires(rule: Rule, text: str, chunk: int) -> bool:
    return bool(stream(TtsrManager([rule]), text, chunk=max(1, chunk)))


def test_the_table_was_made_by_node() -> None:
    assert len(ROWS) >= 50
    assert json.loads(DATA.read_text(encoding="utf-8"))["node"].startswith("v")
    assert {row["js"] for row in ROWS} == {True, False}


@pytest.mark.parametrize("row", ROWS, ids=[str(row["note"]) for row in ROWS])
def test_a_javascript_rule_fires_exactly_when_javascript_matches(
    tmp_path: Path, row: dict[str, object]
) -> None:
    pattern, flags, text, expected = str(row["pattern"]), str(row["flags"]), str(row["input"]), row["js"]
    rule = _load(tmp_path, ".pi/rules", pattern, flags)
    assert {c.dialect for c in rule.conditions} == {"javascript"}
    assert _fires(rule, text, len(text)) is expected, "whole"
    assert _fires(rule, text, 1) is expected, "one character per delta"
    assert _fires(rule, text, 3) is expected, "three characters per delta"


PYTHON_ROWS = [
    # (pattern, input, verdict under Python's reading: what `.rein/rules` keeps)
    (r"\}$", "function f() {}\n", True),
    (r"\}$", "function f() {}", True),
    (r"a.b", "a\rb", True),
    (r"a{,5}b", "aab", True),
    (r"(?P<q>x)(?P=q)", "xx", True),
]


@pytest.mark.parametrize(("pattern", "text", "expected"), PYTHON_ROWS)
def test_rein_rules_keep_python_meaning(tmp_path: Path, pattern: str, text: str, expected: bool) -> None:
    rule = _load(tmp_path, ".rein/rules", pattern)
    assert {c.dialect for c in rule.conditions} == {"python"}
    assert _fires(rule, text, len(text)) is expected
    assert _fires(rule, text, 1) is expected


def test_the_same_file_means_javascript_in_pi_and_python_in_rein(tmp_path: Path) -> None:
    text = "function f() {}\n"
    js = _load(tmp_path / "a", ".pi/rules", r"\}$")
    py = _load(tmp_path / "b", ".rein/rules", r"\}$")
    assert not _fires(js, text, 2) and _fires(py, text, 2)
    assert _fires(js, text.rstrip("\n"), 2)


@pytest.mark.parametrize(
    "folder", [".pi/rules", ".omp/rules", ".windsurf/rules", ".clinerules", ".agent/rules"]
)
def test_every_javascript_agent_folder_is_read_as_javascript(tmp_path: Path, folder: str) -> None:
    assert _load(tmp_path, folder, "x1").conditions[0].dialect == "javascript"


def test_cursor_rules_are_read_as_javascript(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    (cwd / ".cursor/rules").mkdir(parents=True)
    home.mkdir()
    (cwd / ".cursor/rules/r.mdc").write_text(_rule_text("x1"), encoding="utf-8")
    (home / ".rein/rules").mkdir(parents=True)
    (home / ".rein/rules/h.md").write_text(_rule_text("x2"), encoding="utf-8")
    dialects = {r.name: r.conditions[0].dialect for r in discover_rules(cwd, home).rules}
    assert dialects["r"] == "javascript" and dialects["h"] == "python"
    assert {d for name, d in dialects.items() if name not in {"r", "h"}} == {"python"}  # built-in
