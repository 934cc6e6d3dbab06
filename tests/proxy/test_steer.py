"""Steering in the stream, its parts alone: the shell tool table, the call steering sees, the relay
collecting complete tool calls, and `StreamSteering` deciding with the policy of a real directory (the
default packs, a project's `.rein/steering.toml`, a broken one failing closed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rein.proxy import SHELL_TOOLS, Out, Relay
from rein.proxy._steer import StreamSteering, call_of, shell_command, workdir
from rein.ttsr import MatchContext, TtsrManager, hold_windows

PUSH = "git push --force origin main"


@pytest.mark.parametrize(
    ("tool", "args", "command"),
    [
        ("bash", {"command": PUSH}, PUSH),
        ("Bash", {"command": PUSH, "description": "push"}, PUSH),
        ("exec_command", {"cmd": PUSH, "workdir": "/srv"}, PUSH),
        ("shell", {"command": ["bash", "-lc", PUSH]}, f"bash -lc '{PUSH}'"),
        ("shell", {"command": ["git", "push", "--force"]}, "git push --force"),
        ("run_shell_command", {"command": "ls", "directory": "src"}, "ls"),
        ("terminal", {"command": "ls"}, "ls"),
        ("bash", {"cmd": "ls"}, "ls"),
        ("bash", {"command": ""}, None),
        ("bash", {"command": ["git", 3]}, None),
        ("mcp__github__create_issue", {"command": PUSH}, None),
    ],
)
def test_shell_command_reads_the_table(tool: str, args: dict[str, object], command: str | None) -> None:
    assert shell_command(tool, args) == command


def test_every_shell_tool_is_named_in_lower_case_with_a_key() -> None:
    assert all(name == name.lower() and keys for name, keys in SHELL_TOOLS.items())


def test_call_of_maps_shells_to_bash_and_keeps_other_tools_by_name() -> None:
    shell = call_of("exec_command", '{"cmd": "ls -la"}')
    assert (shell.tool, shell.command, dict(shell.args)) == ("bash", "ls -la", {"cmd": "ls -la"})
    other = call_of("mcp__db__query", '{"sql": "SELECT 1"}')
    assert (other.tool, other.command, dict(other.args)) == ("mcp__db__query", "", {"sql": "SELECT 1"})
    assert dict(call_of("apply_patch", "*** Begin Patch", json_arguments=False).args) == {
        "input": "*** Begin Patch"
    }
    assert dict(call_of("lookup", "{not json").args) == {"input": "{not json"}
    assert dict(call_of("lookup", "").args) == {}


def test_workdir_is_the_calls_own_or_the_sessions() -> None:
    assert workdir({"workdir": "/srv/app"}, "/home/u") == "/srv/app"
    assert workdir({"directory": "src"}, "/home/u/p") == "/home/u/p/src"
    assert workdir({}, "/home/u/p") == "/home/u/p"


def tool(part: str, *, final: bool = False, ident: str = "c1", name: str = "bash") -> Out:
    context = MatchContext(source="tool", tool_name=name, tool_call_id=ident)
    return Out(render=lambda shown: shown.encode(), text=part, stream=ident, context=context, final=final)


def relay(*, calls: bool) -> Relay:
    def manager() -> TtsrManager:
        return TtsrManager((), eager=True)

    return Relay(manager, hold_windows(manager().plan, 64), calls=calls)


def test_the_relay_hands_over_each_call_once_complete_and_before_its_release() -> None:
    found = relay(calls=True)
    assert found.push([tool('{"command": "git '), tool('status"}')]) == []
    assert found.calls == []
    found.push([tool("", final=True), tool('{"command": "ls"}', ident="c2")])
    taken = found.take_calls()
    assert [(c.context.tool_call_id, c.arguments) for c in taken] == [("c1", '{"command": "git status"}')]
    assert found.calls == []
    found.finish()  # the stream ended without closing the second call
    assert [c.arguments for c in found.take_calls()] == ['{"command": "ls"}']
    assert found.release() == b'{"command": "git status"}{"command": "ls"}'


def test_a_cut_drops_the_calls_not_taken_and_a_relay_without_steering_collects_none() -> None:
    found = relay(calls=True)
    found.push([tool("{}", final=True)])
    found.cut()
    assert found.calls == []
    plain = relay(calls=False)
    plain.push([tool("{}", final=True)])
    assert plain.calls == []


def steering(tmp_path: Path, config: str | None = None) -> StreamSteering:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".rein").mkdir(parents=True)
    home.mkdir()
    if config is not None:
        (project / ".rein" / "steering.toml").write_text(config, encoding="utf-8")
    return StreamSteering("retry", str(project), str(home))


def test_the_default_packs_block_a_force_push_and_let_status_through(tmp_path: Path) -> None:
    engine = steering(tmp_path)
    blocked = engine.check([("bash", f'{{"command": "{PUSH}"}}', True, 0)], cwd=None, session=None)
    assert blocked is not None and blocked.rule == "no-force-push" and blocked.command == PUSH
    assert blocked.injection().startswith(f"Your tool call `{PUSH}` was not run: [steering:no-force-push")
    assert engine.check([("bash", '{"command": "git status"}', True, 0)], cwd=None, session=None) is None


def test_a_rule_that_asks_blocks_and_says_a_person_must_run_it(tmp_path: Path) -> None:
    engine = steering(tmp_path)
    drop = '{"command": "psql -c \'DROP TABLE users\'"}'
    blocked = engine.check([("bash", drop, True, 0)], cwd=None, session=None)
    assert blocked is not None and blocked.verdict.ask and blocked.rule == "database-drop"
    assert "tell the user to run it themselves" in blocked.injection()
    assert "a person must run it" in blocked.message()


def test_a_block_wins_over_an_earlier_ask(tmp_path: Path) -> None:
    engine = steering(tmp_path)
    calls = [
        ("bash", '{"command": "psql -c \'DROP TABLE users\'"}', True, 0),
        ("bash", f'{{"command": "{PUSH}"}}', True, 0),
    ]
    blocked = engine.check(calls, cwd=None, session=None)
    assert blocked is not None and blocked.rule == "no-force-push"


def test_a_broken_steering_toml_fails_closed_and_is_reported_at_start(tmp_path: Path) -> None:
    engine = steering(tmp_path, "[[rule]\n")
    assert any("every tool call is blocked" in line for line in engine.describe())
    blocked = engine.check([("bash", '{"command": "ls"}', True, 0)], cwd=None, session=None)
    assert blocked is not None and blocked.rule == "proxy-error"
    assert "rein could not check this" in blocked.verdict.reason


def test_a_changed_steering_toml_applies_to_the_next_call(tmp_path: Path) -> None:
    engine = steering(tmp_path)
    call = [("bash", '{"command": "make deploy"}', True, 0)]
    assert engine.check(call, cwd=None, session=None) is None
    rule = '[[rule]]\nname = "no-deploy"\nreason = "CI deploys."\ncommand = "make"\nargs = "deploy"\n'
    (Path(engine.cwd) / ".rein" / "steering.toml").write_text(rule, encoding="utf-8")
    blocked = engine.check(call, cwd=None, session=None)
    assert blocked is not None and blocked.rule == "no-deploy"


def test_a_relative_cwd_header_counts_as_none(tmp_path: Path) -> None:
    rule = '[[rule]]\nname = "no-deploy"\nreason = "CI deploys."\ncommand = "make"\nargs = "deploy"\n'
    engine = steering(tmp_path, rule)
    call = [("bash", '{"command": "make deploy"}', True, 0)]
    blocked = engine.check(call, cwd="project", session="s")
    assert blocked is not None and blocked.rule == "no-deploy"
    assert engine.check(call, cwd=str(tmp_path / "home"), session="s") is None


def test_file_tools_are_rein_s_file_tools() -> None:
    write = call_of("Write", '{"file_path": "/p/.env", "content": "KEY=1"}')
    assert (write.tool, write.path, write.content) == ("write", "/p/.env", "KEY=1")
    edits = '{"file_path": "/p/a.py", "edits": [{"old_string": "a", "new_string": "b"}, {"new_string": "c"}]}'
    multi = call_of("MultiEdit", edits)
    assert (multi.tool, multi.path, multi.content) == ("edit", "/p/a.py", "b\nc")
    read = call_of("read_file", '{"absolute_path": "/etc/hosts"}')
    assert (read.tool, read.path, read.content) == ("read", "/etc/hosts", None)
    nameless = call_of("Write", '{"content": "x"}')
    assert (nameless.tool, nameless.path) == ("Write", None)


def test_a_file_rule_of_the_project_blocks_a_write(tmp_path: Path) -> None:
    rule = (
        '[[rule]]\nname = "no-env"\nreason = "Secrets stay out of the tree."\ntool = "write"\n'
        'field = "path"\npattern = "\\\\.env$"\n'
    )
    engine = steering(tmp_path, rule)
    env = '{"file_path": "/p/.env", "content": "KEY=1"}'
    blocked = engine.check([("Write", env, True, 0)], cwd=None, session=None)
    assert blocked is not None and blocked.rule == "no-env" and blocked.tool == "Write"
    assert blocked.injection().startswith(
        "Your tool call `Write /p/.env` was not run: [steering:no-env@user]"
    )
    fine = '{"file_path": "/p/notes.md", "content": "x"}'
    assert engine.check([("Write", fine, True, 0)], cwd=None, session=None) is None
