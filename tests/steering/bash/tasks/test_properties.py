"""Properties every reader keeps: any text gives a plan, never an exception, and the public surface
is what `__all__` says."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rein.steering.bash import tasks
from rein.steering.bash.tasks import (
    TaskPlan,
    just_recipe,
    mise_task,
    nox_sessions,
    poe_task,
    taskfile_task,
    tox_commands,
)

Reader = Callable[[str], TaskPlan]

READERS: dict[str, Reader] = {
    "just": lambda text: just_recipe(text, "a", ["1", None], {"x.just": text}),
    "just-default": lambda text: just_recipe(text, None, []),
    "taskfile": lambda text: taskfile_task(text, "a", {"./x": text}),
    "tox-ini": lambda text: tox_commands(text, None, "ini"),
    "tox-toml": lambda text: tox_commands(text, ["a"], "toml"),
    "tox-pyproject": lambda text: tox_commands(text, None, "pyproject"),
    "nox": lambda text: nox_sessions(text, None),
    "poe": lambda text: poe_task(text, "a", ["x"], {"x.toml": text}),
    "mise": lambda text: mise_task(text, "a", [None], {"s.sh": text}),
}

PIECES = {
    "just": [
        "a", "b p='1' *r", ":", " := ", "\n", "  ", "\t", "{{", "}}", "'x'", '"y"', "`cmd`", "(", ")", "@",
        "-", "set shell := ['bash', '-c']", "export ", "import 'x.just'", "mod m", "alias t := a", "if ",
        " else ", "{", "}", "==", "+", "/", "*", "$", "#!/usr/bin/env python3", "#", "x'", "f'", "'''",
        "\\", "&&", "env_var(", "::", "?", "[script]", "[no-cd]", "set lazy", "set positional-arguments",
    ],
    "taskfile": [
        "version: '3'", "\n", "  ", "tasks:", "a:", "b:", "cmds:", "- ", "task: a", "deps: [b]", "{{.X}}",
        "vars:", "X:", "sh: echo", "includes:", "x: ./x", "for: [1, 2]", "cmd: ls", "defer: rm", "&a",
        "*a", "<<: *a", "[", "]", "{", "}", ":", "'", '"', "dir: d", "internal: true", "aliases: [c]",
        "{{if .X}}", "{{end}}", "status:", "preconditions:", "flatten: true",
    ],
    "ini": [
        "[tox]", "[testenv]", "[testenv:a]", "envlist = a,b", "commands =", "\n", "    ", "pytest",
        "{posargs}", "{posargs:x}", "{env:X:y}", "{[testenv]commands}", "py311:", "!a:", "\\", "#", "-",
        "{", "}", "'", '"', "changedir = {toxinidir}/x", "setenv =", "X=1", "base = a", "a{1,2}",
    ],
    "toml": [
        "[tasks.a]", "[tasks]", "[tool.poe.tasks]", "[tool.tox]", "[env_run_base]", "[env.a]",
        "env_list = ['a']", "commands = [['pytest', {replace='posargs'}]]", "run = 'x'",
        "run = ['a', {task='a'}]", "depends = ['a']", "a = 'ls'", "a = ['a', 'c']", "cmd = 'x $Y'",
        "shell = 'ls'", "sequence = ['a']", "ref = 'a'", "expr = 'x'", "script = 'a:b'",
        "{{arg(name='x')}}", "\n", "=", "'", '"', "{", "}", "[", "]", ",", "file = 's.sh'",
        "include = 'x.toml'", "deps = ['a']", "alias = 'a'",
    ],
    "nox": [
        "import nox\n", "@nox.session\n", "@nox.session(name='a', python=['3.11'])\n", "def a(session):\n",
        "    session.run('ls', *session.posargs)\n", "    session.notify('a')\n",
        "    session.install('.')\n",
        "    helper(session)\n", "def helper(session):\n    helper(session)\n", "X = 'y'\n", "(", ")",
    ],
}  # fmt: skip
KINDS = {
    "just": "just", "just-default": "just", "taskfile": "taskfile", "tox-ini": "ini", "tox-toml": "toml",
    "tox-pyproject": "toml", "nox": "nox", "poe": "toml", "mise": "toml",
}  # fmt: skip


def _soup(kind: str) -> st.SearchStrategy[str]:
    pieces = st.sampled_from(PIECES[kind]) | st.text(max_size=3)
    return st.lists(pieces, max_size=40).map("".join)


@pytest.mark.parametrize("reader", list(READERS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_text_gives_a_plan(reader: str, data: st.DataObject) -> None:
    text = data.draw(st.text(max_size=200) | _soup(KINDS[reader]))
    plan = READERS[reader](text)
    assert isinstance(plan, TaskPlan)
    assert not any(reason.startswith("reading the") for reason in plan.unknown), (text, plan.unknown)


@pytest.mark.parametrize("reader", list(READERS))
def test_huge_text_is_refused(reader: str) -> None:
    plan = READERS[reader]("a" * (tasks.MAX_TEXT + 1))
    assert plan.commands == ()
    assert plan.unknown and "larger than 256 KB" in plan.unknown[0]


@pytest.mark.parametrize("reader", list(READERS))
def test_deep_nesting_never_raises(reader: str) -> None:
    for text in ("[" * 5000, "{" * 5000, "(" * 5000, "a: " * 5000, "- " * 5000):
        assert isinstance(READERS[reader](text), TaskPlan)


def test_public_surface() -> None:
    assert sorted(tasks.__all__) == [
        "MAX_STEPS",
        "MAX_TEXT",
        "RUNTIME",
        "TaskCommand",
        "TaskPlan",
        "just_recipe",
        "mise_task",
        "nox_sessions",
        "poe_task",
        "taskfile_task",
        "tox_commands",
    ]
    assert all(hasattr(tasks, name) for name in tasks.__all__)
