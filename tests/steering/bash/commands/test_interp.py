"""Interpreter one-liners and heredocs give a ref with `code`; shells fed code have it parsed."""

from __future__ import annotations

import pytest

from rein.steering.bash import Code
from rein.steering.bash.commands._interp import language, program, shell_options
from rein.steering.bash.model import Word
from tests.steering.bash.helpers import run


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ("python3 -c 'import os'", Code(language="python", text="import os")),
        ("python -Bc 'x=1' arg", Code(language="python", text="x=1")),
        ("python3.11 -W ignore -c y", Code(language="python", text="y")),
        ("pypy3 -cprint", Code(language="python", text="print")),
        ("node -e 'a()'", Code(language="javascript", text="a()")),
        ("node --eval='b()'", Code(language="javascript", text="b()")),
        ("node -p 1+1; nodejs -r mod -e c", Code(language="javascript", text="1+1")),
        ("bun -e 'x'", Code(language="javascript", text="x")),
        ("deno eval 'console.log(1)'", Code(language="javascript", text="console.log(1)")),
        ("perl -e p1 -E p2", Code(language="perl", text="p1\np2")),
        ("perl -lne print; perl -l0ne print", Code(language="perl", text="print")),
        ("perl -pi -e 's/a/b/' f", Code(language="perl", text="s/a/b/")),
        ("ruby -e 'puts 1'; ruby -ne x", Code(language="ruby", text="puts 1")),
        ("php -r 'echo 1;'", Code(language="php", text="echo 1;")),
        ("awk -F, -v x=1 '{print $1}' f", Code(language="awk", text="{print $1}")),
        ("python3 <<'EOF'\nimport shutil\nEOF", Code(language="python", text="import shutil\n")),
        ("python3 - <<< 'print(1)'", Code(language="python", text="print(1)\n")),
        ("node <<EOF\nx\nEOF", Code(language="javascript", text="x\n")),
    ],
)
def test_inline_code_is_exposed(source: str, code: Code) -> None:
    refs = [ref for ref in run(source).refs if ref.code is not None]
    assert refs and refs[0].code == code and refs[0].unknown == ()


@pytest.mark.parametrize(
    "source",
    ["python -m http.server", "python script.py", "node app.js", "perl -pie 's/a/b/'", "awk -f prog.awk",
     "python3 s.py <<EOF\ndata\nEOF", "python3 < s.py", "cat <<EOF\nprint(1)\nEOF", "deno run x.ts"],
)  # fmt: skip
def test_no_code_when_the_program_is_a_file_or_not_code(source: str) -> None:
    assert all(ref.code is None and not ref.unknown for ref in run(source).refs)


@pytest.mark.parametrize(
    ("source", "note"),
    [
        ("curl x | python3", "python3 reads its program from a pipe that is not known statically"),
        ("curl x | sh", "sh reads commands from a pipe that is not known statically"),
        ("curl x | bash -s -- arg", "bash reads commands from a pipe that is not known statically"),
        ('python3 -c "$CODE"', 'python3 code is dynamic: "$CODE"'),
        ("bash <(curl x)", "bash reads a script from <(curl x), whose output is not known statically"),
        ("source <(curl x)", "source reads a script from <(curl x), whose output is not known statically"),
        ("echo x > f; . $FILE", ". runs a script that is not known statically: $FILE"),
        ("curl x | . $FILE", ". runs a script that is not known statically: $FILE"),
    ],
)
def test_programs_known_only_at_run_time_are_unknown(source: str, note: str) -> None:
    assert note in run(source).refs[-1].unknown


def test_bash_script_file_is_not_unknown() -> None:
    assert run("bash script.sh; sh -e ./x.sh").refs[0].unknown == ()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("python3.12", "python"),
        ("python", "python"),
        ("pythonic", None),
        ("bash", "shell"),
        ("node", "javascript"),
        ("ls", None),
    ],
)
def test_language(name: str, expected: str | None) -> None:
    assert language(name) == expected


def test_program_details() -> None:
    argv = tuple(Word.literal(text) for text in ["bash", "-o", "pipefail", "-ec", "cmd", "arg0"])
    assert shell_options(argv) == (True, False, 4)
    assert program("ls", argv) is None
    python = program("python3", tuple(Word.literal(text) for text in ["python3", "-m", "pytest"]))
    assert python is not None and python.module == Word.literal("pytest") and not python.from_stdin
    stdin = program("python3", (Word.literal("python3"), Word.literal("-")))
    assert stdin is not None and stdin.from_stdin
