"""Where MCP servers are configured and how each entry is read: the sources in order, `${VAR}`
expansion, `enabled = false`, and one line naming the file for each problem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rein.mcp import ConfigProblem, ServerConfig, configured_servers, parse_server, tool_name
from tests.mcp.conftest import write_mcp_json


def parse(raw: object, **environ: str) -> ServerConfig:
    return parse_server("s", raw, source="here", environ=environ)


def test_stdio_and_http_entries_as_claude_code_writes_them() -> None:
    stdio = parse({"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}})
    assert (stdio.transport, stdio.command, stdio.args, dict(stdio.env)) == (
        "stdio",
        "npx",
        ("-y", "srv"),
        {"K": "v"},
    )
    for kind in ("http", "streamable-http"):
        http = parse({"type": kind, "url": "https://x/mcp", "headers": {"A": "b"}})
        assert (http.transport, http.url, dict(http.headers)) == ("http", "https://x/mcp", {"A": "b"})
    assert parse({"url": "http://127.0.0.1:9/mcp"}).transport == "http"


def test_variables_are_expanded_with_defaults_and_a_missing_one_is_a_problem() -> None:
    config = parse(
        {"command": "${BIN}", "args": ["--token=${TOKEN}", "${MODE:-fast}"], "env": {"HOME2": "${HOME2:-}"}},
        BIN="/bin/srv",
        TOKEN="t0k",
    )
    assert (config.command, config.args, dict(config.env)) == (
        "/bin/srv",
        ("--token=t0k", "fast"),
        {"HOME2": ""},
    )
    assert parse({"type": "http", "url": "https://${HOST}/mcp"}, HOST="h").url == "https://h/mcp"
    with pytest.raises(ConfigProblem, match=r"server 's': \$\{TOKEN\} is not set \(and has no :-default\)"):
        parse({"type": "http", "url": "https://x", "headers": {"Authorization": "Bearer ${TOKEN}"}})


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"type": "sse", "url": "https://x/sse"}, 'type "sse" is not supported'),
        ({"type": "ws", "url": "ws://x"}, "type 'ws' is not one of stdio, http, streamable-http"),
        ({"command": ""}, "command must be a non-empty string"),
        ({"command": "x", "args": "a b"}, "args must be a list of strings"),
        ({"command": "x", "env": {"A": 1}}, "env must be a table of strings"),
        ({"type": "http", "url": "localhost:9"}, "url must start with http:// or https://"),
        (["npx"], "must be a table/object, not list"),
    ],
)
def test_a_wrong_entry_says_what_is_wrong(raw: object, problem: str) -> None:
    with pytest.raises(ConfigProblem) as caught:
        parse(raw)
    assert problem in str(caught.value) and "server 's'" in str(caught.value)


def test_sources_merge_by_name_later_wins_and_enabled_false_switches_off(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = home / "repo"
    cwd = root / "pkg"
    cwd.mkdir(parents=True)
    (root / ".git").mkdir()
    (home / ".claude.json").write_text(
        json.dumps({"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}}, "projects": {}})
    )
    write_mcp_json(root, {"b": {"command": "root-b"}, "c": {"command": "root-c"}})
    write_mcp_json(cwd, {"c": {"command": "here-c"}, "d": {"command": "here-d"}})
    (cwd / ".rein").mkdir()
    (cwd / ".rein" / "settings.toml").write_text(
        '[mcp.servers.d]\nenabled = false\n[mcp.servers.e]\ntype = "http"\nurl = "https://e/mcp"\n'
    )
    extra = ServerConfig(name="a", transport="stdio", source="the editor", command="editor-a")
    found = configured_servers(cwd, home, environ={}, extra=[extra])
    assert [(s.name, s.target, s.source) for s in found.servers] == [
        ("a", "editor-a", "the editor"),
        ("b", "root-b", "~/repo/.mcp.json"),
        ("c", "here-c", ".mcp.json"),
        ("e", "https://e/mcp", ".rein/settings.toml"),
    ]
    assert found.disabled == ("d",)
    assert found.problems == ()


def test_each_problem_is_one_line_naming_the_file_and_the_others_still_count(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "home" / "p"
    (cwd / ".rein").mkdir(parents=True)
    (home / ".claude.json").write_text("{oops")
    write_mcp_json(cwd, {"ok": {"command": "srv"}, "bad": {"type": "sse", "url": "https://x"}})
    (cwd / ".rein" / "settings.toml").write_text('[mcp.servers.ok]\nenabled = "no"\n')
    found = configured_servers(cwd, home, environ={})
    assert [s.name for s in found.servers] == ["ok"]
    assert len(found.problems) == 3
    first, second, third = found.problems
    assert first.startswith(f"{home / '.claude.json'}: not valid JSON (")
    assert second.startswith(f"{cwd / '.mcp.json'}: server 'bad': type \"sse\" is not supported")
    assert third == f"{cwd / '.rein' / 'settings.toml'}: [mcp.servers.ok] enabled must be true or false"


def test_tool_names_are_claude_codes() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("my server", "get.file") == "mcp__my_server__get_file"


def test_a_session_without_servers_never_imports_the_sdk() -> None:
    code = (
        "import sys, rein.builtins, rein.cli.mcp, rein.builtins.approval;"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
