"""Conventions of the timebox's homes, as tests: public doors, a pure core, a light hook path.

rein.timebox            the engine (pure)
rein.builtins.timebox   rein's own session: the extension and its timer
rein.hooks (_claude_timebox*, _timebox_journal, _claude_transcript)   Claude Code
rein.machine            the clock and the on-stop runner both hosts use
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import rein.builtins.timebox
import rein.timebox

CORE = Path(rein.timebox.__file__).parent
PURE_IMPORTS = {"__future__", "collections.abc", "dataclasses", "decimal", "fractions", "re", "typing"}


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_the_core_imports_no_io_no_clock_and_no_host(path: Path) -> None:
    foreign = {name for name in imports(path) if not name.startswith("rein.timebox.")} - PURE_IMPORTS
    assert foreign == set(), f"{path.name} imports {foreign}"


def test_the_core_door_exports_what_it_declares() -> None:
    for name in rein.timebox.__all__:
        assert hasattr(rein.timebox, name), name
    public = {name for name in dir(rein.timebox) if not name.startswith("_")}
    assert public == set(rein.timebox.__all__)


def test_the_extension_door_exports_what_it_declares() -> None:
    door = rein.builtins.timebox
    for name in door.__all__:
        assert getattr(door, name) is not None, name
    public = {name for name in dir(door) if not name.startswith("_")}
    assert public == set(door.__all__)


def test_the_claude_hook_module_loads_no_session_agent_extension_api_or_sdk() -> None:
    """What `rein hook claude` imports for every tool call stays light: the timebox's hook side lives
    in `rein.hooks` and needs only the engine (and that only for a session with a timebox)."""
    code = (
        "import sys, rein.hooks.claude; "
        "heavy = ('asyncio', 'rein.builtins', 'rein.session', 'rein.agent', 'rein.extensions', "
        "'rein.ai', 'rein.tui', 'rein.cli', 'rein.timebox', 'openai', 'anthropic', 'prompt_toolkit', "
        "'typer', 'rich'); "
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert (done.stdout.strip(), done.stderr) == ("[]", "")


def test_a_hook_of_a_session_without_a_timebox_loads_neither_the_core_nor_asyncio(tmp_path: Path) -> None:
    code = (
        "import sys, json; from rein.cli import main; "
        "main(['hook', 'claude', 'user-prompt-submit']); "
        "print(sorted(m for m in sys.modules if m == 'asyncio' or m == 'rein.timebox' "
        "or m.startswith(('rein.extensions', 'rein.agent'))), file=sys.stderr)"
    )
    payload = '{"session_id": "s", "cwd": "/", "hook_event_name": "UserPromptSubmit", "prompt": "hi"}'
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=payload,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "REIN_HOOK_DAEMON": "off"},  # in-process
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.stdout, done.stderr.strip()) == ("", "[]")
