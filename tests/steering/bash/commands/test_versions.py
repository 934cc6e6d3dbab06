"""Version managers and OS package managers: inert, except the subcommands and hooks that run a
command (`pyenv exec`, `mise x --`, `volta run`, `rustup run`, `brew bundle exec`, `apt-get -o
DPkg::Pre-Invoke::=...`)."""

from __future__ import annotations

import pytest

from rein.steering.bash.commands import kind_of
from tests.steering.bash.commands._runs import chains, inner
from tests.steering.conftest import Check

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"pyenv exec {PUSH}", [(PUSH, ("pyenv exec",))]),
        (f"rbenv exec {PUSH}; nodenv exec {PUSH}", [(PUSH, ("rbenv exec",)), (PUSH, ("nodenv exec",))]),
        (f"asdf exec {PUSH}", [(PUSH, ("asdf exec",))]),
        (f"asdf env nodejs {PUSH}", [(PUSH, ("asdf env",))]),
        (f"mise exec node@20 python@3.12 -- {PUSH}", [(PUSH, ("mise exec",))]),
        (f"mise x -- {PUSH}", [(PUSH, ("mise exec",))]),
        (f"mise exec -c '{PUSH}'", [(PUSH, ("mise exec",))]),
        (f"mise -C app x -j 2 node@20 -- {PUSH}", [(PUSH, ("mise exec",))]),
        (f"volta run --node 20 --env A=1 --bundled-npm {PUSH}", [(PUSH, ("volta run",))]),
        (f"rustup run stable {PUSH}", [(PUSH, ("rustup run",))]),
        (f"rustup +nightly -v run --install nightly {PUSH}", [(PUSH, ("rustup run",))]),
        (f"fnm exec --using=20 {PUSH}", [(PUSH, ("fnm exec",))]),
        (f"pipenv run {PUSH}", [(PUSH, ("pipenv run",))]),
        (f"pipenv --python 3.12 run --verbose {PUSH}", [(PUSH, ("pipenv run",))]),
        (f"brew bundle exec -- {PUSH}", [(PUSH, ("brew bundle exec",))]),
        (f"brew bundle exec --file=Brewfile {PUSH}", [(PUSH, ("brew bundle exec",))]),
        (f"brew sh --cmd='{PUSH}'", [(PUSH, ("brew sh",))]),
        (f"apt-get -o 'APT::Update::Pre-Invoke::={PUSH}' update", [(PUSH, ("apt-get -o",))]),
        (f"apt -o'DPkg::Post-Invoke::={PUSH}' install -y jq", [(PUSH, ("apt -o",))]),
        (f"apt-get --option='Dir::Bin::dpkg={PUSH}' install x", [(PUSH, ("apt-get -o",))]),
        (f"dpkg --pre-invoke='{PUSH}' -i x.deb", [(PUSH, ("dpkg",))]),
    ],
)
def test_the_runner_subcommands_run_their_command(
    source: str, expected: list[tuple[str, tuple[str, ...]]]
) -> None:
    assert chains(source) == expected


def test_nvm_exec_checks_every_suffix_after_the_optional_version() -> None:
    assert inner(f"nvm exec 20 {PUSH}") == [PUSH]
    assert inner(f"nvm exec {PUSH}") == [PUSH]


@pytest.mark.parametrize(
    "source",
    [
        "apt-get install -y nodejs npm",
        "apt install -y python3 python3-pip",
        "apt-get -o Dpkg::Options::=--force-confold install -y nginx",
        "brew install deno bun",
        "brew bundle install",
        "asdf install python 3.12.0",
        "mise use -g node@20",
        "mise exec node@20",
        "volta install serve",
        "rustup component add clippy",
        "pyenv install 3.12.1",
        "pipenv install --dev",
        "apt-cache policy nodemon",
        "dnf install -y entr",
        "pacman -S --noconfirm watchexec",
        "apk add --no-cache air",
        "dpkg -i x.deb",
    ],
)
def test_installing_a_package_runs_nothing_named_on_the_line(source: str) -> None:
    assert inner(source) == []


@pytest.mark.parametrize(
    ("name", "kind"),
    [("apt-cache", "inert"), ("dnf", "inert"), ("pacman", "inert"), ("brew", "runner"), ("pyenv", "runner")],
)
def test_package_managers_have_a_kind(name: str, kind: str) -> None:
    assert kind_of(name) == kind


@pytest.mark.parametrize(
    "source",
    [
        "sudo apt-get install -y nodejs npm",
        "brew install python node",
        "apt-get install -y php php-cli",
        "sudo apt install -y perl make gcc",
        "apt-get install -y bash zsh",
        "brew install entr",
        "apt install nodemon",
        "brew install watchexec",
        "apk add --no-cache air",
    ],
)
def test_installing_an_interpreter_or_a_watcher_is_allowed(check: Check, source: str) -> None:
    assert check(source).allow
