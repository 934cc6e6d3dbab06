"""xargs reads its input as GNU xargs does: `-I` puts whole lines in, `-0`/`-d` split on the delimiter
only, `-n`/`-L` group the arguments into commands."""

from __future__ import annotations

import shlex

import pytest

from rein.steering.bash.commands._xargs import delimiter
from tests.steering.bash.commands._runs import inner
from tests.steering.bash.helpers import run


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("echo 'rm -rf ~' | xargs -I{} sh -c {}", ["sh -c 'rm -rf ~'", "rm -rf /home/dev"]),
        ("echo 'push -f' | xargs -I{} sh -c 'git {}'", ["sh -c 'git push -f'", "git push -f"]),
        ("echo '-rf /' | xargs -I{} sh -c 'rm {}'", ["sh -c 'rm -rf /'", "rm -rf /"]),
        ("xargs -I CMD sh -c CMD <<< 'git reset --hard'", ["sh -c 'git reset --hard'", "git reset --hard"]),
        ("echo '  \"a b\"' | xargs -i echo {}", ["echo 'a b'"]),
        ("echo a b | xargs --replace=@ echo @", ["echo 'a b'"]),
        ("printf 'a\\nb\\n' | xargs -I{} echo {} {}", ["echo a a", "echo b b"]),
        ("printf 'git push -f\\n' | xargs -d '\\n' -n1 bash -c", ["bash -c 'git push -f'", "git push -f"]),
        ("printf 'a b\\0c\\0' | xargs -0 echo", ["echo 'a b' c"]),
        ("printf 'a b\\0c\\0' | xargs -0 -n1 echo", ["echo 'a b'", "echo c"]),
        ("echo a b c | xargs -n 2 echo", ["echo a b", "echo c"]),
        ("printf 'a b\\nc\\n' | xargs -L1 echo", ["echo a b", "echo c"]),
        ("echo \"'a b' c\" | xargs echo", ["echo 'a b' c"]),
        ("printf 'a,b' | xargs -d, echo", ["echo a b"]),
        ("echo 'git push -f' > c.txt; xargs -a c.txt -I{} sh -c {}", ["sh -c 'git push -f'", "git push -f"]),
    ],
)
def test_xargs_builds_the_commands_from_what_it_reads(source: str, expected: list[str]) -> None:
    argvs = [[word.value for word in ref.argv] for ref in run(source).refs if ref.wrappers]
    assert argvs == [shlex.split(line) for line in expected]


def test_a_file_written_then_piped_is_read() -> None:
    assert "git push -f" in inner("echo 'git push -f' > x.sh; cat x.sh | xargs -I{} sh -c '{}'")


def test_input_rein_cannot_read_is_an_argument_known_at_run_time() -> None:
    shell = run("xargs -I{} sh -c 'git {}' < cmds.txt").refs[1]
    assert shell.text == "sh -c git {}" and shell.argv[-1].dynamic
    assert shell.unknown == ("sh -c command is dynamic: git {}",)
    assert [ref.text for ref in run("cat cmds.txt | xargs -0 bash -c").refs if ref.wrappers] == ["bash -c {}"]


def test_an_unmatched_quote_is_input_rein_cannot_read() -> None:
    (ref,) = [ref for ref in run('echo "it\'s" | xargs echo').refs if ref.wrappers]
    assert ref.argv[-1].dynamic


@pytest.mark.parametrize(
    ("text", "char"),
    [
        (",", ","),
        ("\\n", "\n"),
        ("\\t", "\t"),
        ("\\\\", "\\"),
        ("\\012", "\n"),
        ("\\x0a", "\n"),
        ("ab", None),
    ],
)
def test_a_delimiter_is_read_as_xargs_reads_it(text: str, char: str | None) -> None:
    assert delimiter(text) == char
