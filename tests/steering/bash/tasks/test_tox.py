"""The tox reader: tox.ini, tox.toml and pyproject.toml (native and legacy_tox_ini); environments,
factors, substitutions, posargs, change_dir and set_env."""

from __future__ import annotations

from rein.steering.bash.tasks import RUNTIME, TaskCommand, TaskPlan, tox_commands
from tests.steering.bash.tasks.helpers import lines, scripts

R = RUNTIME

# Modeled on the tox.ini of pytest-dev plugins and attrs.
TOX_INI = """\
[tox]
envlist = py{311,312}, lint, docs
isolated_build = true

[testenv]
description = run the tests
deps =
    pytest
    coverage
setenv =
    PYTHONPATH = {toxinidir}/src
commands_pre =
    python -m pip list
commands =
    coverage run -m pytest {posargs:tests} \\
        -p no:cacheprovider  # inline comment
    py311: python -c "import sys; print(sys.version)"
    !py311: echo newer
    - coverage report
commands_post = coverage erase

[testenv:lint]
skip_install = true
deps = ruff
commands =
    ruff check {posargs} src tests
    ruff format --check src

[testenv:docs]
changedir = docs
commands =
    sphinx-build -W -b html . {envtmpdir}/html
    {[testenv:lint]commands}
"""


def test_default_env_list() -> None:
    plan = tox_commands(TOX_INI, None, "ini")
    assert scripts(plan) == [
        "python -m pip list",
        "coverage run -m pytest tests -p no:cacheprovider",
        "python -c 'import sys; print(sys.version)'",
        "coverage report",
        "coverage erase",
        "echo newer",  # py312's own line; its other commands are py311's, listed once
        f"ruff check {R} src tests",
        "ruff format --check src",
        "python -m pip list",  # docs runs in docs/: the same commands elsewhere are listed again
        f'sphinx-build -W -b html . "{R}"/html',
        f"ruff check {R} src tests",
        "ruff format --check src",
        "coverage erase",
    ]
    assert plan.commands[1] == TaskCommand(
        script="coverage run -m pytest tests -p no:cacheprovider",
        line=15,
        where="tox.ini [testenv] commands",
        shell="",
        env=(("PYTHONPATH", "./src"),),
    )


def test_one_env_and_its_factor_lines() -> None:
    assert lines(tox_commands(TOX_INI, ["py312"], "ini")) == [
        (13, "python -m pip list"),
        (15, "coverage run -m pytest tests -p no:cacheprovider"),
        (18, "echo newer"),
        (19, "coverage report"),
        (20, "coverage erase"),
    ]


def test_posargs_given_and_unknown() -> None:
    plan = tox_commands(TOX_INI, ["lint"], "ini", posargs=["--fix", "a b"])
    assert scripts(plan) == [
        "python -m pip list",
        "ruff check --fix 'a b' src tests",
        "ruff format --check src",
        "coverage erase",
    ]
    plan = tox_commands(TOX_INI, ["py311"], "ini", posargs=[])
    assert scripts(plan)[1] == "coverage run -m pytest tests -p no:cacheprovider"


def test_change_dir_references_and_runtime_dirs() -> None:
    plan = tox_commands(TOX_INI, ["docs"], "ini")
    assert [(c.line, c.script, c.cwd, c.where) for c in plan.commands] == [
        (13, "python -m pip list", "docs", "tox.ini [testenv] commands_pre"),
        (32, f'sphinx-build -W -b html . "{R}"/html', "docs", "tox.ini [testenv:docs] commands"),
        (33, f"ruff check {R} src tests", "docs", "tox.ini [testenv:docs] commands"),
        (33, "ruff format --check src", "docs", "tox.ini [testenv:docs] commands"),
        (20, "coverage erase", "docs", "tox.ini [testenv] commands_post"),
    ]
    assert plan.commands[0].env == (("PYTHONPATH", f"{R}/src"),)


def test_env_without_section_uses_testenv_and_default_py() -> None:
    text = "[testenv]\ncommands = pytest\n"
    assert scripts(tox_commands(text, None, "ini")) == ["pytest"]
    assert scripts(tox_commands(text, ["whatever"], "ini")) == ["pytest"]
    assert tox_commands("[tox]\nenvlist = a\n", None, "ini") == TaskPlan()


def test_substitutions() -> None:
    text = """\
[testenv:x]
base = y
commands =
    echo {envname} {env_name} {env:HOME} {env:CI:no} {tty:a:b} {/} \\{literal\\}
    git push {posargs:origin main}
    'unbalanced quote
[testenv:y]
commands_pre = make {[vars]target}
[vars]
target = all
"""
    assert scripts(tox_commands(text, ["x"], "ini")) == [
        "make all",
        f"echo x x {R} {R} {R} / '{{literal}}'",
        "git push origin main",
        "''\"'\"'unbalanced quote'",
    ]


def test_tox_toml() -> None:
    text = """\
requires = ["tox>=4.21"]
env_list = ["3.13", "type"]

[env_run_base]
description = "run unit tests"
deps = ["pytest>=8"]
set_env = { COVERAGE_FILE = "{env_name}.cov" }
commands = [
    ["pytest", { replace = "posargs", default = ["tests"], extend = true }],
    ["coverage", "report"],
]

[env.type]
deps = ["mypy"]
change_dir = "src"
commands = [["mypy", "{posargs}", "."], [{ replace = "env", name = "TOOL" }, "x"]]
"""
    plan = tox_commands(text, None, "toml")
    assert [(c.script, c.line, c.where, c.cwd, c.env) for c in plan.commands] == [
        ("pytest tests", 9, "tox.toml [env_run_base] commands", None, (("COVERAGE_FILE", "3.13.cov"),)),
        ("coverage report", 10, "tox.toml [env_run_base] commands", None, (("COVERAGE_FILE", "3.13.cov"),)),
        (f"mypy {R} .", 16, "tox.toml [env.type] commands", "src", (("COVERAGE_FILE", "type.cov"),)),
        (f"{R} x", 16, "tox.toml [env.type] commands", "src", (("COVERAGE_FILE", "type.cov"),)),
    ]
    assert all(command.shell == "" for command in plan.commands)


def test_pyproject_native_ref_and_legacy() -> None:
    native = """\
[project]
name = "x"

[tool.tox]
env_list = ["lint"]

[tool.tox.env_run_base]
commands = [["pytest"]]

[tool.tox.env.lint]
commands = [["ruff", "check"], { replace = "ref", of = ["tool", "tox", "env_run_base", "commands"] }]
"""
    plan = tox_commands(native, None, "pyproject")
    assert scripts(plan) == ["ruff check", "pytest"]
    legacy = (
        '[tool.tox]\nlegacy_tox_ini = """\n[tox]\nenvlist = py\n\n[testenv]\ncommands = rm -rf build\n"""\n'
    )
    assert lines(tox_commands(legacy, None, "pyproject")) == [(7, "rm -rf build")]
    assert tox_commands('[project]\nname = "x"\n', None, "pyproject") == TaskPlan()


def test_malformed_input_is_unknown() -> None:
    assert (
        tox_commands("[testenv\ncommands = x\n", None, "ini").unknown[0].startswith("tox.ini does not parse")
    )
    assert tox_commands("commands = x\n", None, "ini").unknown[0].startswith("tox.ini does not parse")
    assert tox_commands("[a]\nx = 1\n[a]\n", None, "ini").unknown[0].startswith("tox.ini does not parse")
    assert tox_commands("env_list = [", None, "toml").unknown[0].startswith("tox.toml does not parse")
    assert tox_commands("[testenv]\n" * 30_000, None, "ini").unknown == (
        "the tox configuration is larger than 256 KB: not read",
    )


def test_self_reference_is_bounded() -> None:
    text = "[testenv]\ncommands = echo {[testenv]commands}\n"
    plan = tox_commands(text, None, "ini")
    assert plan.commands[0].script.startswith("echo echo echo")
