"""`rein explain --tool NAME --arg key=value` as a user runs it: a call of an MCP or extension tool, the
rules that name the tool, and the one that decided (issue 37)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rein.cli._explain_tool import tool_call
from rein.steering import ToolCall
from tests.cli.helpers import run_rein

RULES = """
[[rule]]
name = "no-prod-writes"
reason = "The production database is read-only: query it, and write a migration for changes."
tool = "mcp__postgres__*"
field = "sql"
sql = ["write"]

[[rule]]
name = "main-only-by-pr"
reason = "Push to a branch and open a pull request."
tool = "mcp__github__push_files"
field = "options.branch"
pattern = "^main$"
"""


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    cwd = home / "project"
    (cwd / ".rein").mkdir(parents=True)
    (cwd / ".rein" / "steering.toml").write_text(RULES)
    return cwd, home


def test_a_write_through_the_postgres_server_is_shown_blocked_by_its_rule(project: tuple[Path, Path]) -> None:
    cwd, home = project
    done = run_rein(
        "explain", "--tool", "mcp__postgres__query", "--arg", "sql=DELETE FROM users", cwd=cwd, home=home
    )
    assert done.returncode == 1, done.stderr
    out = " ".join(done.stdout.split())
    assert "mcp__postgres__query" in out and "no-prod-writes@user" in out and "(decided)" in out
    assert "block [steering:no-prod-writes@user] The production database is read-only" in out
    assert "main-only-by-pr" not in out  # a rule on another tool is not listed


def test_json_lists_the_rules_on_the_tool_and_a_read_is_allowed(project: tuple[Path, Path]) -> None:
    cwd, home = project
    args = '{"sql": "SELECT * FROM users"}'
    done = run_rein("explain", "--json", "--tool", "mcp__postgres__query", "--args", args, cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["decision"] == "allow" and shown["args"] == {"sql": "SELECT * FROM users"}
    assert [(r["name"], r["field"], r["matches"], r["decided"]) for r in shown["rules"]] == [
        ("no-prod-writes", "sql", "sql write", False)
    ]
    assert shown["rules"][0]["origin"] == f"{cwd / '.rein' / 'steering.toml'}:2"


@pytest.mark.slow
def test_a_dotted_arg_nests_and_decides(project: tuple[Path, Path]) -> None:
    cwd, home = project
    pushed = run_rein(
        "explain",
        "--json",
        "--tool",
        "mcp__github__push_files",
        "--arg",
        "options.branch=main",
        cwd=cwd,
        home=home,
    )
    assert pushed.returncode == 1, pushed.stderr
    shown = json.loads(pushed.stdout)
    assert shown["args"] == {"options": {"branch": "main"}} and shown["rule"] == "main-only-by-pr"
    other = run_rein(
        "explain", "--tool", "mcp__github__push_files", "--arg", "options.branch=dev", cwd=cwd, home=home
    )
    assert other.returncode == 0 and "allow" in other.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--arg", "sql=x", "--", "ls"], "--arg and --args go with --tool"),
        (["--tool", "mcp__pg__q", "--arg", "sql"], "--arg takes key=value"),
        (["--tool", "mcp__pg__q", "--args", "[1]"], "--args must be a JSON object"),
        (["--tool", "mcp__pg__q", "--args", "{"], "--args is not valid JSON"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_a_usage_error(project: tuple[Path, Path], argv: list[str], message: str) -> None:
    cwd, home = project
    done = run_rein("explain", *argv, cwd=cwd, home=home)
    assert done.returncode == 2 and message in " ".join(done.stderr.split()), done.stderr


def test_a_broken_config_is_a_usage_error(project: tuple[Path, Path]) -> None:
    cwd, home = project
    (cwd / ".rein" / "steering.toml").write_text('[[rule]]\nname = "x"\nreason = "r"\ntool = "mcp__["\n')
    done = run_rein("explain", "--tool", "mcp__pg__q", cwd=cwd, home=home)
    assert done.returncode == 2 and "steering.toml:1" in done.stderr and "tool must be one of" in done.stderr


def test_a_command_argument_of_another_tool_is_data_and_a_file_tools_path_is_read() -> None:
    mcp = tool_call("mcp__shell__run", ["command=ls", "cwd=/tmp"], None)
    assert mcp == ToolCall(tool="mcp__shell__run", args={"command": "ls", "cwd": "/tmp"})
    write = tool_call("write", ["path=a.py", "content=x = 1"], None)
    assert (write.tool, write.path, write.content, write.command) == ("write", "a.py", "x = 1", "")
