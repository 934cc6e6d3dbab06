"""`rein mcp list` as a user runs it (a real subprocess in a tmp home), and MCP servers in print mode."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import run_rein
from tests.mcp.conftest import DEMO, stdio_entry, write_mcp_json


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "project").mkdir()
    return tmp_path


@pytest.mark.slow
def test_list_shows_each_server_its_source_state_and_tools(home: Path) -> None:
    project = home / "project"
    write_mcp_json(project, {"demo": stdio_entry(), "ghost": {"command": "no-such-mcp-server-xyz"}})
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"slack": {"command": "slack-mcp"}}}))
    (project / ".rein").mkdir()
    (project / ".rein" / "settings.toml").write_text("[mcp.servers.slack]\nenabled = false\n")
    done = run_rein("mcp", "list", cwd=project, home=home)
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines() == [
        f"demo  (.mcp.json)  stdio: {sys.executable} {DEMO}",
        "  ok: 4 tools",
        "    mcp__demo__add  Add two numbers.",
        "    mcp__demo__fail  Always fails with the message.",
        "    mcp__demo__picture  A caption and a tiny PNG.",
        "    mcp__demo__crash  Ends the server's process at once.",
        "ghost  (.mcp.json)  stdio: no-such-mcp-server-xyz",
        "  failed: command not found: no-such-mcp-server-xyz",
        "slack  switched off (enabled = false)",
    ]


@pytest.mark.slow
def test_list_with_every_server_up_exits_zero_and_reaches_http_servers(home: Path, http_demo: str) -> None:
    project = home / "project"
    write_mcp_json(project, {"web": {"type": "http", "url": http_demo}})
    done = run_rein("mcp", "list", cwd=project, home=home)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.splitlines()[:3] == [
        f"web  (.mcp.json)  http: {http_demo}",
        "  ok: 4 tools",
        "    mcp__web__add  Add two numbers.",
    ]


def test_a_bad_file_is_one_line_naming_it_and_nothing_configured_exits_zero(home: Path) -> None:
    project = home / "project"
    (project / ".mcp.json").write_text("{not json")
    done = run_rein("mcp", "list", cwd=project, home=home)
    assert done.returncode == 0
    assert done.stderr.startswith(f"rein mcp: {project / '.mcp.json'}: not valid JSON (")
    assert done.stderr.count("\n") == 1
    assert done.stdout.startswith(f"no MCP servers configured for {project}")


@pytest.mark.slow
def test_print_mode_says_a_failed_server_on_stderr_and_answers(home: Path) -> None:
    project = home / "project"
    write_mcp_json(project, {"ghost": {"command": "no-such-mcp-server-xyz"}})
    done = run_rein("--provider", "faux", "-p", "hello", cwd=project, home=home)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "rein: mcp: MCP server ghost (.mcp.json) failed to start: command not found:"
        " no-such-mcp-server-xyz; the session goes on without its tools\n"
    )
    assert "hello" in done.stdout
