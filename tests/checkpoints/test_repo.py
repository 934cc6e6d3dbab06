"""The shadow repository on real files, the cap on a huge tree, and the files at a point of a tree."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rein.checkpoints import CHECKPOINT, UNDO, Row, ShadowRepo, TooManyFiles, store_dir, tree_at
from tests.builtins.conftest import MakeHarness
from tests.checkpoints.conftest import bash, done, reply


def test_each_project_has_its_own_store_named_by_its_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    one, two = tmp_path / "one", tmp_path / "two"
    for project in (one, two):
        project.mkdir()
        (project / "f.txt").write_text(project.name)
        ShadowRepo(project, home).snapshot()
    assert store_dir(home, one) != store_dir(home, two)
    assert (store_dir(home, one) / "project").read_text() == f"{one}\n"
    assert sorted(p.name for p in (home / ".rein" / "checkpoints").iterdir()) == sorted(
        [store_dir(home, one).name, store_dir(home, two).name]
    )


def test_an_unchanged_tree_gives_the_same_snapshot_and_changes_are_listed_by_path(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "d").mkdir(parents=True)
    (project / "d" / "x.txt").write_text("x")
    (project / "gone.txt").write_text("g")
    repo = ShadowRepo(project, tmp_path / "home")
    first = repo.snapshot()
    assert repo.snapshot() == first
    (project / "d" / "x.txt").write_text("y")
    (project / "gone.txt").unlink()
    (project / "new file.txt").write_text("n")
    changed = repo.changes(first, repo.snapshot())
    assert [(c.path, c.change) for c in changed] == [
        ("d/x.txt", "modified"),
        ("gone.txt", "deleted"),
        ("new file.txt", "added"),
    ]


def test_a_tree_past_the_cap_is_refused_with_the_fix(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    for n in range(8):
        (project / f"f{n}.txt").write_text(str(n))
    with pytest.raises(TooManyFiles) as raised:
        ShadowRepo(project, tmp_path / "home", max_files=5).snapshot()
    assert str(raised.value) == (
        f"{project} holds 8 files outside .gitignore (more than 5): checkpoints are off;"
        " ignore the big directories in .gitignore to turn them on"
    )
    (project / ".gitignore").write_text("f*.txt\n")
    assert ShadowRepo(project, tmp_path / "home", max_files=5).snapshot()


def test_past_the_cap_the_session_says_so_once_and_its_runs_go_on(
    started: MakeHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("rein.builtins.checkpoints.MAX_FILES", 3)
    h = started([reply(bash("touch a b c d")), done(), reply(bash("touch e")), done()])

    async def run() -> None:
        await h.session.prompt("one")
        await h.session.prompt("two")

    asyncio.run(run())
    warnings = [text for text, level in h.ui.notices if level == "warning"]
    assert len(warnings) == 1 and warnings[0].startswith("checkpoints off for this session: ")
    assert "more than 3" in warnings[0]
    assert (h.project / "e").exists()


def row(ident: str, parent: str | None, kind: str | None = None, **data: object) -> Row:
    return Row(id=ident, parent_id=parent, custom_type=kind, data=data or None)


def test_the_files_of_a_point_follow_its_branch() -> None:
    def cp(ident: str, parent: str, n: int) -> Row:
        return row(ident, parent, CHECKPOINT, id=f"c{n}", before=f"t{n - 1}", after=f"t{n}", files=[])

    rows = [
        row("p1", None),
        row("r1", "p1"),
        cp("k1", "r1", 1),
        row("p2", "k1"),
        row("r2", "p2"),
        cp("k2", "r2", 2),
        row("u", "k2", UNDO, undone=["c2"], tree="t2", after="t9"),
        row("p3", "r1"),  # a branch from run 1's last reply, before its checkpoint entry
    ]
    by_id = {r.id: r for r in rows}

    def at(ident: str) -> str | None:
        path: list[Row] = []
        current: str | None = ident
        while current is not None:
            path.insert(0, by_id[current])
            current = by_id[current].parent_id
        return tree_at(rows, path)

    assert at("p1") == "t0"  # before any checkpoint: the first one's "before"
    assert at("r1") == "t1"  # the run's last reply: its checkpoint hangs off it
    assert at("p2") == "t1"
    assert at("r2") == "t2"
    assert at("u") == "t9"
    assert at("p3") == "t1"
    assert tree_at([row("a", None)], [row("a", None)]) is None
