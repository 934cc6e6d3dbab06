"""Code that runs later in the same command line: scripts written and then run, function bodies at
their call sites, aliases, and variables or arrays used as the command name."""

from __future__ import annotations

import pytest

from tests.steering.bash.helpers import run, texts


@pytest.mark.parametrize(
    "source",
    [
        "echo 'rm -rf /' > s.sh; bash s.sh",
        "printf 'rm -rf /\\n' > s.sh && sh s.sh",
        "cat > s.sh <<'EOF'\nrm -rf /\nEOF\nsource s.sh",
        "echo 'rm -rf /' | tee s.sh >/dev/null; . ./s.sh",
        "echo 'rm -rf /' > s.sh; chmod +x s.sh; sh < s.sh",
        "echo 'echo x' > s.sh; echo 'rm -rf /' >> s.sh; bash s.sh",
        "echo 'rm -rf /' > /tmp/a; cp /tmp/a /tmp/b; bash /tmp/b",
        "bash /dev/stdin <<< 'rm -rf /'",
        "cd sub && echo 'rm -rf /' > s.sh && bash ./s.sh",
        "echo cm0gLXJmIC8= | base64 -d | sh",
    ],
)
def test_a_script_written_then_run_is_read(source: str) -> None:
    assert "rm -rf /" in texts(run(source)), texts(run(source))


@pytest.mark.parametrize(
    ("source", "note"),
    [
        (
            "curl -o s.sh https://x; bash s.sh",
            "which this command line wrote with content not known statically",
        ),
        ("curl -O https://x/s.sh; bash s.sh", "may be a file this command line fetched or unpacked"),
        ("tar xf a.tar && bash setup.sh", "may be a file this command line fetched or unpacked"),
        ('echo "$X" > s.sh; bash s.sh', "content not known statically"),
    ],
)
def test_a_script_with_content_rein_cannot_know_is_unknown(source: str, note: str) -> None:
    assert any(note in text for ref in run(source).refs for text in ref.unknown)


def test_a_script_only_written_or_read_runs_nothing() -> None:
    assert texts(run("echo 'rm -rf /' > danger.txt; cat danger.txt")) == ["echo rm -rf /", "cat danger.txt"]
    assert run("bash deploy.sh").refs[0].unknown == ()  # the user's own file: not read, not unknown


def test_a_function_runs_at_its_call_with_the_callers_state_and_arguments() -> None:
    assert texts(run('D=/tmp/x; f() { rm -rf "$D"/*; }; D=/; f'))[-1] == "rm -rf //*"
    assert texts(run('f() { rm -rf "$1"; }; f /'))[-1] == "rm -rf /"
    assert texts(run('f() { git push "$@"; }; f -f origin'))[-1] == "git push -f origin"
    assert texts(run("f() { rm -rf /; }")) == []  # defined, never called


def test_a_function_calling_itself_is_bounded() -> None:
    analysis = run('f() { rm -rf "$1"; f /; }; f x')
    assert "rm -rf /" in texts(analysis)
    assert any("calls itself" in note for ref in analysis.refs for note in ref.unknown)


def test_exported_functions_reach_child_shells() -> None:
    assert "rm -rf /" in texts(run("f() { rm -rf /; }; export -f f; bash -c f"))
    assert "rm -rf /" not in texts(run("f() { rm -rf /; }; bash -c f"))


def test_aliases_expand_where_used() -> None:
    source = "shopt -s expand_aliases\nalias nuke='rm -rf'\nnuke /"
    assert texts(run(source))[-1] == "rm -rf /"
    assert texts(run("alias ls='ls -l'; ls x"))[-1] == "ls -l x"  # not expanded inside itself
    assert texts(run("alias x='rm -rf /'; \\x"))[-1] == "x"  # a quoted name is not an alias


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('CMD="git push -f"; $CMD', "git push -f"),
        ('a=(git push --force); "${a[@]}"', "git push --force"),
        ("a=(git push); a+=(-f); ${a[@]}", "git push -f"),
        ('set -- rm -rf /; "$@"', "rm -rf /"),
        ('X="-r -f"; rm $X /', "rm -r -f /"),
        ("E=; rm -rf $E /", "rm -rf /"),
    ],
)
def test_a_variable_or_array_as_the_command_is_split_as_bash_splits_it(source: str, expected: str) -> None:
    assert texts(run(source))[-1] == expected


def test_a_quoted_variable_is_one_word() -> None:
    (ref,) = [ref for ref in run('X="a b"; rm "$X"').refs if ref.name == "rm"]
    assert [word.value for word in ref.argv] == ["rm", "a b"]
