"""MCP tools through Codex's, Gemini CLI's and Cursor's hooks, one real process per call, each in its
host's payload shape: one rule on `mcp__pg__*` decides them all, observers see their results (issue 37).
Claude Code's are in test_claude_mcp.py."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from tests.hooks import test_codex, test_cursor, test_gemini
from tests.hooks.conftest import STEERING, Dirs, Imported, answer, run_hook
from tests.hooks.test_claude_mcp import MCP_RULES

ASK = """
[[rule]]
name = "ask-to-drop-cache"
reason = "Flushing the shared cache needs the user's yes."
tool = "mcp__redis__flushall"
verdict = "ask"
"""

DELETE = {"sql": "DELETE FROM users WHERE id = 7"}
SELECT = {"sql": "SELECT count(*) FROM users"}


def with_rules(dirs: Dirs) -> Dirs:
    (dirs.project / ".rein" / "steering.toml").write_text(STEERING + MCP_RULES + ASK)
    return dirs


def codex(dirs: Dirs, tool: str, tool_input: object, event: str = "PreToolUse") -> dict[str, object]:
    return test_codex.payload(dirs, event, tool_name=tool, tool_input=tool_input, tool_use_id="call_mcp")


def gemini(
    dirs: Dirs, server: str, tool: str, tool_input: object, event: str = "BeforeTool"
) -> dict[str, object]:
    """Gemini CLI 0.34+: `mcp_<server>_<tool>` with `mcp_context` naming both as configured."""
    context = {"server_name": server, "tool_name": tool, "command": "npx", "args": ["-y", f"{server}-mcp"]}
    return test_gemini.payload(
        dirs, event, tool_name=f"mcp_{server}_{tool}", tool_input=tool_input, mcp_context=context
    )


def cursor(
    dirs: Dirs, tool: str, tool_input: object, event: str = "beforeMCPExecution", **more: str
) -> dict[str, object]:
    """Cursor: the bare tool name, the arguments as a JSON string, the server by its url or command."""
    sent = tool_input if isinstance(tool_input, str) else json.dumps(tool_input)
    return test_cursor.payload(dirs, event, tool_name=tool, tool_input=sent, **more)


def cursor_servers(dirs: Dirs) -> Dirs:
    """The project's `.cursor/mcp.json` (a stdio server) and the user's (an HTTP one)."""
    project = {"mcpServers": {"pg": {"command": "npx", "args": ["-y", "@pg/mcp", "postgres://prod"]}}}
    user = {"mcpServers": {"github": {"url": "https://api.githubcopilot.com/mcp/"}}}
    for where, servers in ((dirs.project, project), (dirs.home, user)):
        (where / ".cursor").mkdir(exist_ok=True)
        (where / ".cursor" / "mcp.json").write_text(json.dumps(servers))
    return dirs


def pr_opened(dirs: Dirs, host: str, session: str) -> list[object]:
    """The arguments of each `pr-opened` entry the observer wrote to the host's session file."""
    lines = [json.loads(line) for line in dirs.session_file(host, session).read_text().splitlines()]
    return [line["data"]["args"] for line in lines if line["type"] == "pr-opened"]


PG_COMMAND = "npx -y @pg/mcp postgres://prod"
GITHUB_URL = "https://api.githubcopilot.com/mcp/"


@pytest.mark.slow
def test_codex_denies_a_write_through_the_postgres_server_and_passes_a_read(dirs: Dirs) -> None:
    with_rules(dirs)
    done = run_hook("codex", "pre-tool-use", codex(dirs, "mcp__pg__query", DELETE), home=dirs.home)
    assert test_codex.denial(done).startswith("[steering:no-prod-writes@user] The production database")
    done = run_hook("codex", "pre-tool-use", codex(dirs, "mcp__pg__query", SELECT), home=dirs.home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_codex_denies_an_mcp_rule_that_asks_because_codex_cannot_ask(dirs: Dirs) -> None:
    with_rules(dirs)
    done = run_hook("codex", "pre-tool-use", codex(dirs, "mcp__redis__flushall", {}), home=dirs.home)
    assert test_codex.denial(done).startswith("[steering:ask-to-drop-cache@user]")


@pytest.mark.slow
def test_codex_post_tool_use_of_an_mcp_tool_feeds_observers(dirs: Dirs) -> None:
    with_rules(dirs)
    merge = codex(dirs, "mcp__github__merge_pull_request", {"number": 12})
    assert "[steering:pr-before-merge@user]" in test_codex.denial(
        run_hook("codex", "pre-tool-use", merge, home=dirs.home)
    )
    opened = codex(dirs, "mcp__github__create_pull_request", {"base": "main"}, "PostToolUse")
    opened["tool_response"] = {"content": [{"type": "text", "text": "#12"}], "isError": False}
    done = run_hook("codex", "post-tool-use", opened, home=dirs.home)
    assert (done.returncode, done.stdout) == (0, "")
    assert pr_opened(dirs, "codex", "019a-thread") == [{"base": "main"}]
    done = run_hook("codex", "pre-tool-use", merge, home=dirs.home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.slow
def test_gemini_names_the_tool_from_mcp_context_and_denies_a_write(dirs: Dirs) -> None:
    with_rules(dirs)
    out = answer(run_hook("gemini", "before-tool", gemini(dirs, "pg", "query", DELETE), home=dirs.home))
    assert out["decision"] == "deny"
    assert str(out["reason"]).startswith("[steering:no-prod-writes@user] The production database")
    assert (
        answer(run_hook("gemini", "before-tool", gemini(dirs, "pg", "query", SELECT), home=dirs.home)) == {}
    )


@pytest.mark.slow
def test_gemini_without_mcp_context_splits_its_own_name_and_takes_claudes_form(dirs: Dirs) -> None:
    with_rules(dirs)
    for name in ("mcp_pg_query", "mcp__pg__query"):
        body = test_gemini.payload(dirs, "BeforeTool", tool_name=name, tool_input=DELETE)
        out = answer(run_hook("gemini", "before-tool", body, home=dirs.home))
        assert out["decision"] == "deny" and "[steering:no-prod-writes@user]" in str(out["reason"]), name


def test_gemini_mcp_context_beats_a_server_name_with_underscores(dirs: Dirs) -> None:
    """`mcp_prod_db_query` would split as server `prod`; `mcp_context` names `prod_db`."""
    (dirs.project / ".rein" / "steering.toml").write_text(
        STEERING + MCP_RULES.replace('tool = "mcp__pg__*"', 'tool = "mcp__prod_db__*"')
    )
    out = answer(run_hook("gemini", "before-tool", gemini(dirs, "prod_db", "query", DELETE), home=dirs.home))
    assert out["decision"] == "deny" and "[steering:no-prod-writes@user]" in str(out["reason"])


def test_gemini_an_mcp_directory_argument_does_not_move_the_cwd(dirs: Dirs) -> None:
    """`directory` is the shell tool's; an MCP tool's own `directory` argument is just an argument."""
    with_rules(dirs)
    body = gemini(dirs, "pg", "query", {**DELETE, "directory": "../../elsewhere"})
    out = answer(run_hook("gemini", "before-tool", body, home=dirs.home))
    assert out["decision"] == "deny" and "[steering:no-prod-writes@user]" in str(out["reason"])


@pytest.mark.slow
def test_gemini_after_tool_of_an_mcp_tool_feeds_observers(dirs: Dirs) -> None:
    with_rules(dirs)
    merge = gemini(dirs, "github", "merge_pull_request", {"number": 12})
    assert answer(run_hook("gemini", "before-tool", merge, home=dirs.home))["decision"] == "deny"
    opened = gemini(dirs, "github", "create_pull_request", {"base": "main"}, "AfterTool")
    opened["tool_response"] = {"llmContent": "#12", "returnDisplay": "#12"}
    assert answer(run_hook("gemini", "after-tool", opened, home=dirs.home)) == {}
    assert answer(run_hook("gemini", "before-tool", merge, home=dirs.home)) == {}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("more", "label"),
    [
        ({"command": PG_COMMAND}, "a stdio server found by its command line in the project's mcp.json"),
        ({"url": "http://127.0.0.1:9/mcp", "server_name": "pg"}, "a server Cursor names"),
    ],
)
def test_cursor_finds_the_server_and_denies_a_write(dirs: Dirs, more: dict[str, str], label: str) -> None:
    with_rules(cursor_servers(dirs))
    out = answer(
        run_hook("cursor", "before-mcp-execution", cursor(dirs, "query", DELETE, **more), home=dirs.home)
    )
    assert out["permission"] == "deny", label
    assert str(out["agent_message"]).startswith("[steering:no-prod-writes@user] The production database")
    assert out["user_message"] == out["agent_message"] == out["agentMessage"] == out["userMessage"]
    read = cursor(dirs, "query", SELECT, **more)
    assert answer(run_hook("cursor", "before-mcp-execution", read, home=dirs.home)) == {"permission": "allow"}


def test_cursor_tool_input_as_an_object_and_mcp_colon_names_work_too(dirs: Dirs) -> None:
    with_rules(dirs)
    body = test_cursor.payload(dirs, "beforeMCPExecution", tool_name="MCP:pg:query", tool_input=DELETE)
    out = answer(run_hook("cursor", "before-mcp-execution", body, home=dirs.home))
    assert out["permission"] == "deny" and "[steering:no-prod-writes@user]" in str(out["agent_message"])


def test_cursor_an_unknown_server_is_still_an_mcp_tool(dirs: Dirs) -> None:
    """No server name and no mcp.json entry: `mcp__unknown__query`, which `mcp__pg__*` does not name
    but `mcp__*__query` does."""
    (dirs.project / ".rein" / "steering.toml").write_text(
        STEERING + MCP_RULES.replace('tool = "mcp__pg__*"', 'tool = "mcp__*__query"')
    )
    body = cursor(dirs, "query", DELETE, command="some-other-server --stdio")
    out = answer(run_hook("cursor", "before-mcp-execution", body, home=dirs.home))
    assert out["permission"] == "deny" and "[steering:no-prod-writes@user]" in str(out["agent_message"])


def test_cursor_asks_the_person_when_a_rule_on_an_mcp_tool_asks(dirs: Dirs) -> None:
    with_rules(dirs)
    body = cursor(dirs, "flushall", {}, server_name="redis")
    out = answer(run_hook("cursor", "before-mcp-execution", body, home=dirs.home))
    assert out["permission"] == "ask"
    assert str(out["user_message"]).startswith("[steering:ask-to-drop-cache@user] Flushing the shared cache")


@pytest.mark.slow
def test_cursor_after_mcp_execution_feeds_observers(dirs: Dirs) -> None:
    with_rules(cursor_servers(dirs))
    merge = cursor(dirs, "merge_pull_request", {"number": 12}, url=GITHUB_URL)
    assert answer(run_hook("cursor", "before-mcp-execution", merge, home=dirs.home))["permission"] == "deny"
    opened = cursor(
        dirs, "create_pull_request", {"base": "main"}, "afterMCPExecution", url=GITHUB_URL, result_json="{}"
    )
    assert answer(run_hook("cursor", "after-mcp-execution", opened, home=dirs.home)) == {}
    assert pr_opened(dirs, "cursor", "conv-123") == [{"base": "main"}]
    assert answer(run_hook("cursor", "before-mcp-execution", merge, home=dirs.home)) == {
        "permission": "allow"
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    ("host", "event", "body"),
    [
        ("codex", "pre-tool-use", lambda d: codex(d, "mcp__pg__query", "DELETE FROM users")),
        ("gemini", "before-tool", lambda d: gemini(d, "pg", "query", ["DELETE"])),
        (
            "cursor",
            "before-mcp-execution",
            lambda d: cursor(d, "query", "DELETE FROM users", server_name="pg"),
        ),
    ],
)
def test_arguments_that_are_not_an_object_are_denied_as_a_hook_error(
    dirs: Dirs, host: str, event: str, body: object
) -> None:
    with_rules(dirs)
    assert callable(body)
    done = run_hook(host, event, body(dirs), home=dirs.home)
    assert "[steering:hook-error@rein]" in done.stdout and "tool_input" in done.stdout, done.stdout


@pytest.mark.slow
def test_an_mcp_call_in_each_host_imports_no_sdk(dirs: Dirs, imported: Imported) -> None:
    with_rules(cursor_servers(dirs))
    calls: list[tuple[str, str, Mapping[str, object]]] = [
        ("codex", "pre-tool-use", codex(dirs, "mcp__pg__query", SELECT)),
        ("gemini", "before-tool", gemini(dirs, "pg", "query", SELECT)),
        ("cursor", "before-mcp-execution", cursor(dirs, "query", SELECT, command=PG_COMMAND)),
    ]
    for host, event, body in calls:
        done = run_hook(host, event, body, home=dirs.home)
        assert done.returncode == 0 and "steering:" not in done.stdout, (host, done.stdout)
        modules = imported()
        assert f"rein.hooks.{host}" in modules
        heavy = sorted(m for m in modules if m.split(".")[0] in {"typer", "rich", "click", "mcp", "openai"})
        assert heavy == [], host
