"""Heredoc lines tree-sitter-bash misreads: rewritten in an equivalent shape it reads, so the command
is understood and its body still read where a shell or interpreter reads it."""

from __future__ import annotations

import pytest

from rein.steering.bash._heredocs import lift, misread
from rein.steering.bash._parse import parse
from tests.steering.bash.helpers import run, texts


@pytest.mark.parametrize(
    ("source", "lifted"),
    [
        ("cmd <<EOF 2>&1 | tail\nx\nEOF", "cmd  2>&1  <<EOF | tail\nx\nEOF\n"),
        ("cmd <<EOF > f; next\nx\nEOF", "cmd  > f <<EOF \nx\nEOF\n next\n"),
        ("cmd <<EOF >f &\nx\nEOF", "{ cmd  >f  <<EOF \nx\nEOF\n} &\n"),
        ("cat <<A && cat <<B\na\nA\nb\nB", "{ cat   <<A \na\nA\n} && cat  <<B \nb\nB\n"),
        ("bash <<EOF x.sh\necho hi\nEOF", "bash  x.sh <<EOF \necho hi\nEOF\n"),
        ("cmd <<A <<B\na\nA\nb\nB", "cmd   <<B \nb\nB\n"),  # the first body is no stdin and expands nothing
        ("cmd <<A 3<<B\n$(x)\nA\n$(y)\nB", 'cmd  3<"$(y)" <<A \n$(x)\nA\n'),
        ("cmd <<-EOF 2>&1 | tail\n\tx\n\tEOF", "cmd  2>&1  <<-EOF | tail\n\tx\n\tEOF\n"),
    ],
)
def test_a_heredoc_line_is_rewritten_as_bash_reads_it(source: str, lifted: str) -> None:
    assert misread(parse(source.encode()))
    assert lift(source.encode()) == lifted.encode()


@pytest.mark.parametrize(
    "source",
    [
        "cmd <<EOF\nx",  # no marker line: bash reads to the end, rein does not guess
        "cmd <<EOF <<<x\ny\nEOF",  # a later stdin redirect wins: not moved past it
        "x=$(cat <<EOF)\ny\nEOF",
        "cmd 'a <<EOF",
        "echo no heredoc",
    ],
)
def test_what_rein_does_not_rewrite_stays_as_it_was(source: str) -> None:
    assert lift(source.encode()) is None


def test_operators_in_quotes_arithmetic_and_comments_are_no_heredocs() -> None:
    assert lift(b"echo '<<EOF' $((1 << 2)) \"<<X\" # <<Y\n") is None


@pytest.mark.parametrize(
    ("source", "commands"),
    [
        ("python3 - <<EOF 2>&1 | tail -5\nprint(1)\nEOF", ["python3 -", "tail -5"]),
        ("cmd <<'EOF' > out.txt 2>&1\nx\nEOF", ["cmd"]),
        ("cmd 2>&1 <<EOF | grep x\nx\nEOF", ["cmd", "grep x"]),
        ("cat <<A && cat <<B\na\nA\nb\nB", ["cat", "cat"]),
        ("cmd <<EOF && next\nx\nEOF", ["cmd", "next"]),
        ("cmd <<-EOF 2>&1 | tail\n\tx\n\tEOF", ["cmd", "tail"]),
        ("cmd <<EOF > f; next\nx\nEOF", ["cmd", "next"]),
        ("nohup cmd <<EOF > log 2>&1 &\nx\nEOF", ["nohup cmd", "cmd"]),
        ("x=$(cmd <<EOF 2>&1 | tail\nx\nEOF\n)", ["cmd", "tail"]),
    ],
)
def test_every_arrangement_bash_accepts_is_understood(source: str, commands: list[str]) -> None:
    analysis = run(source)
    assert analysis.understood, analysis.problems
    assert texts(analysis) == commands


@pytest.mark.parametrize(
    "source",
    [
        "bash <<EOF 2>&1 | tail\ngit push -f\nEOF",
        "cat <<EOF 2>&1 | sh\ngit push -f\nEOF",
        "python3 - <<EOF 2>&1 | tail\nimport os\nos.system('git push -f')\nEOF",
        "cat <<A && bash <<B\necho\nA\ngit push -f\nB",
        "bash <<EOF > log 2>&1 &\ngit push -f\nEOF",
        "cat <<EOF 2>&1 | tail\n$(git push -f)\nEOF",
        "cat <<EOF 3<<X\nhi\nEOF\n$(git push -f)\nX",
        "bash <<-EOF 2>&1 | tail\n\tgit push -f\n\tEOF",
        "bash <<EOF > f; git push -f\necho\nEOF",
    ],
)
def test_the_body_is_still_read_where_it_runs(source: str) -> None:
    assert "git push -f" in texts(run(source))


def test_words_after_the_marker_are_the_commands() -> None:
    analysis = run("echo 'git push -f' > x.sh; bash <<EOF x.sh\necho hi\nEOF")
    assert "git push -f" in texts(analysis) and "echo hi" not in texts(analysis)


def test_the_last_stdin_redirect_wins() -> None:
    assert "git push -f" in texts(run("bash <<<x <<EOF\ngit push -f\nEOF"))
