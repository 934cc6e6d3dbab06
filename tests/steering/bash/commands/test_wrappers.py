"""Wrappers are unwrapped recursively; the outer command keeps its own ref."""

from __future__ import annotations

import pytest

from rein.steering.bash.commands._options import Options, long_options, parse
from rein.steering.bash.model import UNKNOWN, Word
from tests.steering.bash.helpers import CWD, only, run

Expected = list[tuple[str, tuple[str, ...], str]]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "sudo -u root -g wheel -C 3 -h host -p pr -r role -t type -U u -E -- rm x",
            [("rm x", ("sudo",), "")],
        ),
        ("sudo -uroot rm x", [("rm x", ("sudo",), "")]),
        ("/usr/bin/sudo X=1 rm x", [("rm x", ("sudo",), "")]),
        ("sudo -l rm x; sudo -e f; sudo -v; sudo", []),
        ("sudo -s 'rm -rf /'; sudo -i rm -rf x", [("rm -rf /", ("sudo",), ""), ("rm -rf x", ("sudo",), "")]),
        ("doas -u root rm x", [("rm x", ("doas",), "")]),
        ("doas -C /etc/doas.conf rm x", []),
        # env's options end at the first NAME=VALUE: `-u` is the command, unknown, so its suffix is checked
        ("env A=1 -u B rm x", [("-u B rm x", ("env",), ""), ("rm x", ("env", "-u"), "argv suffix")]),
        ("env -i -u B --unset=C A=1 rm x", [("rm x", ("env",), "")]),
        ("env - rm x", [("rm x", ("env",), "")]),
        ("env -S 'rm -rf /' extra", [("rm -rf / extra", ("env",), "")]),
        ("env; env -i", []),
        ("command -p rm x; command -v rm; command -V rm", [("rm x", ("command",), "")]),
        ("builtin echo x", [("echo x", ("builtin",), "")]),
        ("exec -a name rm x; exec 3>&1", [("rm x", ("exec",), "")]),
        ("time -p rm x; /usr/bin/time -f %e -o out rm y", [("rm x", ("time",), ""), ("rm y", ("time",), "")]),
        ("timeout -s KILL -k 5 10 rm x", [("rm x", ("timeout",), "")]),
        ("timeout --signal=9 --foreground 10s rm x", [("rm x", ("timeout",), "")]),
        (
            "nice -n 5 rm x; nice -10 rm y; nice --adjustment=3 rm z",
            [("rm x", ("nice",), ""), ("rm y", ("nice",), ""), ("rm z", ("nice",), "")],
        ),
        ("nohup rm x", [("rm x", ("nohup",), "")]),
        ("ionice -c 3 -n 7 -t rm x; ionice -p 123", [("rm x", ("ionice",), "")]),
        ("stdbuf -oL -e 0 -i0 rm x", [("rm x", ("stdbuf",), "")]),
        ("setsid -f -w rm x", [("rm x", ("setsid",), "")]),
        ("watch -n 5 -d 'rm -rf x' y", [("rm -rf x y", ("watch",), "")]),
        ("watch -x rm -rf x", [("rm -rf x", ("watch",), "")]),
        ("flock -w 5 /tmp/l rm x; flock 9", [("rm x", ("flock",), "")]),
        (
            "flock /tmp/l -c 'rm x'; flock -c 'rm y' /tmp/l",
            [("rm x", ("flock",), ""), ("rm y", ("flock",), "")],
        ),
        ("xargs -0 -I{} -n 1 -P 4 -d , -E eof -L 2 -s 99 -a f rm {}", [("rm {}", ("xargs",), "")]),
        ("xargs --max-procs 4 -r rm; xargs", [("rm {}", ("xargs",), ""), ("echo {}", ("xargs",), "")]),
        (
            "parallel -j 4 --colsep , rm {} ::: a b",
            [("rm a", ("parallel",), ""), ("rm b", ("parallel",), "")],
        ),
        ("sh -c 'rm a'", [("rm a", ("sh -c",), "")]),
        ("bash -lc 'rm b' arg0", [("rm b", ("bash -c",), "")]),
        (
            "bash -xc 'rm c'; zsh -ec 'rm d'; dash -c 'rm e'",
            [("rm c", ("bash -c",), ""), ("rm d", ("zsh -c",), ""), ("rm e", ("dash -c",), "")],
        ),
        (
            "ksh -o errexit -c 'rm f'; bash --norc -c 'rm g'",
            [("rm f", ("ksh -c",), ""), ("rm g", ("bash -c",), "")],
        ),
        ("bash script.sh; bash -c", []),
        ("find . -exec rm -rf {} \\;", [("rm -rf {}", ("find -exec",), "")]),
        (
            "find . -execdir ls {} + -ok rm {} \\; -okdir cat {} ';'",
            [
                ("ls {}", ("find -execdir",), ""),
                ("rm {}", ("find -ok",), ""),
                ("cat {}", ("find -okdir",), ""),
            ],
        ),
        ("fd -x rm; fd -e py -X rm -f {} \\;", [("rm {}", ("fd -x",), ""), ("rm -f {}", ("fd -X",), "")]),
        ("eval 'rm -rf /' ; eval rm -rf x", [("rm -rf /", (), "eval"), ("rm -rf x", (), "eval")]),
        ("ssh -p 22 -i key host 'rm -rf /'", [("rm -rf /", (), "ssh")]),
        ("ssh host -t rm x; ssh host; ssh -N -L 1:2:3 host", [("rm x", (), "ssh")]),
        (
            "ssh -o ProxyCommand='nc %h %p' -N h; ssh -o 'LocalCommand=rm x' h ls",
            [("nc %h %p", ("ssh -o",), ""), ("rm x", ("ssh -o",), ""), ("ls", (), "ssh")],
        ),
        ("trap 'rm -rf /tmp/x' EXIT; trap - EXIT; trap -p", [("rm -rf /tmp/x", (), "trap")]),
        ("alias ll='ls -l' rmf='rm -rf'; rmf x", [("rm -rf x", (), "alias")]),
        (
            "su -c 'rm x'; su - root -c 'rm y'; su -lc 'rm z' u",
            [("rm x", ("su",), ""), ("rm y", ("su",), ""), ("rm z", ("su",), "")],
        ),
        (
            "runuser -u u -- rm x; pkexec --user u rm y",
            [("rm x", ("runuser",), ""), ("rm y", ("pkexec",), "")],
        ),
        ("chroot /r rm x; busybox rm y", [("rm x", ("chroot",), ""), ("rm y", ("busybox",), "")]),
        (
            "sudo -u root /usr/bin/env -i rm -rf /",
            [("/usr/bin/env -i rm -rf /", ("sudo",), ""), ("rm -rf /", ("sudo", "env"), "")],
        ),
        (
            "timeout 5 nice -n 5 nohup git push -f",
            [
                ("nice -n 5 nohup git push -f", ("timeout",), ""),
                ("nohup git push -f", ("timeout", "nice"), ""),
                ("git push -f", ("timeout", "nice", "nohup"), ""),
            ],
        ),
        (
            "sudo bash -c 'cd /tmp && rm -rf x'",
            [
                ("bash -c cd /tmp && rm -rf x", ("sudo",), ""),
                ("cd /tmp", ("sudo", "bash -c"), ""),
                ("rm -rf x", ("sudo", "bash -c"), ""),
            ],
        ),
        ("echo $(sudo rm x)", [("sudo rm x", (), "$()"), ("rm x", ("sudo",), "$()")]),
        ("ssh h 'sudo rm x'", [("sudo rm x", (), "ssh"), ("rm x", ("sudo",), "ssh")]),
        ("bash <<EOF\nrm -rf /\nEOF", [("rm -rf /", ("bash",), "heredoc")]),
        ("sh <<< 'rm -rf /'", [("rm -rf /", ("sh",), "herestring")]),
        ("sudo bash <<'EOF'\nrm x\nEOF", [("bash", ("sudo",), ""), ("rm x", ("sudo", "bash"), "heredoc")]),
        ("bash -s arg <<EOF\nrm x\nEOF", [("rm x", ("bash",), "heredoc")]),
        ("bash script.sh <<EOF\nrm x\nEOF", []),
    ],
)
def test_inner_commands_follow_the_outer_one(source: str, expected: Expected) -> None:
    analysis = run(source)
    inner = [(ref.text, ref.wrappers, ref.via) for ref in analysis.refs if ref.wrappers or ref.via]
    assert inner == expected
    outer = [ref for ref in analysis.refs if not ref.wrappers and not ref.via]
    assert outer, "the outer commands keep their refs"
    assert analysis.problems == ()


@pytest.mark.parametrize(
    ("source", "note"),
    [
        ('eval "$X"', "eval string is dynamic"),
        ("eval rm $X", "eval string is dynamic"),
        ('bash -c "$CMD"', "bash -c command is dynamic"),
        ("ssh host $CMD", "ssh command is dynamic"),
        ('env -S "$X"', "env -S string is dynamic"),
        ('watch "$X"', "watch command is dynamic"),
        ('su -c "$X"', "su -c command is dynamic"),
        ('trap "$X" EXIT', "trap command is dynamic"),
    ],
)
def test_dynamic_strings_make_the_outer_ref_unknown(source: str, note: str) -> None:
    outer = run(source).refs[0]
    assert outer.unknown and outer.unknown[0].startswith(note)


def test_wrapped_state() -> None:
    analysis = run(
        "sudo -D /d rm a; env -C sub rm b; env -C sub -C x rm c; "
        "find . -execdir rm d \\;; sudo -i rm e; ssh h rm f"
    )
    got = {ref.text: ref.state.cwd for ref in analysis.refs if ref.wrappers or ref.via}
    assert got == {
        "rm a": "/d",
        "rm b": f"{CWD}/sub",
        "rm c": f"{CWD}/x",  # GNU env keeps the last -C
        "rm d": UNKNOWN,
        "rm e": UNKNOWN,
        "rm f": UNKNOWN,
    }


def test_wrapped_env() -> None:
    analysis = run("X=1 Y=2; export X; env -u X Z=3 printenv; env -i W=1 printenv; sudo V=5 printenv")
    env, cleared, sudo = (ref.state.env for ref in analysis.refs if ref.wrappers)
    assert ("X" in env, "Y" in env, env.get("Z")) == (False, False, "3")
    assert set(cleared) == {"W", "PWD"}
    assert sudo["V"] == "5" and sudo["X"] == "1" and "Y" not in sudo


def test_prefix_variables_reach_a_child_process() -> None:
    analysis = run("D=/tmp bash -c 'cd $D && ls'")
    assert analysis.refs[-1].state.cwd == "/tmp"


def test_same_shell_wrappers_change_this_shell() -> None:
    analysis = run("builtin cd /a; pwd; command cd /b; pwd; eval 'cd /c'; pwd; bash -c 'cd /d'; pwd")
    assert [ref.state.cwd for ref in analysis.refs if ref.text == "pwd"] == ["/a", "/b", "/c", "/c"]


def test_wrapper_depth_is_bounded() -> None:
    analysis = run("sudo " * 40 + "rm x")
    assert "more than 16 levels deep" in analysis.exhausted
    assert "more than 16 levels deep" in run("eval " * 30 + "echo x").exhausted
    assert run("eval " * 10 + "echo x").refs[-1].text == "echo x"


def test_scan_options() -> None:
    argv = tuple(
        Word.literal(text)
        for text in ["x", "-ab", "-cval", "-c", "v2", "--long=1", "--take", "v3", "--", "-op"]
    )
    parsed = parse(argv, 1, Options(short_value="c", long=long_options("long=", "take="), permute=False))
    options, index = parsed.options, parsed.rest
    assert [(name, value.value if value else None) for name, value in options] == [
        ("-a", None),
        ("-b", None),
        ("-c", "val"),
        ("-c", "v2"),
        ("--long", "1"),
        ("--take", "v3"),
    ]
    assert index == 9


@pytest.mark.parametrize(
    ("source", "text", "name", "expanded", "own"),
    [
        ('D=/a; D=/b rm "$D"', "rm /a", "D", "/a", "/b"),
        ('D=/a; env D=/b rm "$D"', "rm /a", "D", "/a", "/b"),
        ('D=/a; sudo D=/b rm "$D"', "rm /a", "D", "/a", "/b"),
        ('D=/a; sudo D=/b env D=/c rm "$D"', "rm /a", "D", "/a", "/c"),
        ("HOME=/a; env -u HOME rm ~/x", "rm /a/x", "HOME", "/a", None),
        ('D=/a; export D; env -i rm "$D"', "rm /a", "D", "/a", None),
        ("D=/a; D=/b bash -c 'rm \"$D\"'", "rm /b", "D", "/b", "/b"),  # the inner shell expands
        ("D=/a; env D=/b sh -c 'rm \"$D\"'", "rm /b", "D", "/b", "/b"),
        ("D=/a; sudo D=/b sh -c 'rm \"$D\"'", "rm /b", "D", "/b", "/b"),
        ("export D=/a; D=/b command bash -c 'rm \"$D\"'", "rm /b", "D", "/b", "/b"),
        ("D=/a; D=/b eval 'rm \"$D\"'", "rm /b", "D", "/b", "/b"),
        ("D=/a; D=/b bash <<'EOF'\nrm \"$D\"\nEOF", "rm /b", "D", "/b", "/b"),
        ("D=/a; D=/b bash <<EOF\nrm \\$D\nEOF", "rm /b", "D", "/b", "/b"),
    ],
)
def test_words_expand_with_the_shells_variables(
    source: str, text: str, name: str, expanded: str, own: str | None
) -> None:
    """A command's words are expanded by the shell running it, before its prefix and wrapper
    variables apply; the command (and any shell it starts) sees those."""
    state = only(run(source), text).state
    assert state.expansion.get(name) == expanded
    assert state.env.get(name) == own


def test_a_wrappers_own_settings_expand_with_the_shells_variables() -> None:
    analysis = run('D=/a; sudo D=/b env X="$D" printenv; env D=/b env -C "$D" pwd; D=/b git -C "$D" status')
    assert only(analysis, "printenv").state.env["X"] == "/a"
    assert only(analysis, "pwd").state.cwd == "/a"
    assert only(analysis, "git -C /a status").state.cwd == "/a"


def test_a_plain_state_expands_with_its_env() -> None:
    state = run("rm x").refs[0].state
    assert state.expand_env is None and state.expansion is state.env


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('D=/a; D=/b bash <<EOF\nrm "$D" ${D}x\nEOF', "rm /a /ax"),
        ('D=/a; D=/b bash <<< "rm $D"', "rm /a"),
        ("bash <<EOF\nrm 'a\\\\b' c\\\nd '\\$x'\nEOF", "rm a\\b cd $x"),  # escapes resolved
        ("bash <<< ~/x", "/home/dev/x"),
    ],
)
def test_a_shell_reads_a_heredoc_as_the_outer_shell_expanded_it(source: str, expected: str) -> None:
    analysis = run(source)
    assert analysis.refs[-1].text == expected
    assert all(not ref.unknown for ref in analysis.refs)


@pytest.mark.parametrize(
    "source",
    [
        "bash <<EOF\nrm $(x)\nEOF",
        "bash <<EOF\nrm `x`\nEOF",
        "sh <<EOF\nrm $U\nEOF",
        "bash <<EOF\n${D:-x}\nEOF",
        "bash <<EOF\n$1\nEOF",
        'bash <<< "$U"',
    ],
)
def test_a_shell_reading_an_unknown_expansion_is_unknown(source: str) -> None:
    (shell,) = [ref for ref in run(source).refs if ref.name in ("bash", "sh")]
    assert shell.unknown and "not known statically" in shell.unknown[0]


def test_a_quoted_heredoc_and_other_readers_are_read_as_written() -> None:
    assert run("bash <<'EOF'\nrm $(x) $U\nEOF").refs[0].unknown == ()
    assert run("cat <<EOF\n$U\nEOF").refs[0].unknown == ()
    assert run("python3 <<'EOF'\nprint('$U')\nEOF").refs[0].unknown == ()
    # Unquoted, the outer shell puts $U into the program first: the program is not known.
    assert run("python3 <<EOF\nprint('$U')\nEOF").refs[0].unknown


def test_eval_holds_its_prefix_variables_while_it_runs() -> None:
    """bash puts D back after `D=x eval ...`, a POSIX shell keeps it: unknown unless both agree."""
    assert run('D=/a; D=/b eval true; echo "$D"').refs[-1].state.expansion["D"] is UNKNOWN
    assert run('D=/a; D=/a eval true; echo "$D"').refs[-1].state.expansion["D"] == "/a"
    assert run('E=/e eval true; echo "$E"').refs[-1].state.expansion["E"] is UNKNOWN
    exported = run("export D=/a; D=/a eval true; bash -c 'echo'; G=1; G=1 eval true; bash -c 'echo'")
    assert [ref.state.env.get("D") for ref in exported.refs if ref.via == ""][-1] == "/a"
    assert "G" not in exported.refs[-1].state.env, "G stays a shell variable, not exported"
