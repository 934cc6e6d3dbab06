"""The justfile reader: recipes, dependencies, interpolation, settings, shebang and script recipes,
modules and imports, and what only the running just knows."""

from __future__ import annotations

from rein.steering.bash.tasks import RUNTIME, TaskCommand, TaskPlan, just_recipe
from tests.steering.bash.tasks.helpers import lines, scripts

R = RUNTIME

# Modeled on casey/just's own justfile and typical Rust/Python project justfiles.
PROJECT = """\
#!/usr/bin/env -S just --justfile

set dotenv-load
set positional-arguments

alias t := test
alias b := build

version := `git describe --tags`
target := "target" / "release"
log := "warn"

export RUST_LOG := log

# the default recipe
default: lint test

build profile="release":
    cargo build --profile {{profile}}

test *args: build
    cargo test --workspace {{args}}

lint:
    cargo clippy --all-targets -- --deny warnings
    @cargo fmt --all -- --check

clean:
    -rm -rf {{target}}
    git clean -fdx

release: clean (build "release") && publish
    @echo "releasing {{version}}"

publish:
    cargo publish
"""


def test_default_recipe_runs_its_dependencies_first_and_each_once() -> None:
    plan = just_recipe(PROJECT, None, [])
    assert scripts(plan) == [
        "git describe --tags",
        "cargo clippy --all-targets -- --deny warnings",
        "cargo fmt --all -- --check",
        "cargo build --profile release",
        "cargo test --workspace ",
    ]
    assert plan.commands[0].where == "justfile variable version"
    assert plan.commands[0].line == 9
    assert plan.commands[1] == TaskCommand(
        script="cargo clippy --all-targets -- --deny warnings",
        line=25,
        where="justfile recipe lint",
        env=(("RUST_LOG", "warn"),),
    )


def test_clean_is_blocked_with_file_and_line() -> None:
    plan = just_recipe(PROJECT, "clean", [])
    assert lines(plan)[1:] == [(29, "rm -rf target/release"), (30, "git clean -fdx")]
    assert {command.where for command in plan.commands[1:]} == {"justfile recipe clean"}


def test_dependency_with_arguments_and_subsequent() -> None:
    plan = just_recipe(PROJECT, "release", [])
    assert scripts(plan)[1:] == [
        "rm -rf target/release",
        "git clean -fdx",
        "set -- release; cargo build --profile release",  # dependency arguments are positional too
        f'echo "releasing {R}"',
        "cargo publish",
    ]


def test_alias_and_positional_arguments() -> None:
    plan = just_recipe(PROJECT, "t", ["--", "-q"])
    assert scripts(plan)[-1] == "set -- -- -q; cargo test --workspace -- -q"


def test_arguments_known_at_run_time() -> None:
    plan = just_recipe(PROJECT, "build", [None])
    assert scripts(plan)[-1] == f'set -- "{R}"; cargo build --profile {R}'


def test_extra_words_name_further_recipes() -> None:
    plan = just_recipe(PROJECT, "lint", ["clean"])
    assert scripts(plan)[1:] == [
        "cargo clippy --all-targets -- --deny warnings",
        "cargo fmt --all -- --check",
        "rm -rf target/release",
        "git clean -fdx",
    ]


def test_missing_recipe_or_arguments_is_an_empty_plan() -> None:
    assert just_recipe(PROJECT, "deploy", []) == TaskPlan()
    assert just_recipe("greet name:\n  echo {{name}}\n", "greet", []) == TaskPlan()
    assert just_recipe("", None, []) == TaskPlan()
    assert just_recipe("x := 'a'\n", None, []) == TaskPlan()


def test_recipe_named_at_run_time_is_unknown() -> None:
    plan = just_recipe("a b:\n  echo {{b}}\n", "a", ["1", None])
    assert plan.unknown == ("just is given a recipe name known only at run time",)


def test_parameters_defaults_variadic_and_exported() -> None:
    text = """\
serve $PORT="8000" +hosts='localhost':
    python -m http.server $PORT --bind {{hosts}}
"""
    assert just_recipe(text, "serve", []).commands == (
        TaskCommand(
            script="python -m http.server $PORT --bind localhost",
            line=2,
            where="justfile recipe serve",
            env=(("PORT", "8000"),),
        ),
    )
    assert scripts(just_recipe(text, "serve", ["1", "a", "b"])) == ["python -m http.server $PORT --bind a b"]


def test_expressions() -> None:
    text = """\
root := justfile_directory()
name := "app"
dist := "dist" / name + "-" + uppercase("v1")
mode := if name == "app" { "fast" } else { "slow" }
unknown := if env_var("CI") == "true" { "a" } else { "b" }
same := if os() == "linux" { "x" } else { "x" }
home := env_var_or_default("HOME", "/root")
esc := "tab\\there"
shelly := x'~/bin'
fmt := f'{{name}}-{{mode}}'
quoted := quote("it's")
joined := join("a", "b", "c")
tidy := trim_end_match("file.tar.gz", ".gz")

show:
    echo {{dist}} {{mode}} {{unknown}} {{same}} {{home}} {{root}}
    echo {{shelly}} {{fmt}} {{quoted}} {{joined}} {{tidy}}
    echo {{{{literal}} {{ "a" + 'b' }} {{esc}}
"""
    assert scripts(just_recipe(text, "show", [])) == [
        f"echo dist/app-V1 fast {R} x {R} {R}",
        f"echo {R} app-fast 'it'\\''s' a/b/c file.tar",
        "echo {{literal}} ab tab\there",
    ]


def test_backticks_run_when_the_justfile_loads_unless_lazy() -> None:
    text = "a := `echo one`\nb := ```\n  echo two\n```\nr:\n  echo {{`date`}}\n"
    assert lines(just_recipe(text, "r", [])) == [
        (1, "echo one"),
        (2, "echo two\n"),
        (6, "date"),
        (6, f"echo {R}"),
    ]
    lazy = "set lazy\n" + text
    assert scripts(just_recipe(lazy, "r", [])) == ["date", f"echo {R}"]
    assert just_recipe(lazy, "r", []).commands[0].where == "justfile recipe r"


def test_shell_function_runs_a_command() -> None:
    plan = just_recipe("v := shell('cat $1', 'VERSION')\nx:\n  echo {{v}}\n", "x", [])
    assert scripts(plan) == ["set -- VERSION; cat $1", f"echo {R}"]


def test_line_prefixes_continuations_and_comments() -> None:
    text = """\
ci:
    @echo start
    -cargo test \\
        --all
    @-rm -rf out
    # a comment with {{`date`}}

    echo done
"""
    assert lines(just_recipe(text, "ci", [])) == [
        (2, "echo start"),
        (3, "cargo test --all"),
        (5, "rm -rf out"),
        (6, "date"),  # the comment's backtick runs; the comment itself runs nothing
        (8, "echo done"),
    ]


def test_set_shell() -> None:
    text = 'set shell := ["bash", "-euo", "pipefail", "-c"]\nx:\n  echo $BASH_VERSION\n'
    assert just_recipe(text, "x", []).commands[0].shell == "bash"
    text = "set shell := ['python3', '-c']\nx:\n  print(1)\n"
    assert just_recipe(text, "x", []).commands[0].shell == "python"


def test_shebang_recipe_is_one_script() -> None:
    text = """\
py name='world':
    #!/usr/bin/env python3
    import subprocess
    if True:
        subprocess.run(["echo", "{{name}}"])

sh:
    #!/bin/bash
    set -euo pipefail
    rm -rf build
"""
    (command,) = just_recipe(text, "py", []).commands
    assert command.shell == "python"
    assert command.line == 2
    assert command.script == (
        '#!/usr/bin/env python3\nimport subprocess\nif True:\n    subprocess.run(["echo", "world"])'
    )
    (command,) = just_recipe(text, "sh", []).commands
    assert (command.shell, command.script) == ("bash", "#!/bin/bash\nset -euo pipefail\nrm -rf build")


def test_script_attribute() -> None:
    text = '[script("node")]\njs:\n  console.log(1)\n  console.log(2)\n\n[script]\ns:\n  rm -rf x\n'
    assert [(c.shell, c.script) for c in just_recipe(text, "js", []).commands] == [
        ("node", "console.log(1)\nconsole.log(2)")
    ]
    text2 = "set script-interpreter := ['bash', '-eu']\n" + text
    assert just_recipe(text2, "s", []).commands[0].shell == "bash"


def test_default_attribute_and_private_first_recipe() -> None:
    assert scripts(just_recipe("a:\n  echo a\n[default]\nb:\n  echo b\n", None, [])) == ["echo b"]
    assert scripts(just_recipe("_setup:\n  echo s\nb:\n  echo b\n", None, [])) == ["echo s"]


def test_working_directory_and_no_cd() -> None:
    text = (
        "set working-directory := 'web'\na:\n  npm ci\n"
        "[no-cd]\nb:\n  ls\n[working-directory('api')]\nc:\n  go test\n"
    )
    assert [c.cwd for c in just_recipe(text, "a", ["b", "c"]).commands] == ["web", R, "api"]


def test_windows_only_recipes_are_left_out() -> None:
    text = "[windows]\nclean:\n  del /s build\n\n[unix]\nclean:\n  rm -rf build\n"
    assert scripts(just_recipe(text, "clean", [])) == ["rm -rf build"]


def test_circular_dependency_is_rejected_by_just() -> None:
    assert just_recipe("a: b\n  echo a\nb: a\n  echo b\n", "a", []) == TaskPlan()


def test_self_reference_through_arguments_is_bounded() -> None:
    text = "a n: (a n + 'x')\n  echo {{n}}\n"
    plan = just_recipe(text, "a", ["1"])
    assert plan.commands == () or plan.unknown


def test_imports_are_included_and_read_when_given() -> None:
    text = "import 'ci/tasks.just'\nimport? 'local.just'\n\nall: lint\n  echo all\n"
    first = just_recipe(text, "all", [])
    assert first.includes == ("ci/tasks.just", "local.just")
    assert first.unknown == (
        "justfile imports ci/tasks.just, which was not read",
        "justfile imports local.just, which was not read",
    )
    files = {"ci/tasks.just": "import 'more.just'\nlint:\n  ruff check .\n", "local.just": None}
    second = just_recipe(text, "all", [], files)
    assert second.includes == ("ci/tasks.just", "ci/more.just", "local.just")
    third = just_recipe(text, "all", [], {**files, "ci/more.just": "x := `whoami`\n"})
    assert scripts(third) == ["whoami", "ruff check .", "echo all"]
    lint = third.commands[1]
    assert (lint.file, lint.line, lint.where) == ("ci/tasks.just", 3, "ci/tasks.just recipe lint")
    assert just_recipe("import 'gone.just'\na:\n  ls\n", "a", [], {"gone.just": None}) == TaskPlan(
        includes=("gone.just",)
    )


def test_modules() -> None:
    text = "mod docs\nmod? deploy 'ops/deploy.just'\n\nbuild:\n  cargo build\n"
    first = just_recipe(text, "docs", ["serve"])
    assert first.includes == ("docs.just", "docs/mod.just", "docs/justfile", "docs/.justfile")
    assert first.unknown == ("module docs's file docs.just was not read",)
    files: dict[str, str | None] = {"docs.just": None, "docs/mod.just": "serve:\n  mdbook serve\n"}
    plan = just_recipe(text, "docs", ["serve"], files)
    assert plan.commands == (
        TaskCommand(
            script="mdbook serve",
            line=2,
            where="docs/mod.just recipe serve",
            cwd="docs",
            file="docs/mod.just",
        ),
    )
    assert just_recipe(text, "docs::serve", [], files).commands == plan.commands
    assert just_recipe(text, "docs", [], files).commands == plan.commands  # the module's default
    deploy = {"ops/deploy.just": "prod:\n  kubectl apply -f k8s\n"}
    assert scripts(just_recipe(text, "deploy::prod", [], deploy)) == ["kubectl apply -f k8s"]


def test_syntax_errors_are_unknown() -> None:
    for text in ("a:\n  echo {{unclosed\n", "a := 'unterminated\n", "  indented:\n", "a := \n", "a: (b\n"):
        plan = just_recipe(text, "a", [])
        assert plan.commands == ()
        assert plan.unknown and plan.unknown[0].startswith("justfile does not parse"), (text, plan)


def test_huge_input_is_unknown() -> None:
    plan = just_recipe("a:\n" + "  echo x\n" * 40_000, "a", [])
    assert plan.unknown == ("the justfile is larger than 256 KB: not read",)


def test_many_recipes_are_bounded() -> None:
    text = "".join(f"r{i}: r{i + 1}\n  echo {i}\n" for i in range(3000)) + "r3000:\n  echo end\n"
    plan = just_recipe(text, "r0", [])
    assert plan.unknown  # the step budget ran out (or Python's recursion did): never an exception
