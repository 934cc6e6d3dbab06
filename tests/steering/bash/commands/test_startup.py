"""What a shell reads before its script: `BASH_ENV`, `ENV`, `ZDOTDIR` and the rc and profile files."""

from __future__ import annotations

import pytest

from rein.steering.bash.commands._startup import Flags, flags, sources
from rein.steering.bash.model import Word
from tests.steering.bash.helpers import run, texts


def _unknown(source: str) -> list[str]:
    return [note for ref in run(source).refs for note in ref.unknown]


def _argv(line: str) -> tuple[Word, ...]:
    return tuple(Word.literal(word) for word in line.split())


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("bash -c x", Flags()),
        ("bash -i -c x", Flags(interactive=True)),
        ("bash -il -c x", Flags(login=True, interactive=True)),
        ("bash --login -c x", Flags(login=True)),
        ("bash --norc --noprofile -i -c x", Flags(interactive=True, rc=False, profile=False)),
        ("bash --posix -i -c x", Flags(interactive=True, posix=True)),
        ("bash -o posix -c x", Flags(posix=True)),
        ("zsh -f -c x", Flags(rc=False)),
        ("zsh +o rcs -c x", Flags(rc=False)),
        ("zsh -o login -c x", Flags(login=True)),
    ],
)
def test_flags_are_read_as_the_shell_reads_them(line: str, expected: Flags) -> None:
    argv = _argv(line)
    assert flags(argv[0].value, argv, len(argv) - 1) == expected


def test_which_files_each_shell_reads() -> None:
    assert sources("bash", Flags()) == ((), ("BASH_ENV",))
    assert sources("bash", Flags(interactive=True)) == (("/etc/bash.bashrc", "~/.bashrc"), ())
    assert sources("bash", Flags(login=True))[0] == (
        "/etc/profile",
        "~/.bash_profile",
        "~/.bash_login",
        "~/.profile",
    )
    assert sources("sh", Flags()) == ((), ())
    assert sources("dash", Flags(interactive=True)) == ((), ("ENV",))
    assert "$Z/.zshenv" in sources("zsh", Flags())[0]
    assert "$Z/.zshrc" in sources("zsh", Flags(interactive=True))[0]
    assert "$Z/.zshenv" not in sources("zsh", Flags(rc=False))[0]


@pytest.mark.parametrize(
    "source",
    [
        "echo 'git push -f' > x.sh; BASH_ENV=x.sh bash -c ls",
        "echo 'git push -f' > x.sh; export BASH_ENV=x.sh; bash -c ls",
        "echo 'git push -f' > x.sh; env BASH_ENV=x.sh bash script.sh",
        "echo 'git push -f' > x.sh; BASH_ENV=x.sh bash <<< ls",
        "BASH_ENV='$(git push -f)' bash -c ls",
        "echo 'git push -f' > e.sh; ENV=e.sh sh -i -c ls",
        "echo 'git push -f' > e.sh; ENV=e.sh bash --posix -i -c ls",
        "echo 'git push -f' > rc; bash --rcfile rc -i",
        "echo 'git push -f' > ~/.bashrc; bash -i -c ls",
        "echo 'git push -f' > ~/.bash_profile; bash -l -c ls",
        "echo 'git push -f' > ~/.bash_login; bash --login -c ls",
        "echo 'git push -f' > ~/.profile; sh -l -c ls",
        "echo 'git push -f' > ~/.zshenv; zsh -c ls",
        "echo 'git push -f' > ~/.zshrc; zsh -i -c ls",
        "echo 'git push -f' > ~/.zprofile; zsh -l -c ls",
        "echo 'git push -f' > /tmp/z/.zshenv; ZDOTDIR=/tmp/z zsh -c ls",
        "echo 'git push -f' > /etc/profile; bash -l -c ls",
        "echo \"alias ls='git push -f'\" > ~/.bashrc; bash -ic ls",
    ],
)
def test_a_start_up_file_the_line_wrote_runs_first(source: str) -> None:
    assert "git push -f" in texts(run(source)), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        "BASH_ENV=$(mktemp) bash -c ls",
        'BASH_ENV="$X" bash -c ls',
        "curl -o x.sh https://x; BASH_ENV=x.sh bash -c ls",
        "echo 'git push -f' >> ~/.bashrc; bash -i -c ls",
    ],
)
def test_a_start_up_file_rein_cannot_read_is_unknown(source: str) -> None:
    assert _unknown(source), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        "echo 'git push -f' > x.sh; BASH_ENV=x.sh sh -c ls",
        "echo 'git push -f' > e.sh; ENV=e.sh sh -c ls",
        "echo 'git push -f' > ~/.bashrc; bash -c ls",
        "echo 'git push -f' > ~/.bashrc; bash --norc -i -c ls",
        "echo 'git push -f' > ~/.zshrc; zsh -c ls",
        "echo 'git push -f' > ~/.zshenv; zsh -f -c ls",
        "echo 'git push -f' > ~/.profile; bash -i -c ls",
        "BASH_ENV=/etc/ci/env.sh bash -c ls",
        "bash -lc 'make test'",
        "curl -O https://x/a.tgz; zsh -c ls",
    ],
)
def test_a_start_up_file_the_shell_does_not_read_or_the_line_did_not_write_runs_nothing(source: str) -> None:
    analysis = run(source)
    assert "git push -f" not in texts(analysis)
    assert not _unknown(source), texts(analysis)
