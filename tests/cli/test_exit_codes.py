"""One exit-code table for every command (docs/cli.md), each row run as a user runs it:

0  success or allowed
1  blocked (check, explain), or the run failed (model error, aborted, not saved, stdout closed)
2  usage or input error (bad option, settings, config or session file)
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rein.ai.testing import Reply, SseServer
from tests.cli.helpers import rein_env, run_rein

ALLOWED = '{"command": "ls"}\n'
BLOCKED = '{"command": "git push -f"}\n'
MALFORMED = '{"cmd": "git push -f"}\n'


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    return project, home


@pytest.mark.parametrize(
    ("args", "stdin", "code"),
    [
        (("check", "--", "ls"), "", 0),
        (("check", "--jsonl"), ALLOWED + ALLOWED, 0),
        (("explain", "--", "ls"), "", 0),
        (("explain", "--json", "--", "ls"), "", 0),
        (("rules", "list"), "", 0),
        (("hook", "install", "claude", "--dry-run"), "", 0),
        (("--provider", "faux", "-p", "hi"), "", 0),
        (("check", "--", "git push -f"), "", 1),
        (("check", "--json", "--", "git push -f"), "", 1),
        (("check", "--jsonl"), ALLOWED + BLOCKED, 1),
        (("check", "--jsonl"), ALLOWED + MALFORMED, 1),
        (("explain", "--", "git push -f"), "", 1),
        (("explain", "--json", "--", "git push -f"), "", 1),
        (("--bogus",), "", 2),
        (("--mode", "yaml", "-p", "hi"), "", 2),
        (("--approve", "sometimes", "-p", "hi"), "", 2),
        (("check", "--bogus"), "", 2),
        (("check", "--", ""), "", 2),
        (("check", "--path", "a.py", "--", "ls"), "", 2),
        (("check", "--tool", "write", "--path", "a.py", "--", "ls"), "", 2),
        (("check", "--tool", "read", "--path", "a.py", "--content", "x"), "", 2),
        (("check", "--jsonl", "--", "ls"), "", 2),
        (("check", "--jsonl", "--tool", "write"), "", 2),
        (("explain", "--bogus"), "", 2),
        (("explain",), "", 2),
        (("rules", "--bogus"), "", 2),
        (("rules", "test", "--chunk", "0"), "", 2),
        (("hook", "--bogus"), "", 2),
        (("hook", "install", "claude", "--global"), "", 2),
        (("demo", "--bogus"), "", 2),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else None,
)
@pytest.mark.slow
def test_each_row_of_the_table(args: tuple[str, ...], stdin: str, code: int, dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = run_rein(*args, cwd=project, home=home, stdin=stdin)
    assert done.returncode == code, done.stderr
    if code == 2:  # told in one line, naming the command
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("rein"), done.stderr
        assert "Traceback" not in done.stderr


def test_a_malformed_jsonl_line_blocks_but_a_bad_steering_config_is_an_input_error(
    dirs: tuple[Path, Path],
) -> None:
    project, home = dirs
    broken = project / "broken"
    (broken / ".rein").mkdir(parents=True)
    (broken / ".rein" / "steering.toml").write_text("[[rule]]\nname = 'x'\n")
    lines = MALFORMED + json.dumps({"command": "ls", "cwd": str(broken)}) + "\n" + ALLOWED
    done = run_rein("check", "--jsonl", cwd=project, home=home, stdin=lines)
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["decision"] for o in out] == ["block", "block", "allow"]
    assert "needs a reason" in out[1]["error"]
    assert done.returncode == 2


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            '{"cmd": "git push -f"}',
            "unknown key 'cmd' (known: tool, command, path, content, cwd, branch, args)",
        ),
        ('{"command": "ls", "tool": "nope"}', "unknown tool 'nope' (one of bash, write, edit, read)"),
        ('{"command": "ls", "extra": 1}', "unknown key 'extra'"),
        ("[1, 2]", "each line must be a JSON object, not an array"),
        ('"ls"', "each line must be a JSON object, not a string"),
        ("git push -f", "not JSON"),
        ("{}", "a bash call needs a command"),
        ('{"command": "  "}', "a bash call needs a command"),
        ('{"command": ["git", "push"]}', "'command' must be a string, not an array"),
        ('{"command": "ls", "cwd": 5}', "'cwd' must be a string, not a number"),
        ('{"command": "ls", "branch": true}', "'branch' must be a string, not a boolean"),
        ('{"tool": 1, "command": "ls"}', "'tool' must be a string, not a number"),
        ('{"tool": "", "command": "ls"}', "unknown tool ''"),
        ('{"command": "ls", "path": "a.py"}', "a bash call takes a command, not a path or content"),
        ('{"tool": "write"}', "a write call needs a path"),
        ('{"tool": "edit", "path": "a.py", "command": "ls"}', "an edit call takes a path, not a command"),
        ('{"tool": "read", "path": "a.py", "content": "x"}', "a read call takes no content"),
    ],
)
@pytest.mark.slow
def test_a_jsonl_line_of_the_wrong_shape_gets_an_error_verdict_that_blocks(
    line: str, problem: str, dirs: tuple[Path, Path]
) -> None:
    project, home = dirs
    done = run_rein("check", "--jsonl", cwd=project, home=home, stdin=f"{line}\n")
    (out,) = [json.loads(text) for text in done.stdout.splitlines()]
    assert out["decision"] == "block" and out["rule"] == "error" and out["line"] == 1
    assert out["error"].startswith(problem), out["error"]
    assert out["reason"].startswith(f"[steering:error@rein] line 1: {problem}")
    assert done.returncode == 1


def test_jsonl_lines_of_the_right_shape_still_pass(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    lines = [
        {"command": "ls", "cwd": str(project), "branch": "topic", "tool": "bash"},
        {"command": "ls", "path": None, "content": None},
        {"tool": "write", "path": "a.py", "content": "x = 1\n"},
        {"tool": "edit", "path": "a.py"},
        {"tool": "read", "path": "a.py"},
    ]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    done = run_rein("check", "--jsonl", cwd=project, home=home, stdin=stdin)
    assert [json.loads(text)["decision"] for text in done.stdout.splitlines()] == ["allow"] * 5
    assert done.returncode == 0


@pytest.mark.parametrize(
    ("settings", "problem"),
    [("[rein\n", "invalid TOML"), ('rein = "x"\n', "must be a [rein] table")],
)
@pytest.mark.slow
def test_the_agent_exits_2_on_a_bad_settings_file(
    settings: str, problem: str, dirs: tuple[Path, Path]
) -> None:
    project, home = dirs
    (project / ".rein").mkdir()
    (project / ".rein" / "settings.toml").write_text(settings)
    done = run_rein("--provider", "faux", "-p", "hi", cwd=project, home=home)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"rein: {project / '.rein' / 'settings.toml'}: ") and problem in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.slow
def test_the_agent_exits_2_on_a_session_file_it_cannot_read(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    missing = project / "gone.jsonl"
    done = run_rein("--provider", "faux", "--resume", str(missing), "-p", "hi", cwd=project, home=home)
    assert (done.returncode, done.stderr) == (2, f"rein: {missing}: No such file or directory\n")
    folder = run_rein("--provider", "faux", "--resume", str(project), "-p", "hi", cwd=project, home=home)
    assert (folder.returncode, folder.stderr) == (2, f"rein: {project}: Is a directory\n")
    notes = project / "notes.jsonl"
    notes.write_text("just text\n")
    other = run_rein("--provider", "faux", "--resume", str(notes), "-p", "hi", cwd=project, home=home)
    assert (
        other.returncode == 2 and other.stderr.startswith(f"rein: {notes}") and other.stderr.count("\n") == 1
    )


@pytest.mark.slow
def test_the_agent_exits_2_on_a_session_file_from_a_newer_rein(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    future = project / "future.jsonl"
    header = {"type": "session", "format": "rein", "version": 99, "id": "f", "cwd": str(project)}
    future.write_text(json.dumps(header | {"timestamp": "2026-01-01T00:00:00.000Z"}) + "\n")
    done = run_rein("--provider", "faux", "--resume", str(future), "-p", "hi", cwd=project, home=home)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"rein: {future}") and done.stderr.count("\n") == 1
    assert future.read_text().count("\n") == 1  # nothing was written to it


@pytest.mark.slow
def test_the_agent_exits_2_on_a_cwd_that_is_not_a_directory(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = run_rein("--provider", "faux", "--cwd", str(project / "nope"), "-p", "hi", cwd=project, home=home)
    assert (done.returncode, done.stderr) == (2, f"rein: --cwd {project / 'nope'}: not a directory\n")


@pytest.mark.slow
def test_continue_with_no_earlier_session_names_where_it_looked(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = run_rein("--provider", "faux", "-c", "-p", "hi", cwd=project, home=home)
    where = home / ".rein" / "sessions" / ("-" + str(project).replace("/", "-") + "--")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"rein: no earlier session for {project} in {where}; run rein without -c to start one\n"
    )
    assert not where.exists()  # and no new session was started
    assert run_rein("--provider", "faux", "-p", "one", cwd=project, home=home).returncode == 0
    again = run_rein("--provider", "faux", "-c", "-p", "two", cwd=project, home=home)
    assert again.returncode == 0 and len(list(where.glob("*.jsonl"))) == 1


@pytest.mark.slow
def test_json_mode_starts_with_the_session_event(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = run_rein("--provider", "faux", "--mode", "json", "-p", "hi", cwd=project, home=home)
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(line) for line in done.stdout.splitlines()[:2])
    (session,) = (home / ".rein" / "sessions").rglob("*.jsonl")
    assert first == {
        "type": "session",
        "id": json.loads(session.read_text().splitlines()[0])["id"],
        "file": str(session),
        "cwd": str(project),
        "model": "default",
        "provider": "faux",
    }
    assert session.name.endswith(f"_{first['id']}.jsonl") and second["type"] == "agent_start"
    resumed = run_rein("--provider", "faux", "--mode", "json", "-c", "-p", "again", cwd=project, home=home)
    assert json.loads(resumed.stdout.splitlines()[0])["id"] == first["id"]


async def _rein_against(reply: Reply, *args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    async with SseServer([reply]) as server:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "rein.cli",
            *("--provider", "openai", "--base-url", f"{server.url}/v1", "--model", "m", *args),
            cwd=cwd,
            env=rein_env(home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return subprocess.CompletedProcess(list(args), process.returncode, out.decode(), err.decode())


@pytest.mark.slow
def test_a_model_error_fails_the_run_with_1(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    refused = Reply(
        status=400, body={"error": {"message": "no such model: m", "type": "invalid_request_error"}}
    )
    done = asyncio.run(_rein_against(refused, "-p", "hi", cwd=project, home=home))
    assert done.returncode == 1, done.stderr
    assert "no such model: m" in done.stdout + done.stderr
