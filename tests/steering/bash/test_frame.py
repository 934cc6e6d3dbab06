"""Frame: copy-on-write state, merging branches, and what a child process inherits."""

from __future__ import annotations

from rein.steering.bash import UNKNOWN
from rein.steering.bash._frame import Frame, merge


def _frame() -> Frame:
    return Frame("/a", {"PWD": "/a", "X": "1"}, {"branch": "main"})


def test_merge_keeps_what_all_agree_on() -> None:
    first, second = _frame(), _frame()
    second.set_var("X", "2")
    second.set_var("Y", "new")
    second.set_value("branch", "other")
    merged = merge([first, second])
    assert (merged.cwd, merged.env["X"], merged.env["Y"], merged.values["branch"]) == (
        "/a",
        UNKNOWN,
        UNKNOWN,
        UNKNOWN,
    )
    assert merged.env["PWD"] == "/a"


def test_merge_of_one_is_a_copy_and_disagreeing_cwd_is_unknown() -> None:
    first = _frame()
    alone = merge([first])
    alone.chdir("/b")
    assert first.cwd == "/a"
    other = _frame()
    other.chdir("/c")
    assert merge([first, other]).cwd is UNKNOWN


def test_copy_does_not_share_changes() -> None:
    frame = _frame()
    copy = frame.copy()
    copy.set_var("X", "changed")
    copy.chdir("/elsewhere")
    assert (frame.env["X"], frame.cwd) == ("1", "/a")
    assert frame.state().env["X"] == "1"


def test_state_snapshot_is_cached_until_a_change() -> None:
    frame = _frame()
    assert frame.state() is frame.state()
    before = frame.state()
    frame.set_var("Z", "1")
    assert frame.state() is not before and "Z" not in before.env


def test_child_sees_exported_variables_only() -> None:
    frame = _frame()
    frame.set_var("LOCAL", "x")
    frame.set_var("EXPORTED", "y", export=True)
    frame.set_var("X", "3")  # X came from the start env: it stays exported
    child = frame.child()
    assert set(child.env) == {"PWD", "X", "EXPORTED"}
    frame.export("LOCAL")
    assert "LOCAL" in frame.child().env


def test_absorb() -> None:
    frame = _frame()
    child = frame.child()
    child.set_value("branch", "other")
    frame.absorb(child, exact=False)
    assert frame.values["branch"] is UNKNOWN
    exact = _frame()
    exact.absorb(child, exact=True)
    assert exact.values["branch"] == "other"


def test_forget_env_keeps_pwd() -> None:
    frame = _frame()
    frame.forget_env()
    # HOME stays, unknown: a missing HOME would mean certainly unset, where `~` is the user's home.
    assert dict(frame.env) == {"PWD": "/a", "HOME": UNKNOWN}
    cleared = _frame()
    cleared.forget_env(cleared=True)
    assert dict(cleared.env) == {"PWD": "/a"}
