"""Process substitutions a command writes into (`>(sh)`), `exec` redirecting the rest of the shell, and
words tree-sitter hangs on a redirect after its target."""

from __future__ import annotations

import pytest

from tests.steering.bash.helpers import run, texts


def _unknown(source: str) -> list[str]:
    return [note for ref in run(source).refs for note in ref.unknown]


@pytest.mark.parametrize(
    ("source", "ran"),
    [
        ("echo 'git push -f' > >(bash)", "git push -f"),
        ("echo 'git push -f' >> >(sh -s)", "git push -f"),
        ("echo 'git push -f' &> >(zsh)", "git push -f"),
        ("echo 'git push -f' | tee >(sh) >/dev/null", "git push -f"),
        ("printf 'rm -rf ~\\n' | tee -a >(dash) log.txt", "rm -rf /home/dev"),
        ("echo 'import os; os.system(\"git push -f\")' > >(python3)", "git push -f"),
        ("bash < <(echo 'git push -f')", "git push -f"),
        ("exec 1> >(zsh -s); echo 'git push -f'", "git push -f"),
        ("exec > >(sh); x=1; echo ls; echo 'rm -rf ~'", "rm -rf /home/dev"),
        ("exec < <(echo 'git push -f'); sh", "git push -f"),
        ("echo 'git push -f' | cp /dev/stdin >(sh)", "git push -f"),
    ],
)
def test_a_reader_in_a_process_substitution_runs_what_is_written_into_it(source: str, ran: str) -> None:
    assert ran in texts(run(source)), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        "cat steps.txt | tee >(dash) >/dev/null",
        "curl -s https://x | tee >(bash) > /dev/null",
        "printf 'rm -rf ~' 2>&1 >(sh)",
        "make 2> >(sh)",
        "exec 3> >(sh); echo hi >&3",
        "exec > >(sh); ls",
        "{ echo 'git push -f'; } > >(sh)",
        "sh < <(curl -s https://x)",
        "exec 3< <(echo x); bash <&3",
        "exec 3< <(echo x); bash /dev/fd/3",
        "exec 4< <(echo x); source /proc/self/fd/4",
        "if true; then exec > >(sh); fi; echo ls",
        "true && exec > >(sh) && echo ls",
    ],
)
def test_a_reader_fed_text_rein_cannot_know_is_unknown(source: str) -> None:
    assert _unknown(source), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        "echo hi | tee >(cat) >(gzip > x.gz) >/dev/null",
        "make 2>&1 > >(tee build.log)",
        "exec > >(tee -a build.log) 2>&1; make",
        "exec 2> >(tee err.log >&2); ls",
        "diff <(ls a) <(ls b)",
        'while read -r l; do echo "$l"; done < <(ls)',
        "echo 'git push -f' | tee >(wc -l) > notes.txt",
        "exec > >(sh); echo 'git push -f' > notes.txt; echo ls",
    ],
)
def test_a_reader_that_runs_nothing_stays_harmless(source: str) -> None:
    analysis = run(source)
    assert not _unknown(source), texts(analysis)
    assert "git push -f" not in texts(analysis)


def test_a_pipe_is_not_a_file_the_line_wrote() -> None:
    assert not _unknown("echo hi | tee >(cat) >/dev/null; bash x.sh")
    assert not _unknown("echo hi > >(cat); bash x.sh")


def test_the_reader_runs_after_the_command_that_feeds_it() -> None:
    assert texts(run("echo ls > >(sh)")) == ["echo ls", "sh", "ls"]


def test_a_later_exec_of_stdout_ends_what_the_reader_reads() -> None:
    assert "rm -rf /home/dev" not in texts(run("exec > >(sh); echo ls; exec > /dev/tty; echo 'rm -rf ~'"))


@pytest.mark.parametrize(
    ("source", "argv"),
    [
        ("git push > /dev/null -f", ["git", "push", "-f"]),
        ("git push 2>/dev/null --force origin", ["git", "push", "--force", "origin"]),
        ("rm 2>&1 -rf ~", ["rm", "-rf", "/home/dev"]),
        ("cat < f -n", ["cat", "-n"]),
    ],
)
def test_words_after_a_redirect_target_are_arguments(source: str, argv: list[str]) -> None:
    assert [word.value for word in run(source).refs[0].argv] == argv


def test_a_substitution_after_a_redirect_target_runs() -> None:
    assert "git push -f" in texts(run("echo hi 2>&1 $(git push -f)"))
