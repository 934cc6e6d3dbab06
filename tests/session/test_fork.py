"""`fork_session`: a new file with the active path, ids and links kept, the same context."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rein.session import LabelEntry, Session, SessionWriteError, fork_session
from tests.session.helpers import FIXTURES, assistant, user


def lines(path: Path | None) -> list[dict[str, object]]:
    assert path is not None
    return [json.loads(line) for line in path.read_text().splitlines()]


def branched(home: Path) -> tuple[Session, dict[str, str]]:
    """prompt -> reply -> (a: old try -> reply) | (b: compaction -> new try -> reply, labelled)."""
    store = Session.create("/work/app", home=home)
    ids: dict[str, str] = {}
    ids["p1"] = store.append_message(user("fix the test"))
    ids["r1"] = store.append_message(assistant("looking"))
    ids["a1"] = store.append_message(user("try A"))
    ids["a2"] = store.append_message(assistant("A failed"))
    store.branch(ids["r1"])
    ids["c"] = store.append_compaction("we looked at the test", ids["r1"], 1234)
    ids["b1"] = store.append_message(user("try B"))
    ids["b2"] = store.append_message(assistant("B passes"))
    ids["l"] = store.append_label(ids["b2"], "green")
    return store, ids


def test_the_fork_holds_the_active_path_with_its_ids_and_the_same_context(tmp_path: Path) -> None:
    store, ids = branched(tmp_path)
    fork = fork_session(store, home=tmp_path)
    assert fork.path is not None and fork.path != store.path
    assert fork.path.parent == store.path.parent if store.path else False
    assert fork.header.cwd == "/work/app" and fork.header.parent_session == str(store.path)
    assert [e.id for e in fork.tree] == [ids[k] for k in ("p1", "r1", "c", "b1", "b2", "l")]
    assert [e.parent_id for e in fork.tree] == [None, ids["p1"], ids["r1"], ids["c"], ids["b1"], ids["b2"]]
    assert ids["a1"] not in fork.tree and ids["a2"] not in fork.tree
    assert fork.leaf_id == ids["l"] and fork.tree.labels == {ids["b2"]: "green"}
    assert fork.context().messages == store.context().messages
    assert fork.context().compaction == store.context().compaction
    # On disk, read back: the header, then the copied entries with their timestamps.
    reopened = Session.open(fork.path)
    assert list(reopened.tree) == list(fork.tree)
    assert [e.timestamp for e in reopened.tree] == [e.timestamp for e in store.tree.active_path()]
    assert lines(fork.path)[0]["parent_session"] == str(store.path)


def test_appends_to_the_fork_leave_the_original_alone(tmp_path: Path) -> None:
    store, _ = branched(tmp_path)
    assert store.path is not None
    before = store.path.read_text()
    fork = fork_session(store, home=tmp_path)
    fork.append_message(user("more"))
    assert store.path.read_text() == before
    assert len(Session.open(store.path).tree) == len(store.tree)


def test_labels_of_copied_entries_set_on_other_branches_are_carried(tmp_path: Path) -> None:
    store = Session.create("/w", home=tmp_path)
    first = store.append_message(user("one"))
    reply = store.append_message(assistant("two"))
    store.append_label(first, "start")  # on the path: copied as it is
    store.branch(reply)
    store.append_message(user("elsewhere"))
    store.append_label(reply, "answer")  # on a branch the fork does not take
    store.branch(reply)
    fork = fork_session(store, home=tmp_path)
    assert fork.tree.labels == {first: "start", reply: "answer"}
    carried = [e for e in fork.tree if isinstance(e, LabelEntry)]
    assert [(e.target_id, e.label) for e in carried] == [(first, "start"), (reply, "answer")]
    assert fork.context().messages == store.context().messages


def test_a_pi_session_forks_into_a_rein_file(tmp_path: Path) -> None:
    source = tmp_path / "pi.jsonl"
    shutil.copy(FIXTURES / "pi_v3.jsonl", source)
    store = Session.open(source)
    assert store.header.format == "pi"
    fork = fork_session(store, home=tmp_path)
    assert fork.header.format == "rein" and fork.header.parent_session == str(source)
    path = [e.id for e in store.tree.active_path()]
    assert [e.id for e in fork.tree][:-1] == path
    # The label sits on the branch the fork leaves out; it is carried as a label at the end.
    last = list(fork.tree)[-1]
    assert isinstance(last, LabelEntry) and (last.target_id, last.label) == ("b8c9d0e1", "flag-added")
    assert fork.tree.labels == store.tree.labels
    assert fork.context().messages == store.context().messages
    assert fork.context().model == store.context().model
    written = lines(fork.path)
    assert all("parentId" not in line for line in written[1:])  # rein's keys
    assert Session.open(fork.path or source).context().messages == store.context().messages


def test_an_empty_session_forks_into_a_header_only_file(tmp_path: Path) -> None:
    store = Session.in_memory("/w")
    fork = fork_session(store, home=tmp_path)
    assert fork.header.parent_session is None and len(fork.tree) == 0
    assert len(lines(fork.path)) == 1


def test_a_fork_that_cannot_be_written_raises_naming_the_file(tmp_path: Path) -> None:
    store, _ = branched(tmp_path)
    home = tmp_path / "blocked"
    home.mkdir()
    (home / ".rein").write_text("a file where the sessions directory should be\n")
    with pytest.raises(SessionWriteError, match=str(home)):
        fork_session(store, home=home)
