"""Claude Code's MCP tools (`mcp__<server>__<tool>`) through rein's hook, one real process per call:
rules on any tool decide PreToolUse, observers see PostToolUse (issue 37)."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

from tests.hooks.conftest import STEERING, Dirs, Imported, run_hook
from tests.hooks.test_claude import decision, payload

MCP_RULES = """
[[rule]]
name = "no-prod-writes"
reason = "The production database is read-only: query it, and write a migration for changes."
tool = "mcp__pg__*"
field = "sql"
sql = ["write"]

[[observer]]
name = "prs"
writes = ["pr-opened"]
watch = { tool = "mcp__github__create_pull_request", field = "base", pattern = "^main$" }

[[rule]]
name = "pr-before-merge"
reason = "Open a pull request against main first, then merge it."
tool = "mcp__github__merge_*"
[rule.when]
not = { happened = { event = "pr-opened", in = "session" } }
"""


def mcp(
    dirs: Dirs, tool: str, tool_input: Mapping[str, object], event: str = "PreToolUse"
) -> dict[str, object]:
    return payload(dirs, event, tool_name=tool, tool_input=tool_input, tool_use_id="toolu_mcp")


def with_rules(dirs: Dirs) -> Dirs:
    (dirs.project / ".rein" / "steering.toml").write_text(STEERING + MCP_RULES)
    return dirs


def test_a_write_through_the_postgres_mcp_server_is_denied_with_the_reason(dirs: Dirs) -> None:
    with_rules(dirs)
    body = mcp(dirs, "mcp__pg__query", {"sql": "DELETE FROM users WHERE id = 7"})
    done = run_hook("claude", "pre-tool-use", body, home=dirs.home, cwd=dirs.project)
    verdict, reason = decision(done)
    assert verdict == "deny" and reason.startswith("[steering:no-prod-writes@user] The production database")


@pytest.mark.slow
def test_a_read_and_a_tool_no_rule_names_print_nothing(dirs: Dirs) -> None:
    with_rules(dirs)
    for tool, tool_input in (
        ("mcp__pg__query", {"sql": "SELECT count(*) FROM users"}),
        ("mcp__slack__post_message", {"text": "DELETE FROM users"}),
    ):
        done = run_hook(
            "claude", "pre-tool-use", mcp(dirs, tool, tool_input), home=dirs.home, cwd=dirs.project
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.slow
def test_an_observer_on_an_mcp_tool_lets_a_later_call_through(dirs: Dirs) -> None:
    with_rules(dirs)
    merge = mcp(dirs, "mcp__github__merge_pull_request", {"number": 12})
    verdict, reason = decision(run_hook("claude", "pre-tool-use", merge, home=dirs.home, cwd=dirs.project))
    assert verdict == "deny" and "[steering:pr-before-merge@user]" in reason
    opened = mcp(dirs, "mcp__github__create_pull_request", {"base": "main", "title": "x"}, "PostToolUse")
    opened["tool_response"] = {"number": 12}
    done = run_hook("claude", "post-tool-use", opened, home=dirs.home, cwd=dirs.project)
    assert (done.returncode, done.stdout) == (0, "")
    lines = [json.loads(line) for line in dirs.session_file("claude", "sess-1").read_text().splitlines()]
    assert [(line["type"], line["data"]["args"]) for line in lines if line["type"] == "pr-opened"] == [
        ("pr-opened", {"base": "main", "title": "x"})
    ]
    done = run_hook("claude", "pre-tool-use", merge, home=dirs.home, cwd=dirs.project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_malformed_mcp_payload_is_denied_as_a_hook_error(dirs: Dirs) -> None:
    with_rules(dirs)
    body = payload(dirs, "PreToolUse", tool_name="mcp__pg__query", tool_input="DELETE FROM users")
    verdict, reason = decision(run_hook("claude", "pre-tool-use", body, home=dirs.home, cwd=dirs.project))
    assert verdict == "deny" and "[steering:hook-error@rein]" in reason and "tool_input" in reason


@pytest.mark.slow
def test_an_mcp_call_imports_no_cli_framework_or_sdk(dirs: Dirs, imported: Imported) -> None:
    with_rules(dirs)
    body = mcp(dirs, "mcp__pg__query", {"sql": "SELECT 1"})
    done = run_hook("claude", "pre-tool-use", body, home=dirs.home, cwd=dirs.project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    modules = imported()
    assert "rein.hooks.claude" in modules
    heavy = sorted(
        m
        for m in modules
        if m.split(".")[0] in {"typer", "rich", "click", "openai", "anthropic", "mcp", "yaml"}
    )
    assert heavy == []
