"""`rein check` on a call of any tool (an MCP tool, an extension's): `--tool NAME` with `--arg`/`--args`,
and `{"tool": ..., "args": {...}}` JSON lines, as a user runs them (real subprocesses, real files)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.helpers import run_rein

RULES = """
[[rule]]
name = "no-prod-writes"
reason = "The production database is read-only: write a migration."
tool = "mcp__pg__*"
field = "sql"
sql = ["write"]

[[rule]]
name = "no-main-base"
reason = "Pull requests go to a release branch first."
tool = "mcp__github__create_pull_request"
field = "options.base"
pattern = "^main$"

[[rule]]
name = "ask-to-flush"
reason = "Flushing the cache needs the user's yes."
tool = "mcp__redis__flushall"
verdict = "ask"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "home" / "project"
    (project / ".rein").mkdir(parents=True)
    (project / ".rein" / "steering.toml").write_text(RULES)
    return project


def check(project: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_rein("check", *args, cwd=project, home=project.parent, stdin=stdin)


@pytest.mark.slow
def test_an_mcp_write_is_blocked_with_the_rule_and_a_read_is_allowed(project: Path) -> None:
    done = check(project, "--tool", "mcp__pg__query", "--arg", "sql=DELETE FROM users WHERE id = 7")
    assert done.returncode == 1
    assert done.stdout.startswith("block [steering:no-prod-writes@user] The production database")
    done = check(project, "--tool", "mcp__pg__query", "--args", '{"sql": "SELECT count(*) FROM users"}')
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "allow", "")


@pytest.mark.slow
def test_a_dotted_arg_reaches_into_an_object_and_json_shows_the_args(project: Path) -> None:
    tool = ("--tool", "mcp__github__create_pull_request")
    done = check(project, "--json", *tool, "--arg", "options.base=main", "--arg", "title=x")
    assert done.returncode == 1
    out = json.loads(done.stdout)
    assert (out["decision"], out["rule"], out["source"]) == ("block", "no-main-base", "user")
    assert (out["tool"], out["args"], out["command"], out["path"]) == (
        "mcp__github__create_pull_request",
        {"options": {"base": "main"}, "title": "x"},
        None,
        None,
    )
    # --arg is applied over --args
    done = check(project, *tool, "--args", '{"options": {"base": "main"}}', "--arg", "options.base=release")
    assert (done.returncode, done.stdout.strip()) == (0, "allow")


def test_a_rule_that_asks_exits_1_with_ask(project: Path) -> None:
    done = check(project, "--tool", "mcp__redis__flushall")
    assert done.returncode == 1
    assert done.stdout.startswith("ask [steering:ask-to-flush@user] Flushing the cache")


@pytest.mark.slow
def test_a_tool_no_rule_names_is_allowed_and_bash_json_has_no_args(project: Path) -> None:
    assert check(project, "--tool", "mcp__slack__post", "--arg", "text=DELETE FROM users").returncode == 0
    out = json.loads(check(project, "--json", "--", "ls").stdout)
    assert out["tool"] == "bash" and out["args"] is None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("--tool", "mcp__pg__query", "--", "ls"), "takes its arguments as --arg key=value or --args JSON"),
        (("--tool", "mcp__pg__query", "--path", "a.py"), "gives its arguments as args, not a path"),
        (("--tool", "bash", "--arg", "x=1", "--", "ls"), "--arg and --args are for a tool other than bash"),
        (("--tool", "write", "--path", "a", "--args", "{}"), "--arg and --args are for a tool other than"),
        (("--tool", "mcp__pg__query", "--args", "[1]"), "--args must be a JSON object"),
        (("--tool", "mcp__pg__query", "--args", "{"), "--args is not valid JSON"),
        (("--tool", "mcp__pg__query", "--arg", "sql"), "--arg takes key=value, not 'sql'"),
        (("--tool", "mcp pg", "--arg", "a=b"), "unknown tool 'mcp pg'"),
        (("--jsonl", "--arg", "a=b"), "--jsonl reads every call from stdin; drop --arg"),
        (("--jsonl", "--args", "{}"), "--jsonl reads every call from stdin; drop --args"),
    ],
)
def test_options_that_do_not_fit_are_a_usage_error(
    project: Path, args: tuple[str, ...], problem: str
) -> None:
    done = check(project, *args, stdin="")
    assert (done.returncode, done.stdout) == (2, "")
    assert problem in done.stderr, done.stderr


def test_jsonl_lines_of_any_tool_get_verdicts_in_order(project: Path) -> None:
    lines = [
        {"tool": "mcp__pg__query", "args": {"sql": "DROP TABLE users"}},
        {"tool": "mcp__pg__query", "args": {"sql": "SELECT 1"}},
        {"tool": "mcp__redis__flushall"},
        {"tool": "mcp__pg__query", "args": "DELETE FROM users"},
        {"tool": "mcp__pg__query", "command": "psql -c 'DELETE FROM users'"},
        {"tool": "read", "path": "a.py", "args": {}},
        {"command": "ls"},
    ]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    done = check(project, "--jsonl", stdin=stdin)
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["decision"] for o in out] == ["block", "allow", "ask", "block", "block", "block", "allow"]
    assert out[0]["rule"] == "no-prod-writes" and out[0]["args"] == {"sql": "DROP TABLE users"}
    assert out[2]["rule"] == "ask-to-flush"
    assert [o["line"] for o in out if "error" in o] == [4, 5, 6]
    assert out[3]["error"] == "'args' must be an object, not a string"
    assert out[4]["error"].startswith("unknown tool 'mcp__pg__query' (one of bash, write, edit, read) for a")
    assert out[5]["error"].startswith("a read call takes no args")
    assert done.returncode == 1
