"""The awk reader: `system()`, output and input pipes, gawk's `|&` and indirect calls; strings as data;
escapes, concatenation, regexes told from division, comments; variables resolved only where no
assignment from outside the text could change them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import RUNTIME, Launch, launches
from rein.steering.bash.launch.awk._lex import tokenize


def read(text: str) -> tuple[Launch, ...]:
    return launches("awk", text)


R = RUNTIME
FED = f'printf %s "{R}" | '
"""What an output pipe's command reads: awk's output, data known only at run time."""
PIPES = ("print |", "printf |", "|&")


def expected(api: str, shell: str) -> str:
    return FED + shell if api in PIPES else shell


@pytest.mark.parametrize(
    ("program", "api", "shell"),
    [
        ('BEGIN { system("git push --force") }', "system()", "git push --force"),
        ('BEGIN{system("rm -rf /")}', "system()", "rm -rf /"),
        ('{ system ( "ls" ) }', "system()", "ls"),
        ('{ print | "sh" }', "print |", "sh"),
        ('{ print $0 | "sort -r" }', "print |", "sort -r"),
        ('{ printf "%s\\n", $1 | "sh -s" }', "printf |", "sh -s"),
        ('{ printf("%s", $1) | "cat" }', "printf |", "cat"),
        ('BEGIN { print "2+2" |& "bc" }', "|&", "bc"),
        ('{ "date" | getline d; print d }', "| getline", "date"),
        ('{ "date" | getline }', "| getline", "date"),
        ('BEGIN { while (("ls -l" | getline line) > 0) print line }', "| getline", "ls -l"),
        ('BEGIN { "whoami" |& getline me }', "|& getline", "whoami"),
        ('BEGIN { "git " "push -f" | getline }', "| getline", "git push -f"),
        # escapes
        ('BEGIN { system("a\\"b") }', "system()", 'a"b'),
        ('BEGIN { system("git\\tpush") }', "system()", "git\tpush"),
        ('BEGIN { system("rm -rf \\/") }', "system()", "rm -rf /"),
        ('BEGIN { system("\\x72m -rf /") }', "system()", "rm -rf /"),
        ('BEGIN { system("\\162m -rf /") }', "system()", "rm -rf /"),
        ('BEGIN { system("a\\\\b") }', "system()", "a\\b"),
        ('BEGIN { system("echo \\q") }', "system()", "echo q"),
        ('BEGIN { system("git push \\\n--force") }', "system()", "git push --force"),
        # concatenation and grouping
        ('BEGIN { system("git " "push " "-f") }', "system()", "git push -f"),
        ('BEGIN { system(("git" " push") " -f") }', "system()", "git push -f"),
        ('BEGIN { system("rm -rf " "/" ) }', "system()", "rm -rf /"),
        ('BEGIN { system("sleep " 10) }', "system()", "sleep 10"),
        ('BEGIN { system("sleep " 1e1) }', "system()", "sleep 10"),
        ('BEGIN { system("sleep " 0.5) }', "system()", "sleep 0.5"),
        ('BEGIN { system("git push -f") ; close("x") }', "system()", "git push -f"),
        # line continuations and comments
        ('BEGIN { system("git "\\\n"push -f") }', "system()", "git push -f"),
        ('# system("nope")\nBEGIN { system("ls") } # system("nope")', "system()", "ls"),
        ('BEGIN { x = "#"; system("ls") }', "system()", "ls"),
        # regexes are not division, and hold no code
        ('/system\\("x"\\)/ { system("ls") }', "system()", "ls"),
        ('$0 ~ /a\\/b/ { system("ls") }', "system()", "ls"),
        ('/[/]/ { system("ls") }', "system()", "ls"),
        ('{ x = a / 2; y = b / 3; system("ls") }', "system()", "ls"),
        # variables assigned once from a literal, before the use, where nothing from outside can change them
        ('BEGIN { c = "rm -rf /"; system(c) }', "system()", "rm -rf /"),
        ('BEGIN { c = "git " "push -f"; system(c) }', "system()", "git push -f"),
        ('BEGIN { c = "rm -rf /" }\nBEGIN { system(c) }', "system()", "rm -rf /"),
        ('BEGIN { c = "rm -rf /"\n system("sudo " c) }', "system()", "sudo rm -rf /"),
        ('{ c = "sh"; print | c }', "print |", "sh"),
        ('END { c = "ls"; c | getline x; close(c) }', "| getline", "ls"),
        ('BEGIN { if (x) y = 1; c = "ls"; system(c) }', "system()", "ls"),
        ('BEGIN { c = "ls"; if (x) { system(c) } }', "system()", "ls"),
        # gawk's indirect call of a variable naming system
        ('BEGIN { f = "system"; @f("rm -rf /") }', "@f()", "rm -rf /"),
    ],
)
def test_launches(program: str, api: str, shell: str) -> None:
    found = read(program)
    assert [(launch.api, launch.shell, launch.unknown) for launch in found] == [
        (api, expected(api, shell), "")
    ]


def test_line_numbers_and_order() -> None:
    program = 'BEGIN {\n  system("a")\n}\n{ print |\n "b" }\nEND { "c" | getline }'
    assert read(program) == (
        Launch(api="system()", shell="a", line=2),
        Launch(api="print |", shell=FED + "b", line=4),
        Launch(api="| getline", shell="c", line=6),
    )


def test_the_briefs_examples() -> None:
    assert read('BEGIN { system("git push --force") }') == (
        Launch(api="system()", shell="git push --force", line=1),
    )
    # `sh` reads what awk prints: the walker sees it read commands from data known only at run time
    assert read('{ print | "sh" }') == (Launch(api="print |", shell=f'printf %s "{R}" | sh', line=1),)


@pytest.mark.parametrize(
    "program",
    [
        "{print $1}",
        'BEGIN { print "rm -rf /" }',
        'BEGIN { printf "%s", "git push -f" }',
        '{ print > "out.txt" }',
        '{ print >> "/tmp/log"; printf "x" > "/dev/stderr" }',
        '{ close("rm -rf /") }',
        'BEGIN { x = "system(\\"rm\\")" }',
        '# system("rm -rf /")\n{ print }',
        "/system/ { n++ } END { print n }",
        'BEGIN { system("") }',
        '{ getline line < "file"; print line }',
        "{ getline; getline x }",
        '{ a[$1] = a[$1] " " $2 } END { for (k in a) print k, a[k] }',
        "{ print length($0) / 2 }",
        'BEGIN { FS = ","; OFS = "|" } { $1 = $1; print }',
        "BEGIN { x = 1 ? 2 : 3 }",
        '@include "lib.awk"\n{ print }',
        "",
        "\n\n",
        "function f(x) { return x * 2 } { print f($1) }",
        "{ x = a || b; y = c && d }",
    ],
)
def test_data_only_programs_launch_nothing(program: str) -> None:
    assert read(program) == ()


@pytest.mark.parametrize(
    ("program", "api", "shell"),
    [
        ('BEGIN { system("rm -rf " dir) }', "system()", f"rm -rf {R}"),
        ('{ system("rm -rf " $1) }', "system()", f"rm -rf {R}"),
        ('{ system("echo " $1 " | sh") }', "system()", f"echo {R} | sh"),
        ('{ system("kill " a[1]) }', "system()", f"kill {R}"),
        ('{ system("touch " toupper($1) ".txt") }', "system()", f"touch {R}.txt"),
        ('{ system("sleep " 1+2 " && ls") }', "system()", f"sleep {R} && ls"),
        ('{ system("n=" (-x)) }', "system()", f"n={R}"),
        ('{ system("n=" !x) }', "system()", f"n={R}"),
        ('{ system("n=" i++) }', "system()", f"n={R}"),
        ('{ print | "sort -k" n }', "print |", f"sort -k{R}"),
        ('{ "cat " FILENAME | getline x }', "| getline", f"cat {R}"),
        ('BEGIN { c = "ls" } { system(c " -l") }', "system()", f"{R} -l"),
    ],
)
def test_values_built_at_run_time(program: str, api: str, shell: str) -> None:
    (launch,) = read(program)
    assert (launch.api, launch.shell) == (api, expected(api, shell))
    assert launch.unknown


@pytest.mark.parametrize(
    "program",
    [
        "{ system($0) }",
        "{ system(cmd) }",
        "{ print | $2 }",
        "{ $1 | getline x }",
        'function run(c) { system(c) } BEGIN { run("ls") }',
        # a BEGIN value used later may be replaced by an operand assignment (awk '...' c=x file)
        'BEGIN { c = "ls" } { system(c) }',
        'BEGIN { c = "ls" } END { system(c) }',
        # used before the program's own assignment: -v c=... holds there
        '{ system(c); c = "ls" }',
        'BEGIN { system(c) } BEGIN { c = "ls" }',
        # assigned more than once, conditionally, from a non-literal, or changed in place
        'BEGIN { c = "ls"; c = "rm -rf /"; system(c) }',
        'BEGIN { if (x) c = "ls"; system(c) }',
        'BEGIN { if (x)\n c = "ls"\n system(c) }',
        'BEGIN { if (x) { c = "ls" }; system(c) }',
        'BEGIN { if (x) y = 1; else c = "ls"; system(c) }',
        'BEGIN { while (x) c = "ls"; system(c) }',
        'BEGIN { c = "ls"; c = c " -l"; system(c) }',
        'BEGIN { c = "ls"; c++; system(c) }',
        'BEGIN { c = "ls"; c += 1; system(c) }',
        'BEGIN { c = "ls"; getline c; system(c) }',
        'BEGIN { c = "ls"; getline c < "file"; system(c) }',
        'BEGIN { c = "ls"; $1 | getline c; system(c) }',
        'BEGIN { c = "ls"; sub(/ls/, "rm", c); system(c) }',
        'BEGIN { c = "ls"; for (c in a) x = 1; system(c) }',
        'BEGIN { c = "ls"; f(); system(c) } function f() { c = "rm -rf /" }',
        'BEGIN { c = "ls" x; system(c) }',
        'BEGIN { NR = "ls"; system(NR) }',
        'BEGIN { c = "ls"; SYMTAB["c"] = "rm"; system(c) }',
        "BEGIN { system(c = x) }",
        'BEGIN { system(x ? "a" : "b") }',
        'BEGIN { system("a" == "b") }',
    ],
)
def test_commands_rein_cannot_know(program: str) -> None:
    found = read(program)
    assert found and all(launch.unknown for launch in found)
    assert not any(launch.shell == "ls" for launch in found)


def test_a_whole_unknown_command_has_no_shell_text() -> None:
    (launch,) = read("{ system($0) }")
    assert launch == Launch(api="system()", unknown="system() runs a command built at run time", line=1)


def test_an_assignment_inside_system_gives_its_value() -> None:
    assert read('BEGIN { system(c = "ls") }') == (Launch(api="system()", shell="ls", line=1),)


@pytest.mark.parametrize(
    ("program", "found"),
    [
        ('BEGIN { f = "system"; @f("ls") }', (Launch(api="@f()", shell="ls", line=1),)),
        ('BEGIN { f = "myfunc"; @f("ls") }', ()),
        (
            "{ @f($1) }",
            (
                Launch(
                    api="@f()", unknown="gawk calls the function named by f, which may be system()", line=1
                ),
            ),
        ),
    ],
)
def test_indirect_calls(program: str, found: tuple[Launch, ...]) -> None:
    assert read(program) == found


@pytest.mark.parametrize(
    "program",
    ['BEGIN { system("ls) }', "BEGIN { system(", '{ print | "sh"', '{ x = "a" | getline }}', "BEGIN { @f( }"],
)
def test_broken_programs_that_name_a_process_api_are_unknown(program: str) -> None:
    found = read(program)
    assert any(launch.api == "awk" and "does not parse" in launch.unknown for launch in found)


@pytest.mark.parametrize("program", ['BEGIN { print "x }', "{ print $1 ", "{ ` }"])
def test_broken_programs_without_a_process_api_launch_nothing(program: str) -> None:
    assert read(program) == ()


def test_a_launch_before_a_parse_error_is_still_reported() -> None:
    found = read('BEGIN { system("git push -f") }\n{ print "x }')
    assert Launch(api="system()", shell="git push -f", line=1) in found
    assert any("does not parse near line 2" in launch.unknown for launch in found)


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("a / b / c", ["name", "op", "name", "op", "name"]),
        ("a = /b/", ["name", "op", "regex"]),
        ("print /x/", ["name", "regex"]),
        ("(a) / 2 / 3", ["op", "name", "op", "op", "num", "op", "num"]),
        ("x[1] /2/ 1", ["name", "op", "num", "op", "op", "num", "op", "num"]),
        ("a /= 2", ["name", "op", "num"]),
        ("$0 ~ /=/", ["op", "num", "op", "regex"]),
        ("x\n/re/", ["name", "nl", "regex"]),
        ('"a#b" # c', ["str"]),
        ("a\\\nb", ["name", "name"]),
    ],
)
def test_the_tokenizer_tells_regexes_from_division(text: str, kinds: list[str]) -> None:
    lexed = tokenize(text)
    assert [token.kind for token in lexed.tokens] == kinds
    assert lexed.error == 0


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [*'{}()[];,$|&<>"/\\#@=+-*!?:~ \n\tabc1', "system", "getline", "print", "printf", "BEGIN",
             "END", "function", "if", "else", "for", "in", "while", "|&", "x", '"ls"', "sub", "@f"]
        ),
        max_size=50,
    ).map("".join)
)  # fmt: skip
def test_read_never_raises(text: str) -> None:
    found = read(text)
    assert all(launch.api for launch in found)
    assert all(
        launch.shell is None or launch.unknown or R not in launch.shell.removeprefix(FED) for launch in found
    )


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_read_never_raises_on_any_text(text: str) -> None:
    read(text)


# --- arrays split from a literal ---------------------------------------------------------------------

SPLIT_LOOPS = [
    ('BEGIN { n = split("status,log", a, ","); for (i = 1; i <= n; i++) system("git " a[i]) }',
     ["git status", "git log"]),
    ('BEGIN { split("status log", a, " "); for (k in a) system("git " a[k]) }', ["git status", "git log"]),
    ('BEGIN { n = split("a,b", a, ","); for (i = 1; i <= 2; i++) { system("make " a[i]) } }',
     ["make a", "make b"]),
    ('BEGIN { split("x,y", a, ","); system("git " a[2]) }', ["git y"]),
    ('BEGIN { n = split("a,b", a, ","); for (i = 1; i <= n; i++) system("git " a[i] " " a[i]) }',
     ["git a a", "git b b"]),
]  # fmt: skip


@pytest.mark.parametrize(("program", "lines"), SPLIT_LOOPS, ids=[case[0] for case in SPLIT_LOOPS])
def test_elements_of_an_array_split_from_a_literal_launch_once_per_value(
    program: str, lines: list[str]
) -> None:
    found = read(program)
    assert [launch.shell for launch in found] == lines, found
    assert not any(launch.unknown for launch in found)


def test_an_index_past_the_end_is_the_empty_string() -> None:
    assert [launch.shell for launch in read('BEGIN { split("x", a, ","); system("rm -rf /" a[2]) }')] == [
        "rm -rf /"
    ]


def test_an_index_rein_cannot_bound_may_also_be_past_the_end() -> None:
    found = read('BEGIN { split("x,y", a, ","); system("git " a[j]) }')
    assert [launch.shell for launch in found] == ["git x", "git y", "git "]


def test_a_piped_command_reads_the_elements_too() -> None:
    found = read('BEGIN { n = split("a,b", a, ","); for (i = 1; i <= n; i++) print "x" | "sort -k" a[i] }')
    assert [launch.shell for launch in found] == [FED + "sort -ka", FED + "sort -kb"]


@pytest.mark.parametrize(
    "program",
    [
        '{ n = split($0, a, ","); system("git " a[1]) }',  # split of a record
        'BEGIN { split("x", a, ","); a[1] = "push -f"; system("git " a[1]) }',  # written after
        'BEGIN { system("git " a[1]); split("x", a, ",") }',  # read before the split
        'BEGIN { if (x) split("push", a, ","); system("git " a[1]) }',  # maybe not split
        'BEGIN { split("x", a, ","); split("y", a, ","); system("git " a[1]) }',  # split twice
        'BEGIN { split("x", a, ","); f(a); system("git " a[1]) }',  # passed to a function
        'BEGIN { split("x", a, ","); delete a; system("git " a[1]) }',
        'BEGIN { split("x", a, ","); sub(/x/, "y", a[1]); system("git " a[1]) }',
        'BEGIN { split("a|b", a, "[|]"); system("git " a[1]) }',  # a regular expression
        'BEGIN { split("x", a); system("git " a[1]) }',  # FS, which -F may set
        'BEGIN { split("x", a, ","); } END { system("git " a[1]) }',  # another action
    ],
)
def test_arrays_rein_cannot_follow_stay_built_at_run_time(program: str) -> None:
    assert any(launch.unknown for launch in read(program))
