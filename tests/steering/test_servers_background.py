"""Where a command that never exits runs: in the foreground `no-dev-server` blocks it; started in the
background or detached it runs, unless a project turns on `no-background-server`; a server a tool
detaches and manages itself runs under both."""

from __future__ import annotations

from pathlib import Path

import pytest

from rein.steering import Layer, Steering, ToolCall, Verdict, build_policy, parse_layer
from rein.steering._defaults import DEFAULT_RULES, OPTIONAL_RULES
from tests.steering.conftest import Check, make_context

BACKGROUND = [
    "npm run dev &",
    "npm run dev > /tmp/server.log 2>&1 &",
    "nohup npm run dev > /tmp/server.log 2>&1 &",
    "(npm run dev &) ; sleep 3; curl -s localhost:3000",
    "{ vite --port 3000; } > /tmp/vite.log 2>&1 &",
    "bash -c 'uvicorn app:app --reload &'",
    "setsid -f npm run dev",
    "setsid --fork python -m http.server",
    "tmux new -d 'npm run dev'",
    "tmux new-session -d -s web 'vite'",
    "tmux new-window 'tail -f log.txt'",
    "tmux split-window -h 'npm run dev'",
    "tmux send-keys -t web 'npm run dev' Enter",
    "tmux run-shell -b 'npm run dev'",
    "screen -dmS web npm run dev",
    "screen -d -m vite",
    "screen -S web -X stuff 'npm run dev\\n'",
    "systemd-run --user npm run dev",
    "systemd-run --user --unit web --same-dir npm run dev",
    "daemonize /usr/bin/redis-server",
    "start-stop-daemon --start --background --exec /usr/bin/redis-server",
]
"""Started in the background or detached: the turn goes on."""

FOREGROUND = [
    "npm run dev",
    "nohup npm run dev",
    "setsid npm run dev",  # forks only when it leads its process group: the shell waits
    "setsid -f -w npm run dev",
    "screen npm run dev",
    "tmux new-session 'npm run dev'",  # without -d it attaches the terminal until the session ends
    "screen -D -m npm run dev",
    "tmux run-shell 'npm run dev'",
    "tmux run-shell -d 5 'npm run dev'",  # -d is a delay: it still waits
    "systemd-run --user --scope npm run dev",
    "systemd-run --wait npm run dev",
    "systemd-run --pty npm run dev",
    "systemd-run -P redis-server",
    "start-stop-daemon --start --exec /usr/bin/redis-server",
    "stack exec -- yesod devel",
]
"""Still in the foreground: the shell waits for it."""

MANAGED = [
    "docker run -d app npm run dev",
    "docker compose up -d",
    "pm2 start app.js",
    "pm2 start npm -- run dev",
    "forever start app.js",
    "redis-server --daemonize yes",
    "mongod --fork --logpath /tmp/mongod.log",
    "rails server -d",
    "gunicorn -D app:app",
    "timeout 30 npm run dev &",
    "npm run build &",
]
"""A tool that detaches and manages what it starts, or what ends on its own: both rules let it run."""


def engine(toml: str = "") -> Steering:
    layer = parse_layer(toml, "/p/.rein/steering.toml", base=Path("/p/.rein"))
    return Steering(build_policy([layer]).policy)


OPTED_IN = engine('enable_rules = ["no-background-server"]\n')


def opted_in(command: str) -> Verdict:
    return OPTED_IN.evaluate(ToolCall(tool="bash", command=command), make_context())


@pytest.mark.parametrize("command", BACKGROUND)
def test_a_server_started_in_the_background_runs_by_default(check: Check, command: str) -> None:
    verdict = check(command)
    assert verdict.allow, verdict.reason


@pytest.mark.parametrize("command", BACKGROUND)
def test_no_background_server_blocks_it_when_a_project_turns_it_on(command: str) -> None:
    verdict = opted_in(command)
    assert not verdict.allow and verdict.rule == "no-background-server", verdict.reason
    assert "nothing stops it" in verdict.reason


@pytest.mark.parametrize("command", FOREGROUND)
def test_a_server_in_the_foreground_blocks(check: Check, command: str) -> None:
    verdict = check(command)
    assert not verdict.allow and verdict.rule == "no-dev-server", verdict.reason


@pytest.mark.parametrize("command", FOREGROUND)
def test_the_opt_in_rule_leaves_a_foreground_server_to_no_dev_server(command: str) -> None:
    assert opted_in(command).rule == "no-dev-server"


@pytest.mark.parametrize("command", MANAGED)
def test_a_server_a_tool_detaches_itself_runs_under_both_rules(check: Check, command: str) -> None:
    assert check(command).allow
    assert opted_in(command).allow, opted_in(command).reason


def test_a_command_that_is_still_blocked_in_the_background_is_blocked_by_its_own_rule(check: Check) -> None:
    assert check("nohup git push --force > push.log 2>&1 &").rule == "no-force-push"
    assert check("tmux new -d 'git push -f'").rule == "no-force-push"
    assert check("setsid -f git reset --hard").rule == "no-reset-hard"


def test_the_background_rule_is_opt_in_and_named() -> None:
    assert "no-background-server" in OPTIONAL_RULES
    assert "no-background-server" not in {rule.name for rule in DEFAULT_RULES}
    assert engine().evaluate(ToolCall(tool="bash", command="npm run dev &"), make_context()).allow


def test_both_rules_can_be_on_and_each_says_what_to_do_instead() -> None:
    layer = Layer(file="/p/.rein/steering.toml", enabled_rules=frozenset({"no-background-server"}))
    both = Steering(build_policy([layer]).policy)
    context = make_context()
    foreground = both.evaluate(ToolCall(tool="bash", command="npm run dev"), context)
    background = both.evaluate(ToolCall(tool="bash", command="npm run dev &"), context)
    assert (foreground.rule, background.rule) == ("no-dev-server", "no-background-server")
    assert "in the background" in foreground.reason and "2>&1 &" in foreground.reason
    assert "one-shot" in background.reason and "timeout" in background.reason


def test_disabling_no_dev_server_still_leaves_the_background_rule_working() -> None:
    opted = engine('disabled_rules = ["no-dev-server"]\nenable_rules = ["no-background-server"]\n')
    context = make_context()
    assert opted.evaluate(ToolCall(tool="bash", command="npm run dev"), context).allow
    assert (
        opted.evaluate(ToolCall(tool="bash", command="npm run dev &"), context).rule == "no-background-server"
    )
