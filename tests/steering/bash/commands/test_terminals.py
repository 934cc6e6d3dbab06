"""tmux and screen: the shell command of a new session, window or pane, the keys typed into one, the
tmux commands held for later, `#(...)` in a format; every other tmux command is inert."""

from __future__ import annotations

import pytest

from rein.steering.bash import Word
from rein.steering.bash.commands._terminals import tmux_name
from tests.steering.bash.commands._runs import chains, inner, unknown
from tests.steering.bash.helpers import run, texts
from tests.steering.conftest import Check

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"tmux new-session -d -s w '{PUSH}'", [(PUSH, ("tmux new-session",))]),
        (f"tmux new -d -c /tmp -e A=1 '{PUSH}'", [(PUSH, ("tmux new-session",))]),
        (f"tmux neww {PUSH}", [(PUSH, ("tmux new-window",))]),
        (f"tmux splitw -h -l 20 '{PUSH}'", [(PUSH, ("tmux split-window",))]),
        (f"tmux spl '{PUSH}'", [(PUSH, ("tmux split-window",))]),  # a unique prefix
        (f"tmux respawnp -k '{PUSH}'", [(PUSH, ("tmux respawn-pane",))]),
        (f"tmux run-shell -b '{PUSH}'", [(PUSH, ("tmux run-shell",))]),
        (f"tmux run '{PUSH}'", [(PUSH, ("tmux run-shell",))]),
        (f"tmux display-popup -E '{PUSH}'", [(PUSH, ("tmux display-popup",))]),
        (f"tmux pipe-pane -o '{PUSH}'", [(PUSH, ("tmux pipe-pane",))]),
        (f"tmux send-keys -t dev '{PUSH}' Enter", [(PUSH, ("tmux send-keys",))]),
        ("tmux send -t 0 git Space push Space -f C-m", [(PUSH, ("tmux send-keys",))]),
        (f"tmux send-keys -l '{PUSH}'", [(PUSH, ("tmux send-keys",))]),
        (f"tmux new -d \\; send-keys '{PUSH}' Enter", [(PUSH, ("tmux send-keys",))]),
        (
            f"tmux if-shell -F 1 'run-shell \"{PUSH}\"'",
            [(f"tmux run-shell {PUSH}", ("tmux if-shell",)), (PUSH, ("tmux if-shell", "tmux run-shell"))],
        ),
        (
            f"tmux if true 'display x' 'run \"{PUSH}\"'",
            [
                ("true", ("tmux if-shell",)),
                ("tmux display x", ("tmux if-shell",)),
                (f"tmux run {PUSH}", ("tmux if-shell",)),
                (PUSH, ("tmux if-shell", "tmux run-shell")),
            ],
        ),
        (
            f"tmux bind-key x run-shell '{PUSH}'",
            [(f"tmux run-shell {PUSH}", ("tmux bind-key",)), (PUSH, ("tmux bind-key", "tmux run-shell"))],
        ),
        (f"tmux display-message '#({PUSH})'", [(PUSH, ("tmux display-message #()",))]),
        (f"tmux -c '{PUSH}'", [(PUSH, ("tmux -c",))]),
        (f"tmux set -g default-command '{PUSH}'", [(PUSH, ("tmux set-option",))]),
        (f"screen -dmS job {PUSH}", [(PUSH, ("screen",))]),
        (f"screen -d -m {PUSH}", [(PUSH, ("screen",))]),
        (f"screen -S job -X stuff '{PUSH}\\n'", [(PUSH, ("screen -X stuff",))]),
        (f"screen -X screen -t w {PUSH}", [(PUSH, ("screen -X screen",))]),
        (f"screen -X exec {PUSH}", [(PUSH, ("screen -X exec",))]),
    ],
)
def test_what_a_multiplexer_runs(source: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert chains(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "tmux ls",
        "tmux attach -t work",
        "tmux kill-session -t work",
        "tmux new-session -d -s work",
        f"tmux display-message '{PUSH} done'",
        "tmux rename-window 'npm run dev'",
        "tmux set -g mouse on",
        "tmux list-keys",
        "screen -ls",
        "screen -r work",
        "screen -x",
    ],
)
def test_other_commands_run_nothing(source: str) -> None:
    assert inner(source) == [] and not unknown(source)


@pytest.mark.parametrize(
    ("source", "allowed"),
    [
        (f"tmux display-message '{PUSH} done'", True),
        ("tmux rename-window 'npm run dev'", True),
        (f"tmux new-session -d '{PUSH}'", False),
        (f"tmux send-keys -t dev '{PUSH}' Enter", False),
    ],
)
def test_the_verdict(check: Check, source: str, allowed: bool) -> None:
    assert check(source).allow is allowed


def test_tmux_names_its_commands_as_tmux_does() -> None:
    assert [tmux_name(Word.literal(name)) for name in ("new", "neww", "split", "send", "resp", "x")] == [
        "new-session",
        "new-window",
        "split-window",
        "send-keys",
        None,  # respawn-pane or respawn-window
        None,
    ]


def test_dynamic_keys_are_unknown() -> None:
    assert unknown('tmux send-keys -t 0 "$CMD" Enter')
    assert run('tmux send-keys -t 0 "$CMD" Enter').refs[0].kind == "runner"


@pytest.mark.parametrize(
    "source",
    [
        "tmux send-keys -t 0 'python -c \"print(1)\"' Enter",
        'tmux send-keys -t dev "npm test" C-m',
        "tmux send-keys -t 0 C-c",
        "tmux send-keys -t 0 'echo \"hi' Enter",
        "tmux send-keys -t 0 'if true; then' Enter",
        "tmux send-keys -t 0 -l 'for x in a b; do'",
        "tmux send-keys -t 0 'def f(x):' Enter '  return x' Enter Enter",
        'tmux send-keys -t 0 "it\'s" Enter',
        "tmux send-keys -t repl 'x = (1' KPEnter",
        "tmux send-keys -t 0 Escape ':wq' Enter",
        "tmux send-keys -t 0 -H 28 0d",
        "tmux send-keys -t 0 -H FFFFFF",
    ],
)
def test_typed_text_that_is_no_shell_is_no_problem(source: str) -> None:
    assert run(source).understood, run(source).problems


@pytest.mark.parametrize(
    ("source", "commands"),
    [
        ("tmux send-keys -t 0 'make test' Enter 'ls' C-m", ["make test", "ls"]),
        ("tmux send-keys -t 0 'x = (1' Enter 'git status' Enter", ["git status"]),  # line by line
        ("tmux send-keys -t 0 'echo \"' Enter '\"; git status' Enter", ["echo \n", "git status"]),
        ("tmux send-keys -t 0 -l $'git status\\n'", ["git status"]),
        ("tmux send-keys -t 0 -H 6c 73 0d", ["ls"]),
    ],
)
def test_lines_typed_up_to_an_enter_are_command_lines(source: str, commands: list[str]) -> None:
    analysis = run(source)
    assert texts(analysis)[1:] == commands
    assert all(not ref.why for ref in analysis.refs[1:])  # submitted: no guess


def test_text_typed_without_enter_waits_and_is_a_guess() -> None:
    analysis = run("tmux send-keys -t 0 'git push -f'")
    assert "git push -f" in texts(analysis)
    assert run("tmux send-keys -t 0 -l 'print(x'").understood
    waiting = next(ref for ref in analysis.refs if ref.text == "git push -f")
    assert "without Enter" in waiting.why


@pytest.mark.parametrize(
    "command",
    [
        "tmux send-keys -t 0 'git push -f' Enter",
        "tmux send-keys -t 0 'git push -f' C-m",
        "tmux send-keys -t 0 'git push -f' KPEnter",
        "tmux send-keys -t 0 'git push -f'",
        "tmux send-keys -t 0 -l 'git push -f'",
        "tmux send-keys -t 0 'x = (1' Enter 'git push -f' Enter",
        "tmux send-keys -t 0 'echo \"' Enter '\"; git push -f' Enter",
        "tmux send-keys -t 0 -H 67 69 74 20 70 75 73 68 20 2d 66 0d",
        "tmux send-keys -t 0 git Space push Space -f Enter",
        "tmux send-keys -t 0 'git push -f' Escape",
    ],
)
def test_a_blocked_command_typed_into_a_pane_is_blocked(check: Check, command: str) -> None:
    assert check(command).rule == "no-force-push"
