"""The make reader: every recipe line of every rule, `$(shell)` wherever it is, `!=`; variables of
every flavor, automatic variables, conditionals read both ways, functions, `SHELL`, `.ONESHELL`,
`.RECIPEPREFIX`; what rein cannot compute is `RUNTIME`, and unknown unless it is a file name."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import RUNTIME, Launch, launches

R = RUNTIME


def read(text: str, env: Mapping[str, str] | None = None) -> tuple[Launch, ...]:
    return launches("make", text, env or {})


def shells(text: str, env: Mapping[str, str] | None = None) -> list[tuple[str, str | None]]:
    """(api, shell) of every known launch; fails on an unknown one."""
    found = read(text, env)
    assert all(not launch.unknown for launch in found), found
    return [(launch.api, launch.shell) for launch in found]


def test_the_briefs_examples() -> None:
    assert read("x:\n\tgit push -f\n") == (Launch(api="recipe of 'x'", shell="git push -f", line=2),)
    assert read("R := rm -rf\nclean:\n\t@$(R) /\n") == (
        Launch(api="recipe of 'clean'", shell="rm -rf /", line=3),
    )


@pytest.mark.parametrize(
    ("makefile", "expected"),
    [
        ("x:\n\tgit push -f", [("x", "git push -f")]),
        ("x: a b\n\tgit push -f", [("x", "git push -f")]),
        ("x:: a\n\tone\nx:: b\n\ttwo", [("x", "one"), ("x", "two")]),
        ("x: ; git push -f", [("x", "git push -f")]),
        ("x: a ; git push -f\n\tsecond", [("x", "git push -f"), ("x", "second")]),
        ("x: ; echo a # passed to the shell", [("x", "echo a # passed to the shell")]),
        ("x: # a comment ; not a recipe\n\tls", [("x", "ls")]),
        ("%.o: %.c\n\tcc -c x.c", [("%.o", "cc -c x.c")]),
        ("a b:\n\tmake-it", [("a", "make-it"), ("b", "make-it")]),
        ("a b &: c\n\tgen", [("a", "gen"), ("b", "gen")]),
        (".DEFAULT:\n\trm -rf /", [(".DEFAULT", "rm -rf /")]),
        ("x:\n\t@git push -f", [("x", "git push -f")]),
        ("x:\n\t-git push -f", [("x", "git push -f")]),
        ("x:\n\t+git push -f", [("x", "git push -f")]),
        ("x:\n\t@-+ @git push -f", [("x", "git push -f")]),
        ("x:\n\t  git push -f", [("x", "git push -f")]),
        ("x:\n\techo a \\\n\tb", [("x", "echo a \\\nb")]),
        ("x:\n\techo a \\\n\t\tb \\\n  c", [("x", "echo a \\\n\tb \\\n  c")]),
        ("x:\n\techo $$HOME $${X}", [("x", "echo $HOME ${X}")]),
        ("x:\n\t# a shell comment", [("x", "# a shell comment")]),
        ("x:\n\tone\n\n# comment\n\ttwo", [("x", "one"), ("x", "two")]),
        (
            "x:\n\tone\nifdef V\n\ttwo\nelse\n\tthree\nendif\n\tfour",
            [("x", "one"), ("x", "two"), ("x", "three"), ("x", "four")],
        ),
        ("x:\n\tone\ny:\n\ttwo", [("x", "one"), ("y", "two")]),
        ("x: X = 1\n\tY = 2", []),
        (".PHONY: x\nx:\n\tls", [("x", "ls")]),
        ("include other.mk\n-include $(wildcard *.mk)\nsinclude x\nx:\n\tls", [("x", "ls")]),
        ("\n\n# only comments\n", []),
        (".RECIPEPREFIX = >\nx:\n> rm -rf /", [("x", "rm -rf /")]),
        (".RECIPEPREFIX := >\nx:\n>git push -f\n\tnot a recipe: = 1", [("x", "git push -f")]),
        ("x:\n\techo $(info hi)done", [("x", "echo done")]),
        ("x:\r\n\tgit push -f\r\n", [("x", "git push -f")]),
    ],
)
def test_recipes(makefile: str, expected: list[tuple[str, str]]) -> None:
    assert shells(makefile) == [(f"recipe of '{target}'", shell) for target, shell in expected]


@pytest.mark.parametrize(
    ("makefile", "shell"),
    [
        ("X = rm -rf\nx:\n\t$(X) /", "rm -rf /"),
        ("X := rm -rf\nx:\n\t${X} /", "rm -rf /"),
        ("X ::= rm -rf\nx:\n\t$(X) /", "rm -rf /"),
        ("X :::= rm -rf\nx:\n\t$(X) /", "rm -rf /"),
        ("X ?= rm -rf\nx:\n\t$(X) /", "rm -rf /"),
        ("X = rm\nX ?= ls\nx:\n\t$(X)", "rm"),
        ("X = rm\nX += -rf\nx:\n\t$(X) /", "rm -rf /"),
        ("X := rm\nX += -rf\nx:\n\t$(X) /", "rm -rf /"),
        ("X += rm\nx:\n\t$(X)", "rm"),
        ("override X = rm -rf\nx:\n\t$(X) /", "rm -rf /"),
        ("export X = rm -rf\nx:\n\t$(X) /", "rm -rf /"),
        ("export override X := rm -rf\nx:\n\t$(X) /", "rm -rf /"),
        ("private X = rm\nx:\n\t$(X)", "rm"),
        ("define X\nrm -rf /\nendef\nx:\n\t$(X)", "rm -rf /"),
        ("define X =\nrm -rf /\nendef\nx:\n\t$(X)", "rm -rf /"),
        ("override define X :=\nrm -rf /\nendef\nx:\n\t$(X)", "rm -rf /"),
        ("define X\ndefine Y\nendef\nendef\nx:\n\techo ok", "echo ok"),
        ("X = $(Y)\nY = git push -f\nx:\n\t$(X)", "git push -f"),
        ("x:\n\t$(X)\nX = late", "late"),
        ("A = B\nB_CMD = rm\nx:\n\t$($(A)_CMD)", "rm"),
        ("X = a\nx:\n\t$X $(X)b", "a ab"),
        ("X = rm -rf # the comment is not in the value\nx:\n\t$(X)/", "rm -rf /"),
        ("X = a\\#b\nx:\n\techo $(X)", "echo a#b"),
        ("X = git \\\n    push\nx:\n\t$(X)", "git push"),
        ("SRC = a.c b.c\nx:\n\tcc $(SRC:.c=.o)", "cc a.o b.o"),
        ("SRC = a.c b.c\nx:\n\tcc $(SRC:%.c=obj/%.o)", "cc obj/a.o obj/b.o"),
        ("x:\n\t$(MAKE) -C sub", "make -C sub"),
        ("x:\n\t$(RM) out", "rm -f out"),
        ("x:\n\t$(CC) -c a.c", "cc -c a.c"),
        ("CC = clang\nx:\n\t$(CC) -c a.c", "clang -c a.c"),
    ],
)
def test_variables(makefile: str, shell: str) -> None:
    assert [found for found in shells(makefile) if found[0] == "recipe of 'x'"] == [("recipe of 'x'", shell)]


@pytest.mark.parametrize(
    ("makefile", "env", "shell"),
    [
        ("x:\n\t$(CMD) /", {"CMD": "rm -rf"}, "rm -rf /"),
        ("x:\n\trm -rf $(HOME)", {"HOME": "/home/dev"}, "rm -rf /home/dev"),
        ("CMD = ls\nx:\n\t$(CMD)", {"CMD": "rm -rf /"}, "ls"),
        ("CMD ?= ls\nx:\n\t$(CMD)", {"CMD": "rm -rf /"}, "rm -rf /"),
        ("x:\n\t$(SHELL) -c ls", {"SHELL": "/bin/evil"}, "/bin/sh -c ls"),
        ("x:\n\t$(CC) a.c", {"CC": "gcc"}, "gcc a.c"),
    ],
)
def test_the_environment_is_read_as_variables(makefile: str, env: dict[str, str], shell: str) -> None:
    assert shells(makefile, env) == [("recipe of 'x'", shell)]


@pytest.mark.parametrize(
    ("makefile", "expected"),
    [
        ("all: a b\n\techo $@ $< $^ $+", [("all", "echo all a a b a b")]),
        ("all: a b a\n\techo $^ / $+", [("all", "echo a b / a b a")]),
        ("all: a | d\n\techo $| $(@D) $(@F)", [("all", "echo d . all")]),
        ("sub/x.o: src/x.c\n\tcc $< -o $@ $(<D) $(<F)", [("sub/x.o", "cc src/x.c -o sub/x.o src x.c")]),
        ("x:\n\techo [$<] [$^]", [("x", "echo [] []")]),
        (
            "objs = a.o b.o\n$(objs): %.o: %.c\n\tcc -c $< -o $@ $*",
            [("a.o", "cc -c a.c -o a.o a"), ("b.o", "cc -c b.c -o b.o b")],
        ),
        ("%.o: %.c\n\tcc -c $< -o $@ $*", [("%.o", f"cc -c {R} -o {R} {R}")]),
        (".c.o:\n\tcc -c $<", [(".c.o", f"cc -c {R}")]),
        ("x: a\nx:\n\tcat $< $@", [("x", f"cat {R} x")]),
        ("x:\n\techo $?", [("x", f"echo {R}")]),
    ],
)
def test_automatic_variables(makefile: str, expected: list[tuple[str, str]]) -> None:
    """A file name make picks is `RUNTIME` but not unknown: it is no command from outside."""
    assert shells(makefile) == [(f"recipe of '{target}'", shell) for target, shell in expected]


@pytest.mark.parametrize(
    ("makefile", "expected"),
    [
        ("X := $(shell git rev-parse HEAD)", [("$(shell)", "git rev-parse HEAD", 1)]),
        ("X = $(shell rm -rf /)", [("$(shell)", "rm -rf /", 1)]),
        ("$(info $(shell rm -rf /))", [("$(shell)", "rm -rf /", 1)]),
        ("\n-include $(shell git push -f)", [("$(shell)", "git push -f", 2)]),
        ("ifeq ($(shell id -u),0)\nendif", [("$(shell)", "id -u", 1)]),
        ("x: $(shell ls)", [("$(shell)", "ls", 1)]),
        ("X = $(subst a,b,$(shell rm -rf /))", [("$(shell)", "rm -rf /", 1)]),
        ("C = rm -rf /\nX := $(shell $(C))", [("$(shell)", "rm -rf /", 2)]),
        ("X := ${shell ls}", [("$(shell)", "ls", 1)]),
        ("X := $(call shell,rm -rf /)", [("$(shell)", "rm -rf /", 1)]),
        ("F = shell\nX = $(call $(F),rm -rf /)", [("$(shell)", "rm -rf /", 2)]),
        ("X != git push -f", [("!=", "git push -f", 1)]),
        ("C = git push\nX != $(C) -f", [("!=", "git push -f", 2)]),
        ("X = $$(shell rm -rf /)", []),
        ("X = $(shell)", []),
    ],
)
def test_shell_function_and_shell_assignment(makefile: str, expected: list[tuple[str, str, int]]) -> None:
    found = read(makefile)
    assert [(launch.api, launch.shell, launch.line) for launch in found] == expected
    assert not any(launch.unknown for launch in found)


def test_the_output_of_shell_is_unknown_in_a_recipe() -> None:
    found = read("V := $(shell git describe)\nx:\n\techo $(V)")
    assert found[0] == Launch(api="$(shell)", shell="git describe", line=1)
    assert found[1].api == "recipe of 'x'" and found[1].shell == f"echo {R}" and found[1].unknown


def test_a_shell_in_a_recipe_sees_the_automatic_variables() -> None:
    found = read("x: a\n\techo $(shell cat $<)")
    assert Launch(api="$(shell)", shell="cat a", line=2) in found


@pytest.mark.parametrize(
    ("makefile", "shell"),
    [
        ("x:\n\t$(UNSET) -rf /", f"{R} -rf /"),
        ("x:\n\trm -rf $(DIR)/", f"rm -rf {R}/"),
        ("x:\n\t$(subst a,b,rm) x", f"{R} x"),
        ("x:\n\t$(patsubst %,%,rm) x", f"{R} x"),
        ("x:\n\trm $(wildcard *.o)", f"rm {R}"),
        ("x:\n\trm $(strip a)", f"rm {R}"),
        ("x:\n\trm $(file <f)", f"rm {R}"),
        ("X = $(X) more\nx:\n\t$(X)", f"{R} more"),
        ("X = a\nx:\n\t$(value X) $(value Y)", f"a {R}"),
        ("x:\n\t$(call UNDEFINED,a)", R),
        ("x:\n\t$(eval Y := 1)$(origin Y)", R),
        ("x:\n\techo $(", f"echo {R}"),
        ("x:\n\t$(foreach v,$(LIST),rm $(v))", f"rm {R}"),
        ("undefine CC\nx:\n\t$(CC) a.c", f"{R} a.c"),
    ],
)
def test_what_rein_cannot_compute_is_unknown(makefile: str, shell: str) -> None:
    found = [launch for launch in read(makefile) if launch.api == "recipe of 'x'"]
    assert [launch.shell for launch in found] == [shell]
    assert all(launch.unknown for launch in found)


@pytest.mark.parametrize(
    ("makefile", "expected"),
    [
        ("ifeq ($(OS),Windows)\nRM = del\nelse\nRM = rm -rf\nendif\nx:\n\t$(RM) /", ["del /", "rm -rf /"]),
        ("ifndef CI\nC = ls\nelse\nC = rm -rf /\nendif\nx:\n\t$(C)", ["ls", "rm -rf /"]),
        ("ifdef A\nC = a\nelse ifdef B\nC = b\nelse\nC = c\nendif\nx:\n\t$(C)", ["a", "b", "c"]),
        ("ifneq (a,b)\nx:\n\tone\nelse\nx:\n\ttwo\nendif", ["one", "two"]),
        ('ifeq "a" "b"\nQ = @\nelse\nQ =\nendif\nx:\n\t$(Q)echo hi', ["echo hi"]),
        ("C = ls\nifdef X\nC += -l\nendif\nx:\n\t$(C)", ["ls", "ls -l"]),
        ("ifdef X\nifdef Y\nC = a\nelse\nC = b\nendif\nelse\nC = c\nendif\nx:\n\t$(C)", ["a", "b", "c"]),
        ("C = $(if $(X),rm -rf /,ls)\nx:\n\t$(C)", ["rm -rf /", "ls"]),
        ("C = $(if ok,rm -rf /,ls)\nx:\n\t$(C)", ["rm -rf /"]),
        ("C = $(if ,rm -rf /,ls)\nx:\n\t$(C)", ["ls"]),
    ],
)
def test_both_branches_of_a_conditional_apply(makefile: str, expected: list[str]) -> None:
    found = [launch for launch in read(makefile) if launch.api == "recipe of 'x'"]
    assert sorted(launch.shell or "" for launch in found if not launch.unknown) == sorted(expected)


def test_a_variable_set_in_one_branch_only_may_be_unset() -> None:
    found = read("ifdef X\nC = rm -rf /\nendif\nx:\n\t$(C)")
    assert [(launch.shell, bool(launch.unknown)) for launch in found] == [("rm -rf /", False), (R, True)]


def test_a_target_specific_variable_is_one_of_the_values() -> None:
    found = read("C = ls\nx: C = rm -rf /\nx:\n\t$(C)")
    assert [launch.shell for launch in found] == ["ls", "rm -rf /"]


@pytest.mark.parametrize(
    ("makefile", "expected"),
    [
        ("define R\n$(1):\n\trm -rf $(2)\nendef\n$(eval $(call R,clean,/))", [("clean", "rm -rf /")]),
        ("$(eval x: ; git push -f)", [("x", "git push -f")]),
        ("$(eval C := rm -rf)\nx:\n\t$(C) /", [("x", "rm -rf /")]),
        (
            "define T\n$(1):\n\tbuild $(1)\nendef\n$(foreach t,a b,$(eval $(call T,$(t))))",
            [("a", "build a"), ("b", "build b")],
        ),
        ("FILES := a b\nx:\n\t$(foreach f,$(FILES),rm $(f);)", [("x", "rm a; rm b;")]),
        ("ADD = $(1)+$(2)\nx:\n\techo $(call ADD,1,2)", [("x", "echo 1+2")]),
        ("R = $(eval $(1): ; $(2))\n$(call R,y,git push -f)\nx:\n\tls", [("x", "ls"), ("y", "git push -f")]),
    ],
)
def test_eval_call_and_foreach(makefile: str, expected: list[tuple[str, str]]) -> None:
    assert sorted(shells(makefile)) == sorted((f"recipe of '{target}'", shell) for target, shell in expected)


def test_eval_of_a_value_built_at_run_time_is_unknown() -> None:
    found = read("$(eval $(shell cat rules.mk))")
    assert Launch(api="$(shell)", shell="cat rules.mk", line=1) in found
    assert any(launch.api == "$(eval)" and launch.unknown for launch in found)


def test_eval_that_evaluates_itself_is_bounded() -> None:
    found = read("E = $(eval $$(E))\n$(E)")
    assert any("too deeply" in launch.unknown for launch in found)


@pytest.mark.parametrize(
    "makefile",
    [
        "T = $(eval $(1): ; build $(2))",
        "T = $(shell cat $(1))",
        "define T\n$(1):\n\t$(2)\nendef",
    ],
)
def test_a_template_alone_is_no_unknown_launch(makefile: str) -> None:
    assert not any(launch.unknown for launch in read(makefile))


def test_secondary_expansion_runs_the_prerequisites_again() -> None:
    found = read(".SECONDEXPANSION:\nx: $$(shell rm -rf /)\n\tls")
    assert Launch(api="$(shell)", shell="rm -rf /", line=2) in found
    assert read("x: $$(shell rm -rf /)\n\tls") == (Launch(api="recipe of 'x'", shell="ls", line=2),)


def test_a_variable_name_built_at_run_time_is_unknown() -> None:
    found = read("$(shell echo CMD) = rm -rf /\nx:\n\t$(CMD)")
    assert any(launch.api == "make" and "name is built at run time" in launch.unknown for launch in found)


@pytest.mark.parametrize(
    ("makefile", "found"),
    [
        ("SHELL = /bin/bash\nx:\n\tgit push -f", [Launch(api="recipe of 'x'", shell="git push -f", line=3)]),
        (
            "SHELL := /usr/bin/env bash\nx:\n\tls",
            [Launch(api="recipe of 'x'", argv=("/usr/bin/env", "bash", "-c", "ls"), line=3)],
        ),
        (
            'SHELL = python3\nx:\n\timport os; os.system("rm -rf /")',
            [Launch(api="recipe of 'x'", argv=("python3", "-c", 'import os; os.system("rm -rf /")'), line=3)],
        ),
        (
            "SHELL = perl\n.SHELLFLAGS = -e\nx:\n\tsystem 'ls'",
            [Launch(api="recipe of 'x'", argv=("perl", "-e", "system 'ls'"), line=4)],
        ),
        (
            "x: SHELL = node\nx:\n\tls",
            [
                Launch(api="recipe of 'x'", shell="ls", line=3),
                Launch(api="recipe of 'x'", argv=("node", "-c", "ls"), line=3),
            ],
        ),
    ],
)
def test_recipes_run_by_shell(makefile: str, found: list[Launch]) -> None:
    assert list(read(makefile)) == found


@pytest.mark.parametrize(
    ("makefile", "argv"),
    [
        (".SHELLFLAGS = -ec\nx:\n\tls", ("/bin/sh", "-ec", "ls")),
        (
            "SHELL = /bin/bash\n.SHELLFLAGS = -eu -o pipefail -c\nx:\n\tls",
            ("/bin/bash", "-eu", "-o", "pipefail", "-c", "ls"),
        ),
        ("SHELL = bash\n.SHELLFLAGS = -c 'rm -rf /' x\nx:\n\tls", ("bash", "-c", "rm -rf /", "x", "ls")),
    ],
)
def test_shell_flags_other_than_c_make_an_argv(makefile: str, argv: tuple[str, ...]) -> None:
    assert [launch.argv for launch in read(makefile)] == [argv]


def test_a_shell_rein_cannot_know_makes_recipes_unknown() -> None:
    (launch,) = read("SHELL = $(TOOL)\nx:\n\tls")
    assert launch.shell == "ls" and launch.unknown


@pytest.mark.parametrize(
    ("makefile", "expected"),
    [
        ("CC = rm -rf /", {"%.o: %.c", "%: %.c", "%: %.o", "%.s: %.S"}),
        ("CFLAGS = -O2", {"%.o: %.c", "%: %.c"}),
        ("CXX = clang++", {"%.o: %.cc", "%.o: %.cpp", "%: %.cc"}),
        ("AR = evil", {"(%): %"}),
        ("COMPILE.c = rm -rf /", {"%.o: %.c"}),
        ("X = 1\nx:\n\tls", set()),
    ],
)
def test_built_in_rules_run_the_variables_a_makefile_sets(makefile: str, expected: set[str]) -> None:
    """`make foo.o` with a foo.c runs `$(CC) $(CFLAGS) -c foo.c`: setting CC changes what it runs."""
    found = [launch for launch in read(makefile) if launch.api.startswith("built-in rule")]
    assert {launch.api.removeprefix("built-in rule '").removesuffix("'") for launch in found} == expected
    assert not any(launch.unknown for launch in found)


def test_a_built_in_rule_runs_the_command_a_makefile_hides_in_cc() -> None:
    found = read("CC = rm -rf /\nall: foo")
    assert found[0].api == "built-in rule '%.o: %.c'"
    assert found[0].shell is not None and found[0].shell.startswith("rm -rf / ")


def test_oneshell_runs_a_rules_lines_in_one_shell() -> None:
    found = read(".ONESHELL:\nx:\n\t@cd /\n\trm -rf *\ny:\n\tls")
    assert shells(".ONESHELL:\nx:\n\t@cd /\n\trm -rf *\ny:\n\tls") == [
        ("recipe of 'x'", "cd /\nrm -rf *"),
        ("recipe of 'y'", "ls"),
    ]
    assert found[0].line == 3


def test_a_multi_line_variable_is_several_commands() -> None:
    assert shells("define CMDS\n@rm -rf /\n-git push -f\nendef\nx:\n\t$(CMDS)") == [
        ("recipe of 'x'", "rm -rf /"),
        ("recipe of 'x'", "git push -f"),
    ]


@pytest.mark.parametrize(
    "makefile",
    [
        "X = rm -rf /",
        "X := git push -f\nY = $(X)",
        ".PHONY: all clean\nall: build",
        "x: y z",
        "x: X = rm -rf /",
        "# x:\n#\trm -rf /",
        "ifdef X\nendif",
        "export PATH\nunexport X\nvpath %.c src",
        "define X\nx:\n\trm -rf /\nendef",
        "x:\n    rm -rf /",
        "",
        "\t\n",
    ],
)
def test_makefiles_that_launch_nothing(makefile: str) -> None:
    assert read(makefile) == ()


def test_a_tab_line_before_any_rule_is_no_recipe() -> None:
    assert read("\tX = 1\nx:\n\techo $(X)") == (Launch(api="recipe of 'x'", shell="echo 1", line=3),)


@pytest.mark.parametrize(
    "makefile",
    [
        "ifdef X\nx:\n\trm -rf /",
        "endif\nx:\n\tls",
        "define X\nx:\n\tls",
        "x:\n\tls\nthis is no make line\n\tls",
    ],
)
def test_a_makefile_that_does_not_parse_with_a_recipe_is_unknown(makefile: str) -> None:
    assert any(launch.api == "make" and "does not parse" in launch.unknown for launch in read(makefile))


def test_a_makefile_that_does_not_parse_without_a_launch_adds_nothing() -> None:
    assert read("this is no make line") == ()
    assert read("x:\n    rm -rf /") == ()


def test_a_doubling_variable_chain_is_bounded() -> None:
    lines = ["X0 = a", *(f"X{n} = $(X{n - 1})$(X{n - 1})" for n in range(1, 40)), "x:\n\techo $(X39)"]
    (launch,) = read("\n".join(lines))
    assert launch.unknown


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [*"$(){}:;=+?!#\\@-%|, \n\tabcx", "\n\t", "ifdef X\n", "else\n", "endif\n", "define X\n",
             "endef\n", "$(shell ls)", "$(eval ", "$(call ", "$(foreach v,", "include ", ":=", "!=", "$@",
             "override ", "export ", "SHELL", ".RECIPEPREFIX"]
        ),
        max_size=40,
    ).map("".join)
)  # fmt: skip
def test_read_never_raises(text: str) -> None:
    found = read(text)
    assert all(launch.shell is not None or launch.argv or launch.unknown for launch in found)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_read_never_raises_on_any_text(text: str) -> None:
    read(text)
