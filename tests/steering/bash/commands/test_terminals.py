"""tmux and screen: the shell command of a new session, window or pane, the keys typed into one, the
tmux commands held for later, `#(...)` in a format; every other tmux command is inert."""

from __future__ import annotations

import pytest

from rein.steering.bash import Word
from rein.steering.bash.commands._terminals import tmux_name
from tests.steering.bash.commands._runs import chains, inner, unknown
from tests.steering.bash.helpers import run
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
