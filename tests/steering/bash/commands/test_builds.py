"""Build, test and monorepo tools that run a command from the line: `go -exec`/`-toolexec` (and
GOFLAGS), `mvn exec:exec`, `tox exec`/`-x commands`, `lerna exec`, `nx exec`, `firebase emulators:exec`."""

from __future__ import annotations

import pytest

from tests.steering.bash.commands._runs import chains, inner, unknown
from tests.steering.bash.helpers import run

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"go test -exec '{PUSH}' ./...", [(PUSH, ("go -exec",))]),
        (f"go run --exec='{PUSH}' .", [(PUSH, ("go -exec",))]),
        (f"go build -toolexec '{PUSH}' ./...", [(PUSH, ("go -toolexec",))]),
        (f"GOFLAGS=\"-toolexec='{PUSH}'\" go build", [(PUSH, ("go -toolexec",))]),
        (f"go env -w GOFLAGS=\"-exec='{PUSH}'\"", [(PUSH, ("go -exec",))]),
        ("mvn exec:exec -Dexec.executable=git -Dexec.args='push -f'", [(PUSH, ("mvn exec:exec",))]),
        ("mvn -q exec:exec@run -D exec.executable=git -D exec.args='push -f'", [(PUSH, ("mvn exec:exec",))]),
        (
            "./mvnw org.codehaus.mojo:exec-maven-plugin:3.1.0:exec -Dexec.executable=git",
            [("git", ("mvn exec:exec",))],
        ),
        (f"tox exec -e py -- {PUSH}", [(PUSH, ("tox exec",))]),
        (f"tox -e py exec -- {PUSH}", [(PUSH, ("tox exec",))]),
        (f"tox -x 'testenv:py.commands={PUSH}'", [(PUSH, ("tox -x",))]),
        (f"tox --override=testenv.commands_pre+='{PUSH}' -e py", [(PUSH, ("tox -x",))]),
        (f"lerna exec --stream --scope web -- {PUSH}", [(PUSH, ("lerna exec",))]),
        (f"nx exec --projects web -- {PUSH}", [(PUSH, ("nx exec",))]),
        (f"firebase emulators:exec '{PUSH}'", [(PUSH, ("firebase emulators:exec",))]),
        (
            f"firebase --project p emulators:exec --only functions,firestore '{PUSH}'",
            [(PUSH, ("firebase emulators:exec",))],
        ),
    ],
)
def test_the_command_a_build_tool_is_given_runs(
    source: str, expected: list[tuple[str, tuple[str, ...]]]
) -> None:
    assert chains(source) == expected


def test_a_go_env_setting_runs_later() -> None:
    (later,) = [ref for ref in run(f"go env -w GOFLAGS=\"-exec='{PUSH}'\"").refs if ref.wrappers]
    assert later.text == PUSH


def test_without_dashdash_lerna_and_tox_check_every_suffix() -> None:
    assert inner(f"lerna exec --concurrency 1 {PUSH}") == [PUSH]
    assert inner(f"tox exec -e py {PUSH}") == [PUSH]


@pytest.mark.parametrize(
    "source",
    [
        "go test ./...",
        "go build -o bin/app ./cmd/app",
        "go run . --port 8080",
        "mvn -q package",
        "mvn exec:java -Dexec.mainClass=com.x.Main",
        "mvn exec:exec",
        "tox -e py311",
        "lerna run build",
        "nx run-many -t build",
        "firebase deploy --only hosting",
    ],
)
def test_building_and_testing_run_nothing_from_the_line(source: str) -> None:
    assert inner(source) == []


def test_a_dynamic_command_is_unknown() -> None:
    assert unknown('go test -exec "$RUNNER" ./...')
    assert unknown('mvn exec:exec -Dexec.executable=git -Dexec.args="$ARGS"')
