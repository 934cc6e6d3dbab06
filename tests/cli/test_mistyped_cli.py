"""A mistyped subcommand is refused with the nearest one (exit 2), never sent to a model as a prompt;
a sentence whose first word only looks like a command is still the prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from rein.cli import COMMANDS
from rein.cli._suggest import mistyped
from tests.cli.helpers import run_rein


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("sesions",), "unknown command 'sesions'; did you mean 'sessions'?"),
        (("chek", "--", "ls"), "unknown command 'chek'; did you mean 'check'?"),
        (("serv", "--port", "1"), "unknown command 'serv'; did you mean 'serve'?"),
        (("hook", "instal", "claude"), "unknown command 'instal'; did you mean 'install'?"),
        (("hook", "claud", "PreToolUse"), "unknown host 'claud' (did you mean 'claude'?)"),
    ],
    ids=" ".join,
)
def test_a_mistyped_command_says_the_nearest_and_exits_2(
    args: tuple[str, ...], said: str, tmp_path: Path
) -> None:
    done = run_rein(*args, cwd=tmp_path, home=tmp_path, stdin="")
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert done.stdout == ""  # no model session started


@pytest.mark.parametrize(
    "args",
    [
        ("fix", "the", "tests"),
        ("expert", "advice"),
        ("hello", "-p"),
        ("--", "sesions"),
        ("-p", "chek"),
        ("Sesions",),
    ],
    ids=" ".join,
)
def test_a_prompt_is_left_alone(args: tuple[str, ...]) -> None:
    assert mistyped(args, list(COMMANDS)) is None


def test_every_command_one_letter_off_is_caught() -> None:
    for command in COMMANDS:
        for typo in (command[:-1], command + command[-1], command[0] + command[2:]):
            if typo not in COMMANDS and len(typo) >= 3:
                assert mistyped([typo], list(COMMANDS)) == command, typo
