"""A session on the faux provider with the built-in extensions (the harness of tests/builtins), and
helpers to read a project's files and script tool calls."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from rein.ai import TextContent, ToolCall
from rein.ai.providers.faux import FauxReply
from tests.builtins.conftest import Harness, MakeHarness, harness, project

__all__ = ["bash", "done", "edit", "files_of", "git", "harness", "project", "reply", "started", "write"]


@pytest.fixture
def started(harness: MakeHarness) -> MakeHarness:
    """The builtins' harness, its session started (steering reads its rules at session start)."""

    def make(*args: object, **options: object) -> Harness:
        made = harness(*args, **options)
        asyncio.run(made.session.start())
        return made

    return make


def write(path: str, content: str, call: str = "w") -> ToolCall:
    return ToolCall(id=call, name="write", arguments={"path": path, "content": content})


def edit(path: str, old: str, new: str, call: str = "e") -> ToolCall:
    return ToolCall(id=call, name="edit", arguments={"path": path, "old_string": old, "new_string": new})


def bash(command: str, call: str = "b") -> ToolCall:
    return ToolCall(id=call, name="bash", arguments={"command": command})


def reply(*calls: ToolCall) -> FauxReply:
    return FauxReply(blocks=calls, stop_reason="tool_use")


def done(text: str = "Done.") -> list[TextContent]:
    return [TextContent(text=text)]


def files_of(root: Path) -> dict[str, bytes]:
    """Every file under `root` but `.git/`, by relative path, with its bytes."""
    out: dict[str, bytes] = {}
    for directory, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = Path(directory, name)
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout
