"""The Taskfile reader: tasks, deps, calls with vars, templates, loops, defer, dynamic variables,
includes, internal tasks, aliases, platforms, cycles and bad input."""

from __future__ import annotations

from rein.steering.bash.tasks import RUNTIME, TaskCommand, TaskPlan, taskfile_task
from tests.steering.bash.tasks.helpers import lines, scripts

R = RUNTIME

# Modeled on go-task's own Taskfile.yml and a typical Go service's.
TASKFILE = """\
version: '3'

vars:
  BINARY: app
  GIT_COMMIT:
    sh: git log -n 1 --format=%h
  LDFLAGS: -X main.commit={{.GIT_COMMIT}}

env:
  CGO_ENABLED: '0'

tasks:
  default:
    cmds:
      - task: lint
      - task: test

  install:
    desc: Installs Task
    aliases: [i]
    sources:
      - './**/*.go'
    cmds:
      - go install -v -ldflags="{{.LDFLAGS}}" ./cmd/task

  lint:
    cmds:
      - golangci-lint run --fix

  test:
    deps: [install]
    cmds:
      - go test {{catLines .GO_PACKAGES}}
      - cmd: go test -race ./...
        ignore_error: true

  build:
    dir: cmd/{{.BINARY}}
    vars:
      OUT: '{{.OUT | default "bin"}}'
    cmds:
      - go build -o {{.OUT}}/{{.BINARY}} .

  clean:
    cmds:
      - rm -rf dist
      - git clean -fdx
      - cmd: rmdir /s /q dist
        platforms: [windows]

  release:
    deps:
      - task: build
        vars: {OUT: dist}
    preconditions:
      - sh: git diff --quiet
        msg: the tree is dirty
    status:
      - test -f dist/app
    cmds:
      - defer: rm -rf tmp
      - for: [linux, darwin]
        cmd: GOOS={{.ITEM}} go build -o dist/{{.ITEM}}/app
      - echo {{.CLI_ARGS}}

  setup:
    internal: true
    cmds:
      - go mod download

  generate:
    cmds:
      - task: setup
      - go generate ./...
"""


def test_default_task_runs_its_calls_and_the_deps_first() -> None:
    plan = taskfile_task(TASKFILE, None)
    assert lines(plan) == [
        (6, "git log -n 1 --format=%h"),
        (28, "golangci-lint run --fix"),
        (24, f'go install -v -ldflags="-X main.commit={R}" ./cmd/task'),
        (33, f"go test {R}"),
        (34, "go test -race ./..."),
    ]
    assert plan.commands[0].where == "Taskfile.yml vars.GIT_COMMIT.sh"
    assert plan.commands[1] == TaskCommand(
        script="golangci-lint run --fix",
        line=28,
        where="Taskfile.yml tasks.lint.cmds[0]",
        env=(("CGO_ENABLED", "0"),),
    )
    assert plan.commands[4].where == "Taskfile.yml tasks.test.cmds[1].cmd"


def test_clean_names_file_and_line_and_skips_windows() -> None:
    plan = taskfile_task(TASKFILE, "clean")
    assert lines(plan)[1:] == [(46, "rm -rf dist"), (47, "git clean -fdx")]


def test_dir_and_vars_default() -> None:
    (_, build) = taskfile_task(TASKFILE, "build").commands
    assert (build.script, build.cwd) == ("go build -o bin/app .", "cmd/app")


def test_release_deps_preconditions_status_loops_and_defer() -> None:
    assert lines(taskfile_task(TASKFILE, "release"))[1:] == [
        (42, "go build -o dist/app ."),
        (56, "git diff --quiet"),
        (59, "test -f dist/app"),
        (63, "GOOS=linux go build -o dist/linux/app"),
        (63, "GOOS=darwin go build -o dist/darwin/app"),
        (64, f"echo {R}"),
        (61, "rm -rf tmp"),
    ]


def test_alias_and_internal() -> None:
    assert scripts(taskfile_task(TASKFILE, "i"))[1:] == [
        f'go install -v -ldflags="-X main.commit={R}" ./cmd/task'
    ]
    assert taskfile_task(TASKFILE, "setup") == TaskPlan()  # go-task: internal tasks cannot be called
    assert scripts(taskfile_task(TASKFILE, "generate"))[1:] == ["go mod download", "go generate ./..."]


def test_missing_task_is_an_empty_plan() -> None:
    assert taskfile_task(TASKFILE, "deploy") == TaskPlan()
    assert taskfile_task("version: '3'\ntasks:\n  a: echo a\n", None) == TaskPlan()
    assert taskfile_task("", None) == TaskPlan()


def test_shorthand_tasks_and_single_cmd() -> None:
    text = "version: '3'\ntasks:\n  a: echo a\n  b: [echo b1, echo b2]\n  c:\n    cmd: echo c\n"
    assert scripts(taskfile_task(text, "a")) == ["echo a"]
    assert scripts(taskfile_task(text, "b")) == ["echo b1", "echo b2"]
    assert lines(taskfile_task(text, "c")) == [(6, "echo c")]


def test_call_vars_lose_to_task_vars_but_win_over_globals() -> None:
    text = """\
version: '3'
vars: {G: global}
tasks:
  default:
    cmds:
      - task: greet
        vars: {NAME: caller, G: from-call}
  greet:
    vars:
      NAME: own
    cmds:
      - echo {{.NAME}} {{.G}} {{.TASK}} {{.UNSET}}
"""
    assert scripts(taskfile_task(text, None)) == [f"echo own from-call greet {R}"]


def test_templates_that_are_not_static() -> None:
    text = """\
version: '3'
vars:
  LIST: [a, b]
  FILES: one two
tasks:
  t:
    cmds:
      - echo {{if eq OS "windows"}}win{{else}}unix{{end}} done
      - echo {{.LIST}} {{ .FILES | upper }}
      - for: {var: FILES}
        cmd: rm {{.ITEM}}
      - for: sources
        cmd: fmt {{.ITEM}}
      - echo {{"quoted"}}
"""
    assert scripts(taskfile_task(text, "t")) == [
        f"echo {R} done",
        f"echo {R} {R}",
        "rm one",
        "rm two",
        f"fmt {R}",
        "echo quoted",
    ]


def test_block_scalar_line_is_its_first_line() -> None:
    text = "version: '3'\ntasks:\n  s:\n    cmds:\n      - |\n        set -e\n        rm -rf /tmp/x\n"
    assert lines(taskfile_task(text, "s")) == [(6, "set -e\nrm -rf /tmp/x\n")]


def test_anchors_and_merge_keys() -> None:
    text = """\
version: '3'
x-common: &common
  dir: web
  cmds: [npm ci]
tasks:
  web:
    <<: *common
    env: {NODE_ENV: production}
"""
    (command,) = taskfile_task(text, "web").commands
    assert (command.script, command.cwd, command.env, command.line) == (
        "npm ci",
        "web",
        (("NODE_ENV", "production"),),
        4,
    )


def test_task_name_from_a_template_known_at_run_time() -> None:
    text = "version: '3'\ntasks:\n  a:\n    cmds:\n      - task: '{{.TARGET}}'\n"
    assert taskfile_task(text, "a").unknown == ("Taskfile.yml calls a task named at run time",)


def test_cycles_are_followed_once() -> None:
    text = """\
version: '3'
tasks:
  a:
    deps: [b]
    cmds: [echo a, {task: b}]
  b:
    cmds: [echo b, {task: a}]
"""
    assert scripts(taskfile_task(text, "a")) == ["echo b", "echo a"]


def test_includes_are_listed_then_read() -> None:
    text = """\
version: '3'
includes:
  docs: ./docs
  ci:
    taskfile: ./ci/Tasks.yml
    dir: ./ci
    vars: {MODE: strict}
  shared:
    taskfile: ./shared.yml
    flatten: true
    optional: true
tasks:
  all:
    cmds:
      - task: docs:build
      - task: ci
      - task: fmt
"""
    first = taskfile_task(text, "all")
    assert first.includes == ("docs", "ci/Tasks.yml", "shared.yml")
    assert first.commands == ()
    assert len(first.unknown) == 3
    files: dict[str, str | None] = {
        "docs": "version: '3'\nincludes:\n  theme: ./theme.yml\ntasks:\n  build: mkdocs build\n",
        "docs/theme.yml": "version: '3'\ntasks: {}\n",
        "ci/Tasks.yml": (
            "version: '3'\nvars:\n  MODE: lax\ntasks:\n  default:\n    cmds: ['lint --{{.MODE}}']\n"
        ),
        "shared.yml": None,
    }
    plan = taskfile_task(text, "all", files)
    assert plan.includes == ("docs", "docs/theme.yml", "ci/Tasks.yml", "shared.yml")
    assert plan.unknown == ()
    assert [(c.script, c.where, c.cwd, c.file) for c in plan.commands] == [
        ("mkdocs build", "docs tasks.build.cmds[0]", "docs", "docs"),
        ("lint --lax", "ci/Tasks.yml tasks.default.cmds[0]", "ci", "ci/Tasks.yml"),
    ]
    # a flattened include that does not exist: `fmt` is nowhere, so that call runs nothing
    missing = dict(files, **{"shared.yml": "version: '3'\ntasks:\n  fmt: gofmt -w .\n"})
    assert scripts(taskfile_task(text, "all", missing))[-1] == "gofmt -w ."
    assert taskfile_task(text, "docs:build", files).commands[0].script == "mkdocs build"


def test_a_required_include_that_does_not_exist_stops_go_task() -> None:
    text = "version: '3'\nincludes:\n  x: ./x.yml\ntasks:\n  a: echo a\n"
    assert taskfile_task(text, "a", {"x.yml": None}) == TaskPlan(includes=("x.yml",))


def test_malformed_input_is_unknown() -> None:
    for text in ("tasks: [", "- a\n- b\n", "a: &x\n  b: *y\n", "tasks:\n  a:\n    cmds: [\n"):
        plan = taskfile_task(text, "a")
        assert plan.commands == ()
        assert plan.unknown and plan.unknown[0].startswith("Taskfile.yml does not parse"), (text, plan)
    assert taskfile_task("x" * 300_000, None).unknown == ("the Taskfile is larger than 256 KB: not read",)


def test_alias_bombs_are_bounded() -> None:
    text = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)
    )
    text += "version: '3'\ntasks:\n  t:\n    cmds: [echo t]\n    deps: *i\n"
    plan = taskfile_task(text, "t")
    assert "echo t" in [command.script for command in plan.commands] or plan.unknown
