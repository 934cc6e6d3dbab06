"""The tree-sitter wrapper: built lazily, fed only bytes it handles safely, errors turned into problems."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rein.steering.bash._parse import parse, syntax_problems
from tests.steering.bash.helpers import run


def test_problem_snippets_are_short() -> None:
    (problem,) = run("if " + "a" * 100).problems
    assert problem.endswith("...'") and len(problem) < 80


def test_importing_loads_no_grammar_and_builds_no_parser() -> None:
    code = (
        "import sys, rein.steering.bash as b, rein.steering.bash._parse as p; "
        "print([m for m in sys.modules if m.startswith('tree_sitter')], hasattr(p._local, 'parser'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[] False"


def test_code_points_that_crash_the_scanner_are_harmless() -> None:
    """tree-sitter-bash's scanner indexes C ctype tables with code points; past 255 that reads out of
    bounds and, for `{` then U+E0000, crashes the process about half of the time. Run it in a child."""
    code = (
        "from rein.steering.bash import analyze\n"
        "for _ in range(1000):\n"
        "    for text in ('{\\U000e0000', 'a{\\U0010ffff}', '{\\U000f0000 x', 'echo {\\U00105780'):\n"
        "        analyze(text, cwd='/', home='/')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-500:]


def test_the_parser_only_ever_sees_ascii() -> None:
    root = parse("{\U000e0000 é".encode())
    assert root.text == b"{xxxx xx"
    assert root.children[0].end_byte == len("{\U000e0000 é".encode())


def test_syntax_problems_are_capped_and_located() -> None:
    src = b"a )\nb )\nc )\nd )"
    problems = syntax_problems(parse(src), src, " in the 'x' string")
    assert problems == [
        "could not parse near line 1, column 3 in the 'x' string: ')'",
        "could not parse near line 2, column 3 in the 'x' string: ')'",
        "could not parse near line 3, column 3 in the 'x' string: ')'",
    ]
    assert syntax_problems(parse(b"ls"), b"ls") == []


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ('for d in */; do (cd "$d" && git push) done', ["cd", "git"]),
        ("{ while true; do date; done } | cat", ["true", "date", "cat"]),
        ("if (true) then rm -rf build; fi", ["true", "rm"]),
        ("{ if true; then make; fi }", ["true", "make"]),
        ("exec 3<>notes.txt; cat <&3", ["exec", "cat"]),
        ("cat <<'EOF' | bash\ngit push", ["cat", "bash", "git"]),
    ],
)
def test_what_bash_takes_and_tree_sitter_does_not(line: str, names: list[str]) -> None:
    """bash runs these as written (an unterminated here-document ends at the end of the input);
    tree-sitter-bash needs a `;` before the second reserved word, a plain `>`, the end line."""
    analysis = run(line)
    assert not analysis.problems
    assert [ref.name for ref in analysis.refs] == names
    assert not parse(b'echo "a) done"').has_error


def test_a_repair_that_leaves_an_error_is_not_taken() -> None:
    assert run("(cd x) done; if").problems
