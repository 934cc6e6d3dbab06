"""Issue 35, resuming, with the real `rein` (stdin not a terminal: one prompt per line): `-c` shows the
session and its last turns, `--resume` takes an id, the start of one or a file, the end of a session
says how to continue it, and `--server URL -c` continues this directory's last session on the server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.helpers import run_rein
from tests.server.helpers import running_server

pytestmark = pytest.mark.slow

FAUX = ("--provider", "faux")
SAVED = re.compile(
    r"session saved: ([0-9a-f-]{36}); continue with `rein -c` \(or `rein --resume ([0-9a-f]{8})`\)"
)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    cwd = home / "project"
    cwd.mkdir(parents=True)
    return cwd, home


def session_with(cwd: Path, home: Path, *prompts: str) -> str:
    """A session of `cwd` that ran `prompts`; its id, from the line its end printed."""
    done = run_rein(*FAUX, cwd=cwd, home=home, stdin="".join(f"{p}\n" for p in prompts))
    assert done.returncode == 0, done.stderr
    found = SAVED.search(done.stderr)
    assert found is not None, done.stderr
    assert found.group(2) == found.group(1)[:8]
    return found.group(1)


def test_continue_names_the_session_and_replays_its_last_turns(dirs: tuple[Path, Path]) -> None:
    cwd, home = dirs
    sid = session_with(cwd, home, "first", "second", "third", "fourth")
    done = run_rein(*FAUX, "-c", cwd=cwd, home=home, stdin="fifth\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(rf"\[session\] resumed {sid}: 8 messages, \d+ tokens of context, \d+ entries", out)
    assert "... 2 earlier messages" in out
    assert "> first" not in out and "You said: first" not in out
    for word in ("second", "third", "fourth"):
        assert f"> {word}\nYou said: {word}" in out
    assert out.index("You said: fourth") < out.index("> fifth") < out.index("You said: fifth")
    assert sid in done.stderr  # the same session again


def test_a_new_session_replays_nothing(dirs: tuple[Path, Path]) -> None:
    cwd, home = dirs
    done = run_rein(*FAUX, cwd=cwd, home=home, stdin="hello\n")
    assert "[session]" not in done.stdout and "earlier message" not in done.stdout


def test_resume_takes_an_id_its_start_or_a_file(dirs: tuple[Path, Path]) -> None:
    cwd, home = dirs
    sid = session_with(cwd, home, "remember the tortoise")
    file = next((home / ".rein" / "sessions").glob(f"*/*_{sid}.jsonl"))
    for given in (sid, sid[:8], str(file)):
        done = run_rein(*FAUX, "--resume", given, cwd=cwd, home=home, stdin="")
        assert done.returncode == 0, done.stderr
        assert f"[session] resumed {sid}: 2 messages" in done.stdout
        assert "> remember the tortoise" in done.stdout


def test_resume_of_an_unknown_or_ambiguous_id_is_one_line_and_exit_2(dirs: tuple[Path, Path]) -> None:
    cwd, home = dirs
    ids = [session_with(cwd, home, f"p{n}") for n in range(2)]
    done = run_rein(*FAUX, "--resume", "zzzz", cwd=cwd, home=home)
    assert done.returncode == 2
    assert (
        done.stderr == "rein: zzzz: no such file, and no session id starts so (`rein sessions` lists them)\n"
    )
    common = next(i for i in range(36) if ids[0][i] != ids[1][i])
    prefix = ids[0][:common]
    if prefix:  # two random ids share a start often enough (1 in 16): the message lists both
        done = run_rein(*FAUX, "--resume", prefix, cwd=cwd, home=home)
        assert done.returncode == 2 and done.stderr.count("\n") == 1
        assert "the start of 2 session ids" in done.stderr and all(i in done.stderr for i in ids)


def test_server_continue_takes_this_directorys_last_session_there(
    dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    cwd, home = dirs
    other = home / "other"
    other.mkdir()
    with running_server(tmp_path / "server") as url:
        refused = run_rein("--server", url, "-c", cwd=cwd, home=home)
        assert refused.returncode == 2
        assert refused.stderr == f"rein: no earlier session for {cwd} on {url}; run without -c to start one\n"
        first = run_rein("--server", url, cwd=cwd, home=home, stdin="here it is\n")
        assert first.returncode == 0, first.stderr
        said = re.search(
            rf"session saved on {re.escape(url)}: ([0-9a-f-]{{36}}); continue with", first.stderr
        )
        assert said is not None, first.stderr
        elsewhere = run_rein("--server", url, cwd=other, home=home, stdin="not this one\n")
        assert elsewhere.returncode == 0, elsewhere.stderr
        again = run_rein("--server", url, "-c", cwd=cwd, home=home, stdin="and more\n")
        assert again.returncode == 0, again.stderr
        assert f"[session] resumed {said.group(1)}: 2 messages" in again.stdout
        assert "> here it is" in again.stdout and "not this one" not in again.stdout
        both = run_rein("--server", url, "-c", "--session", said.group(1), cwd=cwd, home=home)
        assert (
            both.returncode == 2 and both.stderr == "rein: -c and --session both name a session: give one\n"
        )
