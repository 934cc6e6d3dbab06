"""The paths a host keeps out of its snapshots (the session server's database), the snapshot that
skips `write-tree` when nothing changed, the cap read from a split index, and the files' contents for
a turn's diffs."""

from __future__ import annotations

from pathlib import Path

import pytest

from rein.checkpoints import Checkpoint, ShadowRepo, TooManyFiles, undo


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    (project / "state").mkdir(parents=True)
    (project / "a.txt").write_text("one\n")
    (project / "server.db").write_bytes(b"db 1")
    (project / "state" / "log").write_text("1\n")
    return project


def test_excluded_paths_never_appear_in_a_turns_changes_nor_come_back_on_undo(tmp_path: Path) -> None:
    project = _project(tmp_path)
    exclude = [project / "server.db", project / "state", tmp_path / "elsewhere.db"]
    repo = ShadowRepo(project, tmp_path / "home", exclude=exclude)
    assert repo.excluded == ("server.db", "state")
    before = repo.snapshot()
    (project / "a.txt").write_text("two\n")
    (project / "server.db").write_bytes(b"db 2")
    (project / "state" / "log").write_text("2\n")
    after = repo.snapshot()
    files = repo.changes(before, after)
    assert [(f.path, f.change) for f in files] == [("a.txt", "modified")]
    (project / "server.db").write_bytes(b"db 3")
    done = undo(repo, [Checkpoint(id="c", before=before, after=after, files=files)])
    assert [(f.path, f.action) for f in done.files] == [("a.txt", "restored")]
    assert (project / "a.txt").read_text() == "one\n"
    assert (project / "server.db").read_bytes() == b"db 3"
    assert (project / "state" / "log").read_text() == "2\n"


def test_a_path_an_earlier_snapshot_took_is_still_left_out_of_the_changes(tmp_path: Path) -> None:
    project = _project(tmp_path)
    ShadowRepo(project, tmp_path / "home").snapshot()  # `rein` in the project, before the server ran
    repo = ShadowRepo(project, tmp_path / "home", exclude=[project / "server.db"])
    before = repo.snapshot()
    (project / "server.db").write_bytes(b"db 2")
    (project / "new [1].txt").write_text("n\n")
    assert [(f.path, f.change) for f in repo.changes(before, repo.snapshot())] == [("new [1].txt", "added")]


def test_names_with_glob_characters_are_excluded_exactly(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    for name in ("data[1].db", "data1.db", "a*b"):
        (project / name).write_text(name)
    repo = ShadowRepo(project, tmp_path / "home", exclude=[project / "data[1].db", project / "a*b"])
    before = repo.snapshot()
    for name in ("data[1].db", "data1.db", "a*b"):
        (project / name).write_text(name + "!")
    assert [f.path for f in repo.changes(before, repo.snapshot())] == ["data1.db"]


def test_an_unchanged_tree_reuses_the_last_tree_and_a_change_is_never_missed(tmp_path: Path) -> None:
    project = _project(tmp_path)
    repo = ShadowRepo(project, tmp_path / "home")
    first = repo.snapshot()
    remembered = (repo.dir / "tree").read_text().split()
    assert remembered[1] == first
    assert repo.snapshot() == first
    (project / "a.txt").write_text("two\n")
    second = repo.snapshot()
    assert second != first and (repo.dir / "tree").read_text().split()[1] == second
    (repo.dir / "tree").write_text(f"{remembered[0]} {'0' * 40}\n")  # a stale record: another index
    assert ShadowRepo(project, tmp_path / "home").snapshot() == second


def test_blobs_give_each_files_content_its_size_past_the_limit_or_none(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "big.txt").write_text("x" * 100)
    repo = ShadowRepo(project, tmp_path / "home")
    tree = repo.snapshot()
    wanted = [(tree, "a.txt"), (tree, "big.txt"), (tree, "missing.txt"), (tree, "state/log"), (tree, "state")]
    assert repo.blobs(wanted, 50) == [b"one\n", 100, None, b"1\n", None]
    assert repo.blobs([], 50) == []


def test_a_tree_that_grows_past_the_cap_stops_the_next_snapshot(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    for n in range(3):
        (project / f"f{n}.txt").write_text(str(n))
    repo = ShadowRepo(project, tmp_path / "home", max_files=5)
    repo.snapshot()
    assert repo.indexed() == 3
    assert repo.snapshot()
    for n in range(3, 12):
        (project / f"f{n}.txt").write_text(str(n))
    with pytest.raises(TooManyFiles):
        repo.snapshot()
    assert repo.indexed() == 12
