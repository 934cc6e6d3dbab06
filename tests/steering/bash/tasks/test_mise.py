"""The mise reader: TOML tasks, run strings and lists, depends, shells, templates, arguments,
script files and bad input."""

from __future__ import annotations

from rein.steering.bash.tasks import RUNTIME, TaskCommand, TaskPlan, mise_task
from tests.steering.bash.tasks.helpers import lines, scripts

R = RUNTIME

# Modeled on mise's own mise.toml and its tasks documentation.
MISE = """\
[tools]
node = "22"

[vars]
dist = "dist"

[env]
NODE_ENV = "production"
_.path = ["./node_modules/.bin"]

[tasks]
fmt = "prettier --write ."

[tasks.build]
description = "Build the app"
run = [
  "npm ci",
  "vite build --outDir {{vars.dist}}",
]
depends = ["fmt"]
depends_post = ["notify done"]

[tasks.clean]
run = "rm -rf {{vars.dist}} node_modules"
alias = ["c"]

[tasks.test]
run = "vitest run {{arg(name='file', default='')}}"
dir = "{{config_root}}/web"
env = { CI = "1" }

[tasks.lint]
shell = "bash -c"
run = '''
#!/usr/bin/env python3
import subprocess
subprocess.run(["ruff", "check"])
'''

[tasks.notify]
run = "echo"

[tasks.deploy]
file = "scripts/deploy.sh"
depends = ["build"]

[tasks.all]
run = [{ task = "clean" }, { tasks = ["fmt", "lint"] }, "echo all"]
"""


def test_run_list_depends_and_post() -> None:
    plan = mise_task(MISE, "build")
    assert lines(plan) == [
        (12, "prettier --write ."),
        (17, "npm ci"),
        (18, "vite build --outDir dist"),
        (41, "echo done"),
    ]
    assert plan.commands[1] == TaskCommand(
        script="npm ci", line=17, where="mise.toml tasks.build.run[0]", env=(("NODE_ENV", "production"),)
    )


def test_arguments_go_to_the_last_script_unless_declared() -> None:
    assert scripts(mise_task(MISE, "c", ["--verbose", None])) == [f'rm -rf dist node_modules --verbose "{R}"']
    (command,) = mise_task(MISE, "test", ["x.test.ts"]).commands
    assert (command.script, command.cwd) == (f"vitest run {R}", "./web")
    assert command.env == (("NODE_ENV", "production"), ("CI", "1"))


def test_shebang_script_and_shell() -> None:
    (command,) = mise_task(MISE, "lint").commands
    assert command.shell == "python"
    assert command.script.startswith("#!/usr/bin/env python3\nimport subprocess")
    assert mise_task('[tasks.x]\nshell = "bash -c"\nrun = "ls"\n', "x").commands[0].shell == "bash"


def test_task_entries_in_run() -> None:
    assert scripts(mise_task(MISE, "all")) == [
        "rm -rf dist node_modules",
        "prettier --write .",
        mise_task(MISE, "lint").commands[0].script,
        "echo all",
    ]


def test_file_tasks_are_included_then_read() -> None:
    first = mise_task(MISE, "deploy")
    assert first.includes == ("scripts/deploy.sh",)
    assert first.unknown == ("mise.toml tasks.deploy.file runs scripts/deploy.sh, which was not read",)
    files = {"scripts/deploy.sh": "#!/usr/bin/env bash\nkubectl apply -f k8s/\n"}
    plan = mise_task(MISE, "deploy", ["prod"], files)
    last = plan.commands[-1]
    assert (last.script, last.shell, last.file, last.line) == (
        "set -- prod\n#!/usr/bin/env bash\nkubectl apply -f k8s/\n",
        "bash",
        "scripts/deploy.sh",
        1,
    )


def test_missing_cycles_and_bad_input() -> None:
    assert mise_task(MISE, "nope") == TaskPlan()
    assert scripts(mise_task('[tasks.a]\nrun = "echo a"\ndepends = ["a"]\n', "a")) == ["echo a"]
    assert mise_task("[tasks.a\n", "a").unknown[0].startswith("mise.toml does not parse")
    text = '[task_config]\nincludes = ["tasks.toml"]\n'
    assert mise_task(text, "x").includes == ("tasks.toml",)
    assert mise_task(text, "x").unknown
