"""The poethepoet reader: cmd, shell, script, sequence, ref, expr, switch tasks, deps, env, cwd,
args, includes, cycles and bad input."""

from __future__ import annotations

from rein.steering.bash.tasks import RUNTIME, TaskCommand, TaskPlan, poe_task
from tests.steering.bash.tasks.helpers import lines, scripts

R = RUNTIME

# Modeled on poethepoet's own pyproject.toml and its documentation's examples.
PYPROJECT = """\
[project]
name = "mypkg"

[tool.poe]
include = ["tasks/docs.toml"]

[tool.poe.env]
SRC = "src"

[tool.poe.tasks]
format = "ruff format ${SRC} tests"
lint.cmd = "ruff check ${SRC} *.py"
lint.help = "lint the code"
types = { cmd = "mypy --strict $SRC", env = { MYPYPATH = "stubs" } }
test = { cmd = "pytest --cov=${SRC}", cwd = "tests" }
clean = { shell = "rm -rf dist build && find . -name '*.pyc' -delete", interpreter = "bash" }
style = ["format", "lint"]
check.sequence = ["style", { cmd = "pytest -x" }, { shell = "echo done" }]
check.ignore_fail = true
release = { ref = "publish --dry-run" }
version = { expr = "sys.version_info[:2]", imports = ["sys"] }
answer = { expr = "42" }
build = { script = "mypkg.build:main(dist='out')" }
greet = { cmd = "echo hello ${name}", args = ["name"] }
deploy = { shell = "kubectl apply -f k8s", deps = ["check"] }
loop = { ref = "loop" }

[tool.poe.tasks.publish]
cmd = "twine upload dist/*"

[tool.poe.tasks.matrix]
control.expr = "sys.platform"
switch = [
  { case = "linux", cmd = "make linux" },
  { cmd = "make other" },
]
"""


def test_cmd_task_is_an_argv_with_env_and_extra_arguments() -> None:
    plan = poe_task(PYPROJECT, "format", ["--diff"])
    assert plan.commands == (
        TaskCommand(
            script="ruff format src tests --diff",
            line=11,
            where="pyproject.toml tool.poe.tasks.format",
            shell="",
            env=(("SRC", "src"),),
        ),
    )
    assert lines(poe_task(PYPROJECT, "lint")) == [(12, "ruff check src *.py")]
    assert scripts(poe_task(PYPROJECT, "types")) == ["mypy --strict src"]
    assert poe_task(PYPROJECT, "test").commands[0].cwd == "tests"


def test_shell_task() -> None:
    (command,) = poe_task(PYPROJECT, "clean").commands
    assert (command.shell, command.script) == ("bash", "rm -rf dist build && find . -name '*.pyc' -delete")


def test_sequences_refs_and_deps() -> None:
    assert scripts(poe_task(PYPROJECT, "style")) == ["ruff format src tests", "ruff check src *.py"]
    plan = poe_task(PYPROJECT, "deploy")
    assert [(c.script, c.where) for c in plan.commands] == [
        ("ruff format src tests", "pyproject.toml tool.poe.tasks.format"),
        ("ruff check src *.py", "pyproject.toml tool.poe.tasks.lint"),
        ("pytest -x", "pyproject.toml tool.poe.tasks.check.sequence[1]"),
        ("echo done", "pyproject.toml tool.poe.tasks.check.sequence[2]"),
        ("kubectl apply -f k8s", "pyproject.toml tool.poe.tasks.deploy"),
    ]
    assert plan.commands[3].shell == "sh"
    assert scripts(poe_task(PYPROJECT, "release")) == ["twine upload dist/* --dry-run"]


def test_expr_script_args_and_switch() -> None:
    (version,) = poe_task(PYPROJECT, "version").commands
    assert (version.shell, version.script) == ("python", "import sys\nsys.version_info[:2]")
    assert poe_task(PYPROJECT, "answer") == TaskPlan(includes=("tasks/docs.toml",))
    assert poe_task(PYPROJECT, "build").unknown == (
        "pyproject.toml tool.poe.tasks.build calls Python code rein cannot see: "
        "\"mypkg.build:main(dist='out')\"",
    )
    assert scripts(poe_task(PYPROJECT, "greet", ["x"])) == [f'echo hello "{R}"']
    assert [(c.shell, c.script) for c in poe_task(PYPROJECT, "matrix").commands] == [
        ("python", "sys.platform"),
        ("", "make linux"),
        ("", "make other"),
    ]


def test_missing_cycles_and_includes() -> None:
    first = poe_task(PYPROJECT, "docs")
    assert first.includes == ("tasks/docs.toml",)
    assert first.unknown == (
        "pyproject.toml includes tasks/docs.toml, which was not read: docs may be there",
    )
    docs = '[tool.poe.tasks]\ndocs = "mkdocs build --strict"\nformat = "black ."\n'
    plan = poe_task(PYPROJECT, "docs", [], {"tasks/docs.toml": docs})
    assert plan.commands[0].file == "tasks/docs.toml"
    assert (plan.commands[0].where, plan.commands[0].line) == ("tasks/docs.toml tool.poe.tasks.docs", 2)
    assert scripts(poe_task(PYPROJECT, "format", [], {"tasks/docs.toml": docs})) == ["ruff format src tests"]
    assert poe_task(PYPROJECT, "nope", [], {"tasks/docs.toml": docs}) == TaskPlan(
        includes=("tasks/docs.toml",)
    )
    assert poe_task(PYPROJECT, "loop").commands == ()


def test_standalone_file_and_default_task_type() -> None:
    text = 'default_task_type = "shell"\n[tasks]\nup = "docker compose up -d"\n'
    (command,) = poe_task(text, "up").commands
    assert (command.shell, command.where, command.line) == ("sh", "poe_tasks.toml tasks.up", 3)


def test_cmd_quoting_and_comments() -> None:
    text = """[tool.poe.tasks]\nq = '''\n  echo 'a $SRC' "b $SRC" c\\ d  # comment\n  --flag\n'''\n"""
    assert scripts(poe_task(text, "q")) == [f"echo 'a $SRC' 'b '\"{R}\" 'c d' --flag"]


def test_bad_input_is_unknown() -> None:
    assert poe_task("[tool.poe.tasks\n", "a").unknown[0].startswith("the poe configuration does not parse")
    assert poe_task("[tool.poe.tasks]\nx = { cmd = 'a', shell = 'b' }\n", "x").unknown == (
        "pyproject.toml tool.poe.tasks.x is not a task poe can run",
    )
