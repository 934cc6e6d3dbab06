"""Rules and observers on any tool (issue 37): a tool named or globbed, predicates on its JSON
arguments (dotted fields, JSON values, sql kinds), observers, and the schema's one-line errors."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from rein.steering import (
    ConfigError,
    Context,
    MemoryEntries,
    Steering,
    ToolCall,
    ToolResult,
    Verdict,
    build_policy,
    parse_layer,
)

FILE = "/p/.rein/steering.toml"


def engine(config: str) -> Steering:
    return Steering(build_policy([parse_layer(config, FILE)]).policy)


def rule(body: str, name: str = "r") -> str:
    return f'[[rule]]\nname = "{name}"\nreason = "Do it another way."\n{body}\n'


def check(
    config: str, tool: str, args: Mapping[str, object], entries: MemoryEntries | None = None
) -> Verdict:
    context = Context(cwd="/p", home="/h", entries=entries or MemoryEntries())
    return engine(config).evaluate(ToolCall(tool=tool, args=args), context)


PG = rule('tool = "mcp__postgres__*"\nfield = "sql"\nsql = ["write"]', "no-prod-writes")


@pytest.mark.parametrize(
    ("tool", "sql", "blocked"),
    [
        ("mcp__postgres__query", "DELETE FROM users", True),
        ("mcp__postgres__execute", "insert into t values (1)", True),
        ("mcp__postgres__query", "UPDATE t SET a = 1 WHERE id = 2", True),
        ("mcp__postgres__query", "WITH gone AS (DELETE FROM t RETURNING *) SELECT * FROM gone", True),
        ("mcp__postgres__query", "SELECT * INTO copy FROM users", True),
        ("mcp__postgres__query", "select * from users; create table x (a int)", True),
        ("mcp__postgres__query", "SELECT count(*) FROM users", False),
        ("mcp__postgres__query", "EXPLAIN SELECT * FROM t", False),
        ("mcp__postgres__query", "SELECT 'DELETE FROM users'", False),
        ("mcp__postgresql__query", "DELETE FROM users", False),  # another server
        ("mcp__mysql__query", "DELETE FROM users", False),
    ],
)
def test_sql_kinds_on_a_field_of_a_globbed_tool(tool: str, sql: str, blocked: bool) -> None:
    verdict = check(PG, tool, {"sql": sql})
    assert verdict.allow is not blocked, verdict.reason
    if blocked:
        assert verdict.rule == "no-prod-writes" and verdict.reason.startswith(
            "[steering:no-prod-writes@user]"
        )


def test_destructive_kinds_on_a_field_leave_a_filtered_delete() -> None:
    config = rule('tool = "db_query"\nfield = "q"\nsql = ["drop", "delete-all"]')
    assert not check(config, "db_query", {"q": "DELETE FROM users"}).allow
    assert not check(config, "db_query", {"q": "drop table t"}).allow
    assert check(config, "db_query", {"q": "DELETE FROM users WHERE id = 1"}).allow


def test_a_dotted_field_reaches_into_objects_and_lists() -> None:
    config = rule('tool = "mcp__github__push"\nfield = "options.branches.1"\npattern = "^main$"')
    assert not check(config, "mcp__github__push", {"options": {"branches": ["dev", "main"]}}).allow
    assert check(config, "mcp__github__push", {"options": {"branches": ["main", "dev"]}}).allow
    assert check(config, "mcp__github__push", {"options": {"branches": ["main"]}}).allow  # no index 1


def test_a_missing_field_never_matches() -> None:
    config = rule('tool = "t"\nfield = "a.b"\npattern = ".*"\nunless = "x"')
    for args in ({}, {"a": 1}, {"a": {"c": 1}}, {"a": "b"}, {"a": [1]}):
        assert check(config, "t", args).allow, args
    assert not check(config, "t", {"a": {"b": None}}).allow  # there, as `null`


def test_other_json_values_are_read_as_compact_json() -> None:
    config = rule('tool = "t"\nfield = "opts"\npattern = \'"force":true\'')
    assert not check(config, "t", {"opts": {"force": True, "n": [1, 2]}}).allow
    assert check(config, "t", {"opts": {"force": False}}).allow
    number = rule('tool = "t"\nfield = "limit"\npattern = "^[0-9]{4,}$"')
    assert not check(number, "t", {"limit": 10000}).allow and check(number, "t", {"limit": 10}).allow


def test_without_a_field_the_pattern_searches_every_argument() -> None:
    config = rule('tool = "mcp__*"\npattern = "prod"')
    assert not check(config, "mcp__x__y", {"target": {"env": "prod-eu"}}).allow
    assert check(config, "mcp__x__y", {"target": {"env": "staging"}}).allow


def test_a_rule_with_only_a_tool_blocks_the_tool_and_a_glob_never_reaches_rein_s_own_tools() -> None:
    config = rule('tool = "*"', "nothing-else") + rule('tool = "mcp__github__merge_*"', "no-merge")
    verdict = check(config, "mcp__github__merge_pull_request", {"number": 3})
    assert not verdict.allow and verdict.rule == "nothing-else"
    steering = engine(rule('tool = "*"'))
    context = Context(cwd="/p", home="/h")
    assert steering.evaluate(ToolCall(tool="bash", command="ls", args={"command": "ls"}), context).allow
    assert steering.evaluate(ToolCall(tool="write", path="a.txt", content="x"), context).allow
    assert steering.steers("bash") and steering.steers("anything")
    narrow = engine(rule('tool = "mcp__github__*"'))
    assert (
        narrow.steers("mcp__github__x") and not narrow.steers("mcp__slack__x") and not narrow.steers("grep")
    )


def test_requires_unless_and_ask_read_the_field() -> None:
    config = rule(
        'tool = "mcp__k8s__apply"\nfield = "manifest"\npattern = "kind: Deployment"'
        '\nunless = "namespace: dev"\nverdict = "ask"'
    )
    asked = check(config, "mcp__k8s__apply", {"manifest": "kind: Deployment\nnamespace: prod"})
    assert not asked.allow and asked.ask and "approval" in asked.reason
    assert check(config, "mcp__k8s__apply", {"manifest": "kind: Deployment\nnamespace: dev"}).allow


def test_an_ask_waits_for_a_later_block() -> None:
    config = rule('tool = "t"\nverdict = "ask"', "asks") + rule(
        'tool = "t"\nfield = "x"\npattern = "y"', "blocks"
    )
    assert check(config, "t", {"x": "y"}).rule == "blocks"
    assert check(config, "t", {"x": "z"}).rule == "asks"


def test_when_predicates_and_on_fire_apply() -> None:
    config = rule('tool = "t"\non_fire = { write = ["t-blocked"] }\n[rule.when]\nbranch = "main"')
    entries = MemoryEntries()
    context = Context(cwd="/p", home="/h", branch="main", entries=entries)
    assert not engine(config).evaluate(ToolCall(tool="t"), context).allow
    assert [entry.type for entry in entries.entries] == ["t-blocked"]
    assert engine(config).evaluate(ToolCall(tool="t"), Context(cwd="/p", home="/h", branch="dev")).allow


OBSERVER = """
[[observer]]
name = "pr"
writes = ["pr-to-main"]
watch = { tool = "mcp__github__create_*", field = "base", pattern = "^main$" }

[[observer]]
name = "any-call"
writes = ["called"]
watch = { tool = "db_query" }
"""


def test_observers_on_any_tool_write_entries_with_the_arguments() -> None:
    steering = engine(OBSERVER)
    entries = MemoryEntries()
    context = Context(cwd="/p", home="/h", entries=entries)
    pr = ToolCall(tool="mcp__github__create_pull_request", args={"base": "main", "title": "x"})
    written = steering.dispatch(ToolResult(call=pr, output="#12"), context)
    assert [entry.type for entry in written] == ["pr-to-main"]
    assert written[0].data == {
        "observer": "pr",
        "tool": pr.tool,
        "args": {"base": "main", "title": "x"},
        "error": False,
    }
    other = ToolCall(tool="mcp__github__create_pull_request", args={"base": "dev"})
    assert steering.dispatch(ToolResult(call=other), context) == []
    assert (
        steering.dispatch(
            ToolResult(call=ToolCall(tool="mcp__github__list_issues", args={"base": "main"})), context
        )
        == []
    )
    failed = steering.dispatch(ToolResult(call=ToolCall(tool="db_query"), is_error=True), context)
    assert [(entry.type, entry.data["error"]) for entry in failed] == [("called", True)]
    assert steering.dispatch(ToolResult(call=ToolCall(tool="bash", command="db_query")), context) == []


def test_a_rule_reads_what_an_observer_on_another_tool_wrote() -> None:
    config = OBSERVER + rule(
        'tool = "mcp__github__merge_*"\n[rule.when.not.happened]\nevent = "pr-to-main"\nin = "session"',
        "pr-first",
    )
    steering = engine(config)
    entries = MemoryEntries()
    context = Context(cwd="/p", home="/h", entries=entries)
    merge = ToolCall(tool="mcp__github__merge_pull_request", args={"number": 12})
    assert steering.evaluate(merge, context).rule == "pr-first"
    pr = ToolCall(tool="mcp__github__create_pull_request", args={"base": "main"})
    steering.dispatch(ToolResult(call=pr), context)
    assert steering.evaluate(merge, context).allow


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            rule('tool = "mcp__pg__["\nfield = "sql"\npattern = "x"'),
            'tool must be one of bash, write, edit, read, not "mcp__pg__["',
        ),
        (rule('tool = "mcp pg"'), "or a glob of names"),
        (rule('tool = "mcp__pg__*"\nfield = "sql"\npattern = "x"\ncolour = 1'), "unknown key 'colour'"),
        (
            rule('field = "sql"\npattern = "x"'),
            'field must be one of command, path, content, not "sql" (an argument of',
        ),
        (
            rule('tool = "mcp__pg__*"\nfield = "sql"\ncommand = "psql"'),
            "with command (a rule or watch on another tool",
        ),
        (rule('tool = "mcp__pg__*"\nfield = "sql"'), 'field "sql" needs a pattern or sql kinds'),
        (
            rule('tool = "mcp__pg__*"\nfield = "a..b"\npattern = "x"'),
            "field must be an argument's name or a dotted path",
        ),
        (
            rule('tool = "mcp__pg__*"\nfield = "sql"\nsql = ["insert"]'),
            'sql kinds are drop, truncate, delete-all, update-all, not "insert" (write',
        ),
        (rule('tool = "mcp__pg__*"\nfield = "sql"\npattern = "("'), "pattern is not a valid regex"),
        ('[[observer]]\nname = "o"\nwatch = { tool = "mcp__x__*", exit_code = 0 }\n', "with exit_code"),
        (
            '[[observer]]\nname = "o"\nwatch = { tool = "mcp__x__*", field = "a b", pattern = "x" }\n',
            "field must be",
        ),
        (
            '[[observer]]\nname = "o"\nwatch = { tool = "bash", field = "a" }\n',
            "field and pattern read another tool's",
        ),
    ],
)
def test_a_bad_rule_on_any_tool_is_one_line_naming_file_and_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_layer("# team rules\n\n" + text, FILE)
    shown = str(raised.value)
    assert shown.startswith(f"{FILE}:3: ") and "\n" not in shown, shown
    assert message in shown, shown
