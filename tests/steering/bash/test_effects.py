"""Builtins change the shell state for later commands; `git -C`, `make -C`, `env -C` move one command."""

from __future__ import annotations

import pytest

from rein.steering.bash import UNKNOWN
from rein.steering.bash._effects import git_globals, join_path
from rein.steering.bash.model import Word
from tests.steering.bash.helpers import CWD, HOME, run

U = UNKNOWN


def marks(source: str, **env: str) -> list[object]:
    """The cwd at each `pwd` in `source`."""
    return [ref.state.cwd for ref in run(source, env=env).refs if ref.text == "pwd"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("pwd; cd /tmp; pwd", [CWD, "/tmp"]),
        ("cd sub; pwd; cd ../other/./x/..; pwd", [f"{CWD}/sub", f"{CWD}/other"]),
        ("cd ~; pwd; cd ~/x; pwd; cd; pwd", [HOME, f"{HOME}/x", HOME]),
        ("cd /a; cd /b; cd -; pwd; cd -; pwd", ["/a", "/b"]),
        ("cd -P /a; pwd; cd -L -- /b; pwd; cd -e -P ..; pwd", ["/a", "/b", "/"]),
        ("cd ''; pwd", [CWD]),
        ("cd //x//y/; pwd", ["/x/y"]),
        ('WS=/tmp; cd "$WS/pkg"; pwd', ["/tmp/pkg"]),
        ("WS=/tmp; cd ${WS}/pkg; pwd", ["/tmp/pkg"]),
        ("cd $(pwd -P); pwd; cd /a; pwd", [U, "/a"]),
        ("cd $UNSET; pwd; cd rel; pwd; cd /abs; pwd", [U, U, "/abs"]),
        ("cd *; pwd", [U]),
        ("cd a b; pwd", [U]),
        ("cd ~other; pwd", [U]),
        ("pushd /a; pwd; pushd /b; pwd; popd; pwd; popd; pwd; popd; pwd", ["/a", "/b", "/a", CWD, U]),
        ("pushd /a; pushd /b; pushd; pwd; pushd +1; pwd", ["/a", U]),
        ("pushd -n /a; pwd; popd +1; pwd", ["/a", U]),
        ("cd /a && (cd /b; pwd) && pwd", ["/b", "/a"]),
        ("echo $(cd /b; pwd) && pwd", ["/b", CWD]),
        ("cd /b | pwd; pwd", [CWD, CWD]),
        ("cd /b & pwd", [CWD]),
        ("{ cd /b; }; pwd", ["/b"]),
        ("X=/q cd $X; pwd", [U]),
        ("f() { cd /fn; }; pwd; f; pwd", [CWD, "/fn"]),
        ("f() ( cd /fn ); f; pwd", [CWD]),
        ("f() { cd /fn; }; unset -f f; f; pwd", [CWD]),
        ("f() { f; cd /x; }; f; pwd", ["/x"]),
    ],
)
def test_cwd(source: str, expected: list[object]) -> None:
    assert marks(source) == expected


def test_cdpath_makes_relative_cd_unknown() -> None:
    assert marks("cd sub; pwd; cd ./x; pwd; cd /a; pwd", CDPATH="/c") == [U, U, "/a"]


def test_oldpwd_from_the_start_env() -> None:
    assert marks("cd -; pwd", OLDPWD="/prev") == ["/prev"]
    assert marks("cd -; pwd") == [U]


def test_cwd_unknown_at_start_stays_unknown_until_absolute() -> None:
    analysis = run("pwd; cd rel; pwd; cd /abs; pwd", cwd=UNKNOWN)
    assert [ref.state.cwd for ref in analysis.refs if ref.text == "pwd"] == [U, U, "/abs"]
    assert run("pwd", cwd="relative/path").refs[0].state.cwd is U


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("git -C /x status", "/x"),
        ("git -C /x -C y status", "/x/y"),
        ("git -C sub -c a=b --no-pager log", f"{CWD}/sub"),
        ("git --git-dir=/g status", CWD),
        ("git --attr-source HEAD -C /x status", "/x"),
        ("git --shallow-file f --super-prefix p/ -C /x status", "/x"),
        ("git -C $D status", U),
        ("make -C sub", f"{CWD}/sub"),
        ("make -Csub all", f"{CWD}/sub"),
        ("make --directory=/q -j4", "/q"),
        ("make --directory /q", "/q"),
        ("make -f x all", CWD),
    ],
)
def test_per_command_directory(source: str, expected: object) -> None:
    analysis = run(source + "; pwd")
    assert analysis.refs[0].state.cwd == expected
    assert analysis.refs[1].state.cwd == CWD, "it moves that one command only"


@pytest.mark.parametrize(
    ("source", "name", "expected"),
    [
        ("X=1; env", "X", "1"),
        ("X=1; X+=2; env", "X", "12"),
        ("X=a; X+=$HOME; env", "X", f"a{HOME}"),
        ("X+=a; env", "X", U),
        ("X=$(date); X+=a; env", "X", U),
        ("X=a; export X+=b; env", "X", "ab"),
        ("X=a; declare X+=(b); env", "X", "a"),  # the scalar becomes the array's first element
        ("X=a X+=b env", "X", "ab"),
        ("X=a; X+=b env", "X", "ab"),
        ("X=$HOME/x; env", "X", f"{HOME}/x"),
        ("X=~/x; env", "X", f"{HOME}/x"),
        ("X=$(date); env", "X", U),
        ("X=$UNSET; env", "X", U),
        ("X=1 Y=$X; env", "Y", "1"),
        ("export X=1; env", "X", "1"),
        ("declare -x X=1 Y=2; env", "Y", "2"),
        ("local X=a; readonly Y=b; typeset Z=c; env", "Z", "c"),
        ("declare -i X=1+1; env", "X", U),
        ("declare -a X=(1 2); env", "X", "1"),  # as `X=(1 2)`
        ("declare -A X=([k]=v); env", "X", U),
        ("X=(1 2); env", "X", "1"),  # `$X` of an array is its first element
        ("X[1]=a; env", "X", U),
        ("X=1; unset X; env", "X", None),
        ("X=1; unset -v X; env", "X", None),
        ("X=1; export $Y; env", "X", None),
        ("X=1; read X; env", "X", U),
        ("read -r -p prompt A B; env", "B", U),
        ("read -a ARR; env", "ARR", U),
        ("read; env", "REPLY", U),
        ("mapfile -t LINES < f; env", "LINES", U),
        ("readarray; env", "MAPFILE", U),
        ("printf -v OUT %s x; env", "OUT", U),
        ("let X=1+2; env", "X", U),
        ("getopts ab OPT; env", "OPT", U),
        ("(( X = 5 )); env", "X", U),
        ("echo $(( Y++ )); env", "Y", U),
        ("for ((I = 0; I < 3; I++)); do :; done; env", "I", U),
        ("for V in a b; do :; done; env", "V", "b"),  # a known list is walked item by item
        ("for V in $(cat f); do :; done; env", "V", U),
        ("X=1 env", "X", "1"),
        ("X=1 true; env", "X", None),
    ],
)
def test_env(source: str, name: str, expected: object) -> None:
    analysis = run(source)
    assert analysis.refs[-1].state.env.get(name) == expected


def test_pwd_and_oldpwd_follow_cd() -> None:
    env = run("cd /a; cd /b; env").refs[-1].state.env
    assert (env["PWD"], env["OLDPWD"], env["HOME"]) == ("/b", "/a", HOME)


def test_start_env_is_kept_and_home_defaults_to_home() -> None:
    env = run("env", env={"HOME": "/other", "LANG": "C"}).refs[0].state.env
    assert (env["HOME"], env["LANG"], env["PWD"]) == ("/other", "C", CWD)


def test_join_path() -> None:
    assert join_path("/a", "b/../c") == "/a/c"
    assert join_path("/a", "/x/") == "/x"
    assert join_path(U, "rel") is U
    assert join_path(U, "/abs") == "/abs"
    assert join_path("/a", "") == "/a"


def test_git_globals() -> None:
    argv = tuple(
        Word.literal(text) for text in ["git", "-C", "a", "-c", "k=v", "--git-dir", "g", "-p", "push"]
    )
    dirs, index = git_globals(argv)
    assert ([word.value for word in dirs], index) == (["a"], 8)
    assert git_globals((Word.literal("git"),)) == ([], 1)
