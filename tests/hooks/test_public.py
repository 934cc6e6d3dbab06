"""The `rein.hooks` door: every public name resolves, and opening the door loads nothing heavy."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import rein.hooks


def test_every_public_name_resolves() -> None:
    for name in rein.hooks.__all__:
        assert getattr(rein.hooks, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = rein.hooks.nothing


def test_every_host_module_defines_its_events() -> None:
    for host, module in rein.hooks.HOSTS.items():
        events = importlib.import_module(module).EVENTS
        assert events, host
        assert all(name == name.lower() and " " not in name for name in events)


def test_importing_the_door_does_not_load_the_engine() -> None:
    code = "import sys, rein.hooks; print(sorted(m for m in sys.modules if m.startswith('rein.')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['rein.hooks']"


@pytest.mark.parametrize(
    ("host", "event", "fields"),
    [
        ("claude", "post-tool-use", {"hook_event_name": "PostToolUse", "tool_name": "Bash"}),
        ("claude", "post-tool-use-failure", {"hook_event_name": "PostToolUseFailure", "tool_name": "Bash"}),
        ("codex", "post-tool-use", {"hook_event_name": "PostToolUse", "tool_name": "Bash"}),
        ("gemini", "after-tool", {"hook_event_name": "AfterTool", "tool_name": "run_shell_command"}),
    ],
)
def test_a_missing_tool_response_reaches_observers_as_no_output(
    host: str, event: str, fields: dict[str, object]
) -> None:
    parse = importlib.import_module(rein.hooks.HOSTS[host]).EVENTS[event].parse
    request = parse({"session_id": "s", "cwd": "/work", "tool_input": {"command": "pytest"}, **fields})
    assert [result.output for result in request.results] == [""]  # not the JSON text 'null'
