"""Rule paths that are not rule files: a directory named like one, a link to nothing, a source folder
that is a link to nothing. Each is one issue naming it; the good rules beside it still load."""

from __future__ import annotations

import os
from pathlib import Path

from rein.ttsr import RuleIssue, discover_rules

RULE = "---\ncondition: 'forbidden'\n---\nDo not.\n"


def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    rules = cwd / ".rein" / "rules"
    rules.mkdir(parents=True)
    home.mkdir()
    (rules / "good.md").write_text(RULE)
    return cwd, home, rules


def errors(issues: tuple[RuleIssue, ...]) -> list[str]:
    return [str(issue) for issue in issues if issue.severity == "error"]


def test_a_directory_named_like_a_rule_is_an_issue(tmp_path: Path) -> None:
    cwd, home, rules = setup(tmp_path)
    (rules / "folder.md").mkdir()
    found = discover_rules(cwd, home, builtin=False)
    assert [rule.name for rule in found.rules] == ["good"]
    assert errors(found.issues) == [f"{rules / 'folder.md'}: is a directory, not a rule file"]


def test_a_dangling_link_is_an_issue(tmp_path: Path) -> None:
    cwd, home, rules = setup(tmp_path)
    (rules / "linked.md").symlink_to(tmp_path / "deleted.md")
    found = discover_rules(cwd, home, builtin=False)
    assert [rule.name for rule in found.rules] == ["good"]
    expected = f"{rules / 'linked.md'}: is a link to {tmp_path / 'deleted.md'}, which does not exist"
    assert errors(found.issues) == [expected]


def test_a_link_to_a_rule_file_loads(tmp_path: Path) -> None:
    cwd, home, rules = setup(tmp_path)
    (tmp_path / "shared.md").write_text(RULE)
    (rules / "shared.md").symlink_to(tmp_path / "shared.md")
    found = discover_rules(cwd, home, builtin=False)
    assert sorted(rule.name for rule in found.rules) == ["good", "shared"] and found.issues == ()


def test_a_fifo_is_an_issue_and_is_not_read(tmp_path: Path) -> None:
    cwd, home, rules = setup(tmp_path)
    os.mkfifo(rules / "pipe.md")  # reading it would block
    found = discover_rules(cwd, home, builtin=False)
    assert errors(found.issues) == [f"{rules / 'pipe.md'}: is not a regular file"]


def test_a_source_that_is_a_dangling_link_is_an_issue(tmp_path: Path) -> None:
    cwd, home, _ = setup(tmp_path)
    (cwd / ".clinerules").symlink_to(tmp_path / "gone")
    found = discover_rules(cwd, home, builtin=False)
    assert [rule.name for rule in found.rules] == ["good"]
    assert errors(found.issues) == [
        f"{cwd / '.clinerules'}: is a link to {tmp_path / 'gone'}, which does not exist"
    ]


def test_other_names_in_a_rule_folder_stay_quiet(tmp_path: Path) -> None:
    cwd, home, rules = setup(tmp_path)
    (rules / "notes").mkdir()
    (rules / "README.txt").symlink_to(tmp_path / "gone.txt")
    assert discover_rules(cwd, home, builtin=False).issues == ()
