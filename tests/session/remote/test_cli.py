"""`rein --server URL` as users run it, against `rein serve --provider faux`."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from tests.cli.helpers import run_rein
from tests.server.helpers import running_server

pytestmark = pytest.mark.slow


def _history(url: str, session_id: str) -> dict[str, object]:
    with urllib.request.urlopen(f"{url}/api/session/{session_id}/history", timeout=10) as answer:
        body = json.loads(answer.read())
    assert isinstance(body, dict)
    return body


def test_print_mode_runs_on_the_server_and_continues_by_session_id(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    with running_server(tmp_path / "server") as url:
        done = run_rein("-p", "--server", url, "hello there", cwd=work, home=home)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "You said: hello there"
        events = run_rein("--mode", "json", "-p", "--server", url, "first", cwd=work, home=home)
        assert events.returncode == 0, events.stderr
        header = json.loads(events.stdout.splitlines()[0])
        assert header["file"] is None and header["provider"] == "server"
        again = run_rein("-p", "--server", url, "--session", header["id"], "second", cwd=work, home=home)
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip() == "You said: second"
        history = _history(url, header["id"])
    entries = history["entries"]
    assert isinstance(entries, list)
    texts = [e["message"]["content"][0]["text"] for e in entries if e["type"] == "message"]
    assert texts == ["first", "You said: first", "second", "You said: second"]
    assert not any((home / ".rein" / "sessions").glob("**/*.jsonl"))  # nothing written locally


def test_the_server_url_may_come_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_server(tmp_path / "server") as url:
        monkeypatch.setenv("REIN_SERVER_URL", url)
        done = run_rein("-p", "hi", cwd=tmp_path, home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "You said: hi"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--provider", "faux"), "rein: --provider cannot be used with --server"),
        (("--base-url", "http://x"), "rein: --base-url cannot be used with --server"),
    ],
)
def test_local_model_options_are_refused_with_a_server(
    args: tuple[str, ...], said: str, tmp_path: Path
) -> None:
    done = run_rein("-p", "--server", "http://127.0.0.1:9", *args, "hi", cwd=tmp_path, home=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(said) and done.stderr.count("\n") == 1


def test_an_unknown_session_id_is_a_one_line_error(tmp_path: Path) -> None:
    with running_server(tmp_path / "server") as url:
        done = run_rein("-p", "--server", url, "--session", "nope", "hi", cwd=tmp_path, home=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("rein: server (history_reconcile): no session 'nope' on the server")
    assert done.stderr.count("\n") == 1


def test_session_without_server_is_refused(tmp_path: Path) -> None:
    done = run_rein("-p", "--session", "abc", "hi", cwd=tmp_path, home=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "rein: --session needs --server URL (or REIN_SERVER_URL)\n"
