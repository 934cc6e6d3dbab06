"""How each host's MCP tool names become rein's `mcp__<server>__<tool>`, in process (the hook processes
themselves are in test_mcp_hosts.py): Gemini CLI's `mcp_<server>_<tool>` and `mcp_context`, Cursor's
bare names found in `mcp.json`, and arguments as an object or a JSON string."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rein.hooks._mcp import arguments, cursor_name, cursor_server, gemini_name
from rein.hooks.codex import tool_calls
from rein.hooks.errors import PayloadError
from rein.hooks.gemini import tool_call


@pytest.mark.parametrize(
    ("name", "context", "expected"),
    [
        ("mcp_pg_query", {"server_name": "pg", "tool_name": "query"}, "mcp__pg__query"),
        (
            "mcp_prod_db_run_query",
            {"server_name": "prod_db", "tool_name": "run_query"},
            "mcp__prod_db__run_query",
        ),
        ("mcp_pg_run_query", None, "mcp__pg__run_query"),  # split at the first `_`, as Gemini CLI does
        ("mcp__pg__query", None, "mcp__pg__query"),
        ("mcp_pg", None, None),
        ("run_shell_command", None, None),
        ("read_file", {"server_name": "", "tool_name": "x"}, None),
    ],
)
def test_gemini_names(name: str, context: object, expected: str | None) -> None:
    assert gemini_name(name, context) == expected


def test_a_gemini_mcp_call_carries_its_arguments_and_no_command() -> None:
    payload = {"tool_name": "mcp_sh_run", "tool_input": {"command": "rm -rf /"}}
    call = tool_call(payload)
    assert call is not None
    assert (call.tool, dict(call.args), call.command) == ("mcp__sh__run", {"command": "rm -rf /"}, "")


def test_a_codex_mcp_call_keeps_its_name_and_id() -> None:
    payload = {
        "tool_name": "mcp__memory__create_entities",
        "tool_input": {"entities": []},
        "tool_use_id": "c1",
    }
    (call,) = tool_calls(payload)
    assert (call.tool, dict(call.args), call.id) == ("mcp__memory__create_entities", {"entities": []}, "c1")


@pytest.mark.parametrize(
    ("value", "expected"),
    [({"a": 1}, {"a": 1}), ('{"a": 1}', {"a": 1}), ("", {}), (None, {})],
)
def test_arguments_are_an_object_or_a_json_string_of_one(value: object, expected: dict[str, object]) -> None:
    assert dict(arguments(value)) == expected


@pytest.mark.parametrize(("value", "problem"), [("DELETE", "not JSON"), ("[1]", "not list"), (3, "not int")])
def test_other_arguments_are_a_payload_error(value: object, problem: str) -> None:
    with pytest.raises(PayloadError, match=problem):
        arguments(value)


def servers(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    for where, entries in (
        (project, {"pg": {"command": "npx", "args": ["-y", "@pg/mcp", "postgres://a b"]}, "bad": 3}),
        (
            tmp_path / "other",
            {"fs": {"command": "npx", "args": ["-y", "@fs/mcp"]}, "db": {"command": "pg-mcp"}},
        ),
        (home, {"github": {"url": "https://api.example.com/mcp/"}, "pg": {"url": "https://user.example/pg"}}),
    ):
        (where / ".cursor").mkdir(parents=True)
        (where / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": entries}))
    return project, home


def test_cursor_finds_a_server_by_url_or_command_line_project_first(tmp_path: Path) -> None:
    project, home = servers(tmp_path)
    roots = [str(project)]
    assert cursor_server(roots, home, url="https://api.example.com/mcp/", command=None) == "github"
    for command in ("npx -y @pg/mcp 'postgres://a b'", "npx -y @pg/mcp postgres://a b"):
        assert cursor_server(roots, home, url=None, command=command) == "pg"
    assert cursor_server(roots, home, url=None, command="npx") == "pg"  # the one server that runs npx
    both = [str(project), str(tmp_path / "other")]
    assert cursor_server(both, home, url=None, command="npx") is None  # pg or fs: not guessed
    assert cursor_server(both, home, url=None, command="pg-mcp") == "db"
    assert cursor_server(roots, home, url="https://elsewhere/", command="uvx") is None
    assert cursor_server(roots, home, url=None, command=None) is None
    (project / ".cursor" / "mcp.json").write_text("{not json")  # a broken file names no server
    assert cursor_server(roots, home, url=None, command="npx -y @pg/mcp postgres://a b") is None


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"tool_name": "query", "command": "npx -y @pg/mcp 'postgres://a b'"}, "mcp__pg__query"),
        ({"tool_name": "create_issue", "url": "https://api.example.com/mcp/"}, "mcp__github__create_issue"),
        ({"tool_name": "MCP:linear:create_issue"}, "mcp__linear__create_issue"),
        ({"tool_name": "mcp__linear__create_issue"}, "mcp__linear__create_issue"),
        ({"tool_name": "query", "serverName": "pg"}, "mcp__pg__query"),
        ({"tool_name": "query", "url": "https://nowhere/"}, "mcp__unknown__query"),
    ],
)
def test_cursor_names(tmp_path: Path, fields: dict[str, object], expected: str) -> None:
    project, home = servers(tmp_path)
    assert cursor_name(fields, [str(project)], home) == expected


def test_a_cursor_payload_without_a_tool_name_is_a_payload_error(tmp_path: Path) -> None:
    with pytest.raises(PayloadError, match="tool_name"):
        cursor_name({"tool_input": "{}"}, [], tmp_path)
