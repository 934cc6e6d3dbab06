"""git read as git reads it: aliases, abbreviations, configuration that forces, what git runs."""

from __future__ import annotations

import pytest

from tests.steering.bash.helpers import run, texts


@pytest.mark.parametrize(
    ("source", "meaning"),
    [
        ("git -c alias.p='push -f' p origin", "git -c alias.p=push -f push -f origin"),
        (
            "git -c alias.a=b -c alias.b='reset --hard' a",
            "git -c alias.a=b -c alias.b=reset --hard reset --hard",
        ),
        ("git config alias.x 'reset --hard'; git x", "git reset --hard"),
        ("git reset --har", "git reset --hard"),
        ("git clean --forc -d", "git clean --force -d"),
        (
            "git -c remote.origin.push=+refs/heads/*:refs/heads/* push",
            "git -c remote.origin.push=+refs/heads/*:refs/heads/* push --force",
        ),
        ("git -c remote.origin.mirror=true push", "git -c remote.origin.mirror=true push --mirror"),
        ("git -c clean.requireForce=false clean -d", "git -c clean.requireForce=false clean -d --force"),
        ("git config remote.origin.push '+main:main' && git push", "git push --force"),
        ("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.y GIT_CONFIG_VALUE_0='push -f' git y", "git push -f"),
        ("git -c alias.status='push -f' status", "git -c alias.status=push -f status"),  # a builtin wins
    ],
)
def test_git_reads_as_git_means_it(source: str, meaning: str) -> None:
    assert texts(run(source))[-1] == meaning


def test_an_alias_loop_ends() -> None:
    analysis = run("git -c alias.a=b -c alias.b=a a")
    assert analysis.understood and analysis.refs[-1].name == "git"


def test_a_shell_alias_runs_its_command_with_the_arguments() -> None:
    analysis = run("git -c alias.nuke='!rm -rf \"$1\"' nuke /")
    assert "rm -rf /" in texts(analysis)


@pytest.mark.parametrize(
    ("source", "inner"),
    [
        ("git rebase -x 'rm -rf /' main", "rm -rf /"),
        ("git rebase --exec='make test' main", "make test"),
        ("git bisect run rm -rf /", "rm -rf /"),
        ("git submodule foreach --recursive 'git reset --hard'", "git reset --hard"),
        ("git filter-branch --tree-filter 'rm -rf x' HEAD", "rm -rf x"),
        ("git difftool -x 'rm -rf /' HEAD", "rm -rf /"),
        ("git -c core.pager='rm -rf /' log", "rm -rf /"),
        ("GIT_SSH_COMMAND='rm -rf /' git fetch", "rm -rf /"),
        ("git clone --upload-pack='rm -rf /' x y", "rm -rf /"),
        ("git config core.pager 'rm -rf /'", "rm -rf /"),
        ("git config alias.p 'push --force'", "git push --force"),
        ("git config remote.origin.push +main:main", "git push --force"),
        ("git config clean.requireForce false", "git clean --force"),
    ],
)
def test_what_git_runs_is_checked(source: str, inner: str) -> None:
    assert inner in texts(run(source))


def test_config_rein_cannot_read_is_unknown() -> None:
    ref = run('git -c "$K=x" push').refs[0]
    assert ref.state and "push" in ref.text
    assert run('git config "$K" x; git p').refs[-1].unknown == (
        "git alias 'p' is set to a value not known statically",
    )


def test_plain_git_is_inert() -> None:
    for source in (
        "git status",
        "git log -S 'push --force'",
        "git commit -m 'rm -rf /'",
        "git config user.name x",
    ):
        assert [ref.kind for ref in run(source).refs] == ["inert"], source
