"""Editors and debuggers: vim's Ex commands that run a shell command (from `-c`, `+cmd`, `--cmd`, ex
mode's stdin, a file the line wrote), `ed`'s `!`, gdb's `shell`/`!`/`pipe`/`python`/`--args`."""

from __future__ import annotations

import pytest

from tests.steering.bash.commands._runs import chains, inner, unknown

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"vim -c '!{PUSH}' -c q", [(PUSH, ("vim",))]),
        (f"vim '+!{PUSH}' f", [(PUSH, ("vim",))]),
        (f"vim --cmd ':silent !{PUSH}' f", [(PUSH, ("vim",))]),
        (f"vim -c 'set nu|!{PUSH}' f", [(PUSH, ("vim",))]),
        (f"vim -c 'r !{PUSH}' f", [(PUSH, ("vim",))]),
        (f"vim -c 'w !{PUSH}' f", [(PUSH, ("vim",))]),
        (f"vim -c '%!{PUSH}' f", [(PUSH, ("vim",))]),
        (f"vim -c \"'<,'>!{PUSH}\" f", [(PUSH, ("vim",))]),
        (f"vim -c 'terminal {PUSH}'", [(PUSH, ("vim",))]),
        (f"vim -c 'call system(\"{PUSH}\")' -c q", [(PUSH, ("vim",))]),
        (f"vim -c 'exe \"!{PUSH}\"'", [(PUSH, ("vim",))]),
        (f"vim -c 'py3 import os; os.system(\"{PUSH}\")'", [(PUSH, ("vim",))]),
        (f"nvim --headless -c 'lua os.execute(\"{PUSH}\")' -c q", [(PUSH, ("nvim",))]),
        (f"vi -c '!{PUSH}' f", [(PUSH, ("vi",))]),
        (f"ex -sc '!{PUSH}' f", [(PUSH, ("ex",))]),
        (f"ex -s f <<< '!{PUSH}'", [(PUSH, ("ex",))]),
        (f"vim -es f <<< '!{PUSH}'", [(PUSH, ("vim",))]),
        (f"vim -Es -c '!{PUSH}'", [(PUSH, ("vim",))]),
        (f"printf '!{PUSH}\\n' > s.vim && vim -S s.vim f", [(PUSH, ("vim",))]),
        (f"vim --remote-send ':!{PUSH}<CR>'", [(PUSH, ("vim",))]),
        (f"ed -s f <<< '!{PUSH}'", [(PUSH, ("ed",))]),
        (f"ed -s f <<< $'1,$w !{PUSH}\\nq'", [(PUSH, ("ed",))]),
        (f"ed -s f <<< 'g/x/!{PUSH}'", [(PUSH, ("ed",))]),
        (f"ed '!{PUSH}'", [(PUSH, ("ed",))]),
        (f"gdb -batch -ex 'shell {PUSH}'", [(PUSH, ("gdb",))]),
        (f"gdb -batch -ex '!{PUSH}'", [(PUSH, ("gdb",))]),
        (f"gdb -batch --eval-command='pipe info x | {PUSH}'", [(PUSH, ("gdb",))]),
        (f"gdb -batch -ex 'python import os; os.system(\"{PUSH}\")'", [(PUSH, ("gdb",))]),
        (f"gdb -batch -ex run --args {PUSH}", [(PUSH, ("gdb --args",))]),
        (f"printf 'shell {PUSH}\\n' > c.gdb && gdb -batch -x c.gdb", [(PUSH, ("gdb",))]),
    ],
)
def test_a_shell_command_of_the_editor_runs(source: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert chains(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "vim file.txt",
        "vim +10 file.txt",
        "vim '+/pattern' file.txt",
        "vim -c 'set ft=python' -c wq file.py",
        "vim -c '%s/foo/bar/g' -c 'wq' file.txt",
        "vim -c 'w! out.txt' -c q f",
        "ex -sc '%s/a/b/g|x' file.txt",
        "ed -s file.txt <<< $'1d\\nw\\nq'",
        f"vim -Z -c '!{PUSH}'",
        f"ed -r f <<< '!{PUSH}'",
        f"rvim -c '!{PUSH}'",
        "gdb -batch -ex run -ex bt ./a.out",
        "gdb -batch -ex 'python print(1)'",
    ],
)
def test_editing_runs_nothing(source: str) -> None:
    assert inner(source) == [] and not unknown(source)


def test_a_system_call_built_at_run_time_is_unknown() -> None:
    assert unknown("vim -c 'call system(g:cmd)'")
