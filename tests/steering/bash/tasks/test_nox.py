"""The noxfile reader: sessions found by decorator, their session.run/install/notify calls in
source order, constants, posargs, helpers, default sessions and bad input."""

from __future__ import annotations

from rein.steering.bash.tasks import RUNTIME, TaskCommand, TaskPlan, nox_sessions
from tests.steering.bash.tasks.helpers import lines, scripts

R = RUNTIME

# Modeled on the noxfiles of nox itself, pip and urllib3.
NOXFILE = """\
from __future__ import annotations

import os

import nox
from nox import session

nox.options.sessions = ["lint", "tests"]
PYTHONS = ["3.11", "3.12"]
PYTEST_ARGS = ["-ra", "--strict-markers"]
PACKAGE = "mypkg"


def install_deps(session, extra):
    session.install("-e", f".[{extra}]")


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    install_deps(session, "test")
    session.run("pytest", *PYTEST_ARGS, *session.posargs)
    session.notify("coverage")


@nox.session
def lint(session):
    session.install("ruff")
    session.run("ruff", "check", PACKAGE, "--fix")


@nox.session(default=False)
def coverage(session):
    session.run("coverage", "combine")
    session.run("coverage", "report", env={"COVERAGE_FILE": ".coverage"})


@session(name="docs-build", default=False)
def docs(session):
    session.chdir("docs")
    session.run_always("sphinx-build", "-b", "html", ".", os.path.join("_build", "html"))


@nox.session(default=False)
def release(session):
    session.run("git", "push", "--force", "origin", session.posargs[0], external=True)
    if os.environ.get("CI"):
        session.run("twine", "upload", "dist/*")
"""


def test_listed_sessions_run_with_the_ones_they_notify() -> None:
    plan = nox_sessions(NOXFILE, None)
    assert scripts(plan) == [
        "pip install ruff",
        "ruff check mypkg --fix",
        f"pip install -e '.['\"{R}\"']'",  # `extra` is the helper's parameter: not followed
        f"pytest -ra --strict-markers {R}",
        "coverage combine",
        "coverage report",
    ]
    assert plan.commands[1] == TaskCommand(
        script="ruff check mypkg --fix", line=28, where="noxfile.py session lint", shell=""
    )
    assert plan.commands[2].line == 15  # in the helper the session calls
    assert plan.commands[-1].env == (("COVERAGE_FILE", ".coverage"),)


def test_sessions_by_name_and_python() -> None:
    assert scripts(nox_sessions(NOXFILE, ["tests-3.12"]))[1] == f"pytest -ra --strict-markers {R}"
    assert lines(nox_sessions(NOXFILE, ["docs-build"])) == [(40, f'sphinx-build -b html . "{R}"')]
    assert nox_sessions(NOXFILE, ["docs-build"]).commands[0].cwd == "docs"
    assert nox_sessions(NOXFILE, ["nope"]) == TaskPlan()


def test_run_time_arguments_and_conditional_commands() -> None:
    assert scripts(nox_sessions(NOXFILE, ["release"])) == [
        f'git push --force origin "{R}"',
        "twine upload 'dist/*'",
    ]


def test_default_sessions_without_options() -> None:
    text = NOXFILE.replace('nox.options.sessions = ["lint", "tests"]\n', "")
    assert [c.where for c in nox_sessions(text, None).commands] == [
        "noxfile.py session tests",
        "noxfile.py session tests",
        "noxfile.py session coverage",
        "noxfile.py session coverage",
        "noxfile.py session lint",
        "noxfile.py session lint",
    ]


def test_notify_cycles_and_helper_recursion_are_bounded() -> None:
    text = """\
import nox

def helper(session):
    helper(session)
    session.run("make")

@nox.session
def a(session):
    helper(session)
    session.notify("b")

@nox.session
def b(session):
    session.run("echo", "b")
    session.notify("a")
    session.notify(NAME)
"""
    plan = nox_sessions(text, ["a"])
    assert [c.script for c in plan.commands] == ["make", "echo b"]
    assert plan.unknown == ("noxfile.py session b notifies a session named at run time",)


def test_bad_input_is_unknown() -> None:
    assert nox_sessions("def (:\n", None).unknown[0].startswith("noxfile.py does not parse")
    assert nox_sessions("x = '\0'", None) == TaskPlan() or nox_sessions("x = '\0'", None).unknown
    assert nox_sessions("", None) == TaskPlan()
