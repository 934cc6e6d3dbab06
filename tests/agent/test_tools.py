"""The built-in tools on real files and real processes in tmp dirs."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.agent._tool import Tool, ToolContext, ToolError, ToolOutput
from rein.agent.tools import Bash, Edit, Find, Grep, Ls, Read, Write, builtin_tools
from rein.agent.tools.bash import _Tail, truncate
from rein.ai import AbortSignal


def run(tool: Tool, args: Mapping[str, object], cwd: Path, signal: AbortSignal | None = None) -> ToolOutput:
    async def go() -> ToolOutput:
        context = ToolContext(cwd=str(cwd), abort=signal or AbortSignal())
        return await tool.execute(args, context)

    return asyncio.run(go())


def test_builtin_tools_have_unique_names_and_schemas() -> None:
    tools = builtin_tools()
    assert [t.name for t in tools] == ["read", "write", "edit", "bash", "ls", "grep", "find"]
    assert all(t.parameters["type"] == "object" for t in tools)
    assert [t.name for t in tools if t.execution_mode == "sequential"] == ["bash"]


def test_read_numbers_ranges_and_truncation_notice(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"line {i}\n" for i in range(1, 3001)))
    whole = run(Read(), {"path": "f.txt"}, tmp_path)
    assert whole.text.startswith("line 1\n")
    assert "[showing lines 1-2000 of 3000; use offset=2001 to continue]" in whole.text
    part = run(Read(), {"path": "f.txt", "offset": 10, "limit": 2}, tmp_path)
    assert part.text.startswith("line 10\nline 11\n\n[showing lines 10-11 of 3000")
    tail = run(Read(), {"path": "f.txt", "offset": 2999}, tmp_path)
    assert tail.text == "line 2999\nline 3000"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"path": "missing.txt"}, "no such file"),
        ({}, "missing required argument 'path'"),
        ({"path": "f.txt", "offset": 0}, "at least 1"),
        ({"path": "f.txt", "offset": 99}, "past the end"),
        ({"path": "bin"}, "binary file"),
        ({"path": "."}, "is a directory"),
    ],
)
def test_read_errors_are_clear(tmp_path: Path, args: Mapping[str, object], message: str) -> None:
    (tmp_path / "f.txt").write_text("a\n")
    (tmp_path / "bin").write_bytes(b"\x00\x01\x02")
    with pytest.raises(ToolError, match=message):
        run(Read(), args, tmp_path)


def test_write_creates_parents_and_reports_the_path(tmp_path: Path) -> None:
    out = run(Write(), {"path": "a/b/c.py", "content": "x = 1\n"}, tmp_path)
    assert (tmp_path / "a/b/c.py").read_text() == "x = 1\n"
    assert out.text == f"Wrote 6 bytes to {tmp_path}/a/b/c.py"
    assert Write().mutates({"path": "a/../x"}, "/p") == "/p/x"


def test_edit_replaces_exactly_once_or_explains(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("a = 1\nb = 1\nb = 1\n")
    out = run(Edit(), {"path": "m.py", "old_string": "a = 1", "new_string": "a = 2"}, tmp_path)
    assert path.read_text() == "a = 2\nb = 1\nb = 1\n" and "line 1" in out.text
    with pytest.raises(ToolError, match="occurs 2 times"):
        run(Edit(), {"path": "m.py", "old_string": "b = 1", "new_string": "b = 2"}, tmp_path)
    with pytest.raises(ToolError, match="not found"):
        run(Edit(), {"path": "m.py", "old_string": "zzz", "new_string": "y"}, tmp_path)
    with pytest.raises(ToolError, match="the same"):
        run(Edit(), {"path": "m.py", "old_string": "a", "new_string": "a"}, tmp_path)
    run(Edit(), {"path": "m.py", "old_string": "b = 1", "new_string": "b = 3", "replace_all": True}, tmp_path)
    assert path.read_text() == "a = 2\nb = 3\nb = 3\n"


def test_bash_runs_in_cwd_and_reports_exit_codes(tmp_path: Path) -> None:
    ok = run(Bash(), {"command": "pwd; echo err >&2"}, tmp_path)
    assert ok.text == f"{tmp_path}\nerr\n" and not ok.is_error and ok.details["exit_code"] == 0
    bad = run(Bash(), {"command": "exit 3"}, tmp_path)
    assert bad.is_error and bad.text.endswith("[exit code 3]")


def running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting for its reaper does not)."""
    done = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True, check=False)
    return done.returncode == 0 and not done.stdout.strip().startswith("Z")


def test_bash_timeout_kills_the_process_group(tmp_path: Path) -> None:
    child = tmp_path / "child.pid"
    started = time.monotonic()
    out = run(Bash(), {"command": f"sleep 300 & echo $! > {child}; sleep 30", "timeout": 1}, tmp_path)
    assert out.is_error and "timed out after 1 s" in out.text
    assert time.monotonic() - started < 20  # a failure bound, far below the 30 s the command asks for
    pid = int(child.read_text())
    deadline = time.monotonic() + 60  # a failure bound: a killed process is gone within moments
    while running(pid):
        assert time.monotonic() < deadline, "the background child outlived the kill"
        time.sleep(0.01)


def test_bash_returns_when_the_shell_exits_and_leaves_a_background_server_running(tmp_path: Path) -> None:
    """`server &` holds the output open for as long as it runs: the call returns when the shell exits
    (start it, curl it, kill it), and the server goes on."""
    child = tmp_path / "child.pid"
    server = "python3 -c 'import time; print(\"serving\", flush=True); time.sleep(300)'"
    command = f"{server} & echo $! > {child}; sleep 0.2; echo started"
    started = time.monotonic()
    out = run(Bash(), {"command": command, "timeout": 60}, tmp_path)
    assert not out.is_error and "started" in out.text and out.details["exit_code"] == 0
    assert time.monotonic() - started < 20  # a failure bound: it did not wait for the server
    pid = int(child.read_text())
    try:
        assert running(pid)
    finally:
        subprocess.run(["kill", str(pid)], check=False)


def test_bash_abort_stops_at_once(tmp_path: Path) -> None:
    async def go() -> tuple[ToolOutput, float]:
        signal = AbortSignal()
        printed = asyncio.Event()

        def on_update(output: ToolOutput) -> None:
            if "start" in output.text:
                printed.set()

        context = ToolContext(cwd=str(tmp_path), abort=signal, on_update=on_update)
        task = asyncio.ensure_future(Bash().execute({"command": "echo start; sleep 30"}, context))
        await printed.wait()  # the command runs: the abort finds it mid-sleep
        started = time.monotonic()
        signal.abort()
        out = await task
        return out, time.monotonic() - started

    out, took = asyncio.run(go())
    assert out.is_error and "aborted" in out.text and "start" in out.text
    assert took < 15  # a failure bound, far below the 30 s the command asks for (about 0.01 s alone)


def test_bash_streams_progress_and_truncates(tmp_path: Path) -> None:
    updates: list[str] = []

    async def go() -> ToolOutput:
        context = ToolContext(
            cwd=str(tmp_path), abort=AbortSignal(), on_update=lambda o: updates.append(o.text)
        )
        return await Bash().execute({"command": "seq 1 20000"}, context)

    out = asyncio.run(go())
    assert updates and out.text.startswith("[... ") and out.text.rstrip().endswith("20000")
    assert truncate("abc", 10) == "abc"


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet="ab\u00e9\u20ac\U0001f600\n", max_size=300),
    cuts=st.lists(st.integers(min_value=0, max_value=1200), max_size=12),
    limit=st.integers(min_value=1, max_value=40),
)
def test_bash_output_tail_keeps_what_truncating_the_whole_output_keeps(
    text: str, cuts: list[int], limit: int
) -> None:
    data = text.encode()
    tail = _Tail(limit)
    start = 0
    for cut in sorted(c % (len(data) + 1) for c in cuts):  # reads may split a character's bytes
        tail.feed(data[start:cut])
        start = cut
    tail.feed(data[start:], final=True)
    assert tail.text() == truncate(text, limit)
    assert len(tail.kept) <= 2 * limit + 4, "only the tail is held"


def test_ls_grep_find(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def main():\n    return 1\n")
    (tmp_path / "src" / "util.py").write_text("MAIN = 2\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.py").write_text("def main(): pass\n")
    assert run(Ls(), {}, tmp_path).text == ".git/\nsrc/"
    assert run(Grep(), {"pattern": "def main"}, tmp_path).text == "src/app.py:1:def main():"
    assert (
        run(Grep(), {"pattern": "main", "ignore_case": True, "glob": "util*"}, tmp_path).text
        == "src/util.py:1:MAIN = 2"
    )
    assert run(Grep(), {"pattern": "nothing"}, tmp_path).text == "(no matches)"
    assert run(Find(), {"pattern": "*.py"}, tmp_path).text == "src/app.py\nsrc/util.py"
    limited = run(Find(), {"pattern": "*.py", "limit": 1}, tmp_path).text
    assert limited.startswith("src/app.py\n[1 more files not shown")
    with pytest.raises(ToolError, match="invalid regular expression"):
        run(Grep(), {"pattern": "("}, tmp_path)
