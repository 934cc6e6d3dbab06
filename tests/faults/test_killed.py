"""A rein killed (SIGKILL) while a reply streams: everything acknowledged before is in the file, whole;
the file loads without a warning and the session continues. A line cut by a kill mid-write loads with
one warning and keeps every whole entry."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path

import pytest

from rein.ai import TextContent
from rein.ai.testing import Hang, Reply, SseServer, chat_reply
from rein.session import MessageEntry, Session
from tests.faults.helpers import env, rein, session_files

pytestmark = pytest.mark.slow


async def kill_mid_reply(cwd: Path, home: Path) -> int:
    """Run `rein -p` against a server whose reply starts and never ends; SIGKILL it once the reply
    is streaming. Returns its exit status."""
    async with SseServer() as server:
        events = chat_reply(TextContent(text="the first words of a reply that never ends"))
        server.push(Reply(steps=[*events[:4], Hang()]))
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "rein.cli",
            "-p",
            "hello",
            "--provider",
            "openai",
            "--model",
            "gpt-test",
            "--base-url",
            server.url + "/v1",
            cwd=cwd,
            env=env(home, OPENAI_API_KEY="test-key"),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            await server.wait_requests(1, timeout=60)
        finally:
            process.send_signal(signal.SIGKILL)
            await process.wait()
        return process.returncode if process.returncode is not None else 0


def messages(path: Path) -> list[tuple[str, str]]:
    out = []
    for entry in Session.open(path).tree.active_path():
        assert isinstance(entry, MessageEntry)
        content = entry.message["content"]
        blocks = content if isinstance(content, list) else [{"text": content}]
        text = "".join(str(block.get("text", "")) for block in blocks if isinstance(block, dict))
        out.append((str(entry.message["role"]), text))
    return out


def test_a_kill_mid_reply_keeps_the_prompt_and_the_session_continues(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    cwd.mkdir()
    status = asyncio.run(kill_mid_reply(cwd, home))
    assert status == -signal.SIGKILL
    [path] = session_files(home)
    data = path.read_bytes()
    assert data.endswith(b"\n") and all(json.loads(line) for line in data.splitlines())
    session = Session.open(path)
    assert session.warnings == ()
    assert messages(path) == [("user", "hello")]
    result = rein("-c", "-p", "again", "--provider", "faux", cwd=cwd, home=home)
    assert result.returncode == 0, result.stderr
    assert messages(path) == [("user", "hello"), ("user", "again"), ("assistant", "You said: again")]


def test_a_line_cut_by_a_kill_mid_write_loads_with_a_warning(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    cwd.mkdir()
    first = rein("-p", "first", "--provider", "faux", cwd=cwd, home=home)
    assert first.returncode == 0, first.stderr
    [path] = session_files(home)
    whole = path.read_bytes()
    path.write_bytes(whole[:-25])  # the reply's line, cut short as a kill during its write leaves it
    result = rein("-c", "-p", "again", "--provider", "faux", cwd=cwd, home=home)
    assert result.returncode == 0, result.stderr
    assert "the last line is cut short" in result.stdout + result.stderr
    assert messages(path) == [("user", "first"), ("user", "again"), ("assistant", "You said: again")]
    assert [warning.kind for warning in Session.open(path).warnings] == ["corrupt"]  # the cut line, kept
