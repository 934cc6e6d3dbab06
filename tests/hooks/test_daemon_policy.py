"""What the hook daemon keeps warm goes cold when it should: the policy of a directory when one of its
config files is added, changed or removed, and the daemon itself when its code changes on disk."""

from __future__ import annotations

import os
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from rein.hooks import _daemon
from rein.hooks._daemon import Daemon, Policies
from tests.hooks._daemon_rig import Rig, rigged

NO_LS = """\
[[rule]]
name = "no-ls"
reason = "{reason}"
command = "ls"
"""


@pytest.fixture
def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    yield from rigged(tmp_path, monkeypatch)


@pytest.mark.slow
def test_a_config_file_added_changed_or_removed_changes_the_next_decision(rig: Rig) -> None:
    project = rig.home / "plain"
    project.mkdir()
    config = project / ".rein" / "steering.toml"
    body = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "t",
    }
    assert rig.rein("hook", "daemon", "start").returncode == 0

    def listing() -> str:
        before = rig.served()
        done = rig.hook("claude", "pre-tool-use", body)
        assert done.returncode == 0 and rig.served() == before + 1  # the daemon answered
        return done.stdout

    assert listing() == ""
    config.parent.mkdir()
    config.write_text(NO_LS.format(reason="No listings here."))
    assert "[steering:no-ls@" in listing() and "No listings here." in listing()
    config.write_text(NO_LS.format(reason="Still no listings."))
    denied = listing()
    assert "Still no listings." in denied and "No listings here." not in denied
    config.unlink()
    assert listing() == ""
    assert rig.running().policies >= 3


def config(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    cwd = home / "project"
    file = cwd / ".rein" / "steering.toml"
    file.parent.mkdir(parents=True)
    file.write_text(NO_LS.format(reason="one"))
    return home, cwd, file


def test_the_same_files_give_the_same_policy_object(tmp_path: Path) -> None:
    home, cwd, _ = config(tmp_path)
    policies = Policies()
    first = policies(cwd, home)
    assert policies(cwd, home) is first
    assert len(policies) == 1


def test_a_touched_file_rebuilds_the_policy(tmp_path: Path) -> None:
    home, cwd, file = config(tmp_path)
    policies = Policies()
    first = policies(cwd, home)
    stamp = file.stat().st_mtime_ns + 1_000_000_000
    os.utime(file, ns=(stamp, stamp))  # same bytes, a new mtime
    touched = policies(cwd, home)
    assert touched is not first
    file.write_text(NO_LS.format(reason="two, longer"))
    assert policies(cwd, home) is not touched
    (home / ".rein").mkdir()
    (home / ".rein" / "steering.toml").write_text("")  # a layer added further up
    assert policies(cwd, home) is not touched
    assert len(policies) == 4


def test_the_cache_keeps_the_most_recently_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_daemon, "CACHED", 2)
    home = tmp_path / "home"
    places = []
    for name in "abc":
        place = home / name / ".rein"
        place.mkdir(parents=True)
        (place / "steering.toml").write_text(NO_LS.format(reason=name))
        places.append(place.parent)
    policies = Policies()
    a = policies(places[0], home)
    policies(places[1], home)
    assert policies(places[0], home) is a  # now the most recent
    policies(places[2], home)  # evicts b, not a
    assert len(policies) == 2
    assert policies(places[0], home) is a


@pytest.fixture
def module_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A loaded module whose source sits under a stand-in for rein's package directory."""
    root = tmp_path / "rein"
    root.mkdir()
    source = root / "fake_module.py"
    source.write_text("")
    module = types.ModuleType("rein_fake_module")
    module.__file__ = str(source)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(_daemon, "ROOT", str(root))
    return source


def overdue(daemon: Daemon) -> Daemon:
    """Make the daemon's next `stale()` look at the files (it looks at most once a second)."""
    daemon.checked = time.monotonic() - 2
    return daemon


def test_a_daemon_whose_code_is_unchanged_is_not_stale(tmp_path: Path, module_file: Path) -> None:
    daemon = Daemon(str(tmp_path))
    assert str(module_file) in daemon.code
    assert not overdue(daemon).stale()


def test_a_changed_module_file_makes_the_daemon_stale(tmp_path: Path, module_file: Path) -> None:
    daemon = Daemon(str(tmp_path))
    stamp = module_file.stat().st_mtime_ns + 1_000_000_000
    os.utime(module_file, ns=(stamp, stamp))
    assert not daemon.stale()  # checked less than a second ago: not yet looked at
    assert overdue(daemon).stale()


def test_a_removed_module_file_makes_the_daemon_stale(tmp_path: Path, module_file: Path) -> None:
    daemon = Daemon(str(tmp_path))
    module_file.unlink()
    assert overdue(daemon).stale()


def test_a_module_loaded_later_is_not_a_change(
    tmp_path: Path, module_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    daemon = Daemon(str(tmp_path))
    later = module_file.with_name("later.py")
    later.write_text("")
    module = types.ModuleType("rein_fake_later")
    module.__file__ = str(later)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    assert not overdue(daemon).stale()
    assert str(later) in daemon.code  # remembered from now on
    later.unlink()
    assert overdue(daemon).stale()


PLUGIN = """\
from rein.steering import Matcher, Plugin, Rule

plugin = Plugin(
    name="team",
    rules=(Rule(name="no-tool", source="team", reason="not here",
                matcher=Matcher(command=frozenset({{"{command}"}}))),),
)
"""


def _names(policies: Policies, cwd: Path, home: Path) -> set[frozenset[str]]:
    return {rule.matcher.command or frozenset() for rule in policies(cwd, home).policy.rules}


@pytest.mark.parametrize("kind", ["file", "module"])
def test_an_edited_plugin_rebuilds_the_policy(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin's source changing (not its config file) is seen at the next call, as a fresh hook
    process would see it: `.py` files by path, module plugins by their source file."""
    home, cwd = tmp_path / "home", tmp_path / "home" / "project"
    (cwd / ".rein").mkdir(parents=True)
    name = f"rein_test_team_{kind}"
    source = cwd / ".rein" / ("team.py" if kind == "file" else f"{name}.py")
    spec = "team.py" if kind == "file" else name
    if kind == "module":
        monkeypatch.syspath_prepend(str(source.parent))
        monkeypatch.delitem(sys.modules, name, raising=False)
    (cwd / ".rein" / "steering.toml").write_text(f'plugins = ["{spec}"]\n')
    source.write_text(PLUGIN.format(command="yarn"))
    policies = Policies()
    assert frozenset({"yarn"}) in _names(policies, cwd, home)
    first = policies(cwd, home)
    assert policies(cwd, home) is first
    source.write_text(PLUGIN.format(command="npm"))
    stamp = source.stat().st_mtime_ns + 1_000_000_000
    os.utime(source, ns=(stamp, stamp))
    names = _names(policies, cwd, home)
    assert frozenset({"npm"}) in names
    assert frozenset({"yarn"}) not in names
