"""`rein` itself as a user runs it: print mode, JSON mode, interactive on a pipe, the demo."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rein.ai._registry import _PROVIDERS
from rein.ai.providers.local_files import local_available
from rein.cli import _provider, agent, demo
from tests.cli.helpers import run_rein


def rein(*args: str, home: Path, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return run_rein(*args, cwd=cwd, home=home, stdin=stdin)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    return project, home


@pytest.mark.slow
def test_print_mode_prints_the_reply_and_writes_a_session(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("--provider", "faux", "-p", "hello", "there", home=home, cwd=project)
    assert (done.returncode, done.stdout.strip()) == (0, "You said: hello there")
    sessions = list((home / ".rein" / "sessions").rglob("*.jsonl"))
    assert len(sessions) == 1 and "You said: hello there" in sessions[0].read_text()


@pytest.mark.slow
def test_continue_resumes_the_last_session(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    rein("--provider", "faux", "-p", "one", home=home, cwd=project)
    rein("--provider", "faux", "-c", "-p", "two", home=home, cwd=project)
    sessions = list((home / ".rein" / "sessions").rglob("*.jsonl"))
    assert len(sessions) == 1
    text = sessions[0].read_text()
    assert "You said: one" in text and "You said: two" in text
    resumed = rein("--provider", "faux", "--resume", str(sessions[0]), "-p", "three", home=home, cwd=project)
    assert resumed.returncode == 0 and "You said: three" in sessions[0].read_text()


@pytest.mark.slow
def test_json_mode_prints_one_event_per_line(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("--provider", "faux", "--mode", "json", "-p", "hi", home=home, cwd=project)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[:2] == ["session", "agent_start"] and types[-1] == "agent_end"
    assert "message_update" in types and types.count("turn_start") == 1
    text = "".join(e["delta"]["text"] for e in events if e["type"] == "message_update")
    assert text == "You said: hi"


@pytest.mark.slow
def test_interactive_reads_prompts_and_commands_from_a_pipe(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("--provider", "faux", home=home, cwd=project, stdin="hello\n/nope\n/quit\n")
    assert done.returncode == 0
    assert "You said: hello" in done.stdout and "unknown command /nope" in done.stdout


def test_no_key_and_no_local_model_is_one_clear_line(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project, home = dirs
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(_provider, "local_available", lambda: False)
    assert agent.run(["--cwd", str(project), "-p", "hi"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "ANTHROPIC_API_KEY" in err and "OPENAI_API_KEY" in err and "make demo" in err


def test_without_a_key_the_local_model_is_the_default() -> None:
    assert _provider.choose_provider(None, {}) == ("local" if local_available() else "")
    assert _provider.choose_provider("faux", {}) == "faux"
    assert _provider.choose_provider(None, {"provider": "openai"}) == "openai"


@pytest.mark.local
@pytest.mark.slow
def test_with_no_key_rein_answers_on_the_local_model(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("-p", "Say hello.", home=home, cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert done.stderr.startswith("rein: no API key is set, so the embedded local model answers (smollm2")
    (session,) = (home / ".rein" / "sessions").rglob("*.jsonl")
    replies = [json.loads(line) for line in session.read_text().splitlines()[1:]]
    assistant = [r["message"] for r in replies if r.get("message", {}).get("role") == "assistant"]
    assert assistant and assistant[-1]["provider"] == "local" and assistant[-1]["model"] == "smollm2"


@pytest.mark.slow
def test_a_missing_gguf_file_is_one_clear_error(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("--provider", "local", "--model", "nope.gguf", "-p", "hi", home=home, cwd=project)
    assert done.returncode == 1
    assert "nope.gguf: no such GGUF file" in done.stdout + done.stderr


@pytest.mark.slow
def test_scripted_demo_shows_the_cut_the_retry_and_the_block(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("demo", "--scripted", home=home, cwd=project)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "stream rule fired: no-console-log" in out
    assert "log.info(" in out
    assert "[steering:no-force-push@defaults]" in out
    assert out.index("stream rule fired") < out.index("log.info(")
    assert "rein check: may the agent run this?" in out and "rein explain" in out
    flat = " ".join(out.split())  # the console wraps long reasons
    assert "[steering:no-branch-force-delete@defaults]" in flat
    assert "An override comment does not lift this rule: only the user's configuration can." in flat


@pytest.mark.slow
def test_demo_takes_only_scripted(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("demo", "--fast", home=home, cwd=project)
    assert done.returncode == 2
    assert done.stderr == "rein demo: no such option: --fast (see 'rein demo --help')\n"


def test_a_local_provider_that_cannot_load_is_one_clear_line(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project, home = dirs
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setitem(_PROVIDERS, "local", "rein.ai.providers.not_installed:LocalProvider")
    assert agent.run(["--cwd", str(project), "--provider", "local", "-p", "hi"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("rein: the local model cannot load (No module named") and "make demo" in err


def test_demo_without_the_local_model_says_so_and_runs_the_scripted_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # the demo sets it when unset; keep it from leaking
    monkeypatch.setattr(demo, "local_available", lambda: False)
    monkeypatch.setattr(demo, "steering_demo", lambda console: None)
    assert demo.run([]) == 0
    out = capsys.readouterr().out
    assert "The embedded local model is not installed" in out and "showing the scripted demo" in out
    assert "stream rule fired: no-console-log" in out and "[steering:no-force-push@defaults]" in out
