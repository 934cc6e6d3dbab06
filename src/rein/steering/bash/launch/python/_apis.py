"""Python's process APIs: how each one starts a process, and what a call of it runs.

`APIS` maps a qualified name (`subprocess.run`, `os.execvp`) to a handler that reads the call's
arguments as values and returns its launches: a shell command line, an argv, or an unknown launch.
File removal through the standard library (`shutil.rmtree`, `os.remove`, `Path.unlink`) is a launch
of the equivalent `rm` or `rmdir` when its path is known, so rein's rules about removing see it; a
path built at run time is data. Code run with `exec` and its kin is `_python`'s, not this module's.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.python._scope import LIBC, Scope
from rein.steering.bash.launch.python._values import Home, Seq, Text, Value, as_text, truth, word


class Absent:
    """An argument the call does not give."""


ABSENT = Absent()
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})


@dataclass(frozen=True, slots=True)
class Site:
    """A call that may start a process: the call, the program text it is in, and its line."""

    node: ast.Call
    scope: Scope
    text: str
    line: int

    @property
    def api(self) -> str:
        """How the program writes the function it calls."""
        return written(self.text, self.node.func)

    def argument(self, index: int, keyword: str = "") -> Value | Absent:
        """The value of the argument at `index` or named `keyword`."""
        expr = argument(self.node, index, keyword)
        return None if expr is None else expr if isinstance(expr, Absent) else self.scope.value(expr)

    def unknown(self, why: str) -> Launch:
        return unknown(self.api, why, self.line)


def unknown(api: str, why: str, line: int) -> Launch:
    return Launch(api=api, unknown=f"{api} {why}", line=line)


def written(text: str, node: ast.expr) -> str:
    """How the program writes `node`, on one line and not too long."""
    spelled = " ".join((ast.get_source_segment(text, node) or ast.unparse(node)).split())
    return spelled if len(spelled) <= 60 else spelled[:57] + "..."


Handler = Callable[[Site], tuple[Launch, ...]]


def argument(call: ast.Call, index: int, keyword: str = "") -> ast.expr | Absent | None:
    """The argument at `index` or named `keyword`; None when `*args` or `**kwargs` may hold it."""
    for given in call.keywords:
        if keyword and given.arg == keyword:
            return given.value
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if position == index:
            return arg
    if keyword and any(given.arg is None for given in call.keywords):
        return None
    return ABSENT


def _command_line(site: Site, value: Value | Absent, why: str = "") -> tuple[Launch, ...]:
    """A command line run by `/bin/sh -c`."""
    if isinstance(value, Absent):
        return ()
    command = as_text(value)
    if command.known == "":
        return ()
    if all(part is None for part in command.parts):
        return (site.unknown(why or "is called with a value built at run time"),)
    reasons = [why] if why else []
    reasons += [] if command.known is not None else ["is called with a value built at run time"]
    unknown = f"{site.api} {' and '.join(reasons)}" if reasons else ""
    return (Launch(api=site.api, shell=command.shell, unknown=unknown, line=site.line),)


def _argv(site: Site, words: tuple[str | None, ...], open_: bool, why: str = "") -> tuple[Launch, ...]:
    """An argv run without a shell; `open_` when the argument list is only known at run time."""
    reasons = [why] if why else []
    reasons += ["is called with an argument list built at run time"] if open_ else []
    if not words:
        return (site.unknown(" and ".join(reasons)),) if reasons else ()
    reasons += ["runs a program whose name is built at run time"] if words[0] is None else []
    unknown = f"{site.api} {' and '.join(reasons)}" if reasons else ""
    return (Launch(api=site.api, argv=words, unknown=unknown, line=site.line),)


def _program(site: Site, value: Value) -> tuple[Launch, ...]:
    """What `pty.spawn` and a `subprocess` call without a shell run: a list is an argv, a string one
    program's name."""
    if isinstance(value, Text | Home):
        return _argv(site, (word(value),), False)
    if isinstance(value, Seq):
        return _argv(site, tuple(word(item) for item in value.items), value.open)
    return (site.unknown("is called with a value built at run time"),)


def _popen(site: Site) -> tuple[Launch, ...]:
    """`subprocess.run` and its kin (`Popen(args, bufsize, executable, ..., shell)`)."""
    args, shell = site.argument(0, "args"), site.argument(8, "shell")
    executable = site.argument(2, "executable")
    if isinstance(args, Absent):
        return ()
    if args is None:
        return (site.unknown("is called with a value built at run time"),)
    with_shell = False if isinstance(shell, Absent) else truth(shell)
    if with_shell is False:
        if isinstance(executable, Absent) or not isinstance(args, Text | Home | Seq):
            return _program(site, args)
        words = tuple(map(word, args.items)) if isinstance(args, Seq) else (word(args),)
        return _argv(site, (word(executable), *words[1:]), isinstance(args, Seq) and args.open)
    if with_shell is None:
        why = "is called with shell= built at run time"
        return (
            _argv(site, tuple(map(word, args.items)), args.open, why)
            if isinstance(args, Seq)
            else _command_line(site, args, why)
        )
    # With a shell, a list's first item is the command line and the rest are its $0, $1, ...
    command = (args.items[0] if args.items else None) if isinstance(args, Seq) else args
    if isinstance(executable, Absent) or posixpath.basename(word(executable) or "") in _SHELLS:
        return _command_line(site, command)
    return _command_line(site, command, "runs it with an executable= rein does not know as a shell")


def _shell(index: int, keyword: str) -> Handler:
    return lambda site: _command_line(site, site.argument(index, keyword))


def _listed(first: int, env: bool) -> Handler:
    """`os.execl(path, arg0, arg1, ...)`, `os.spawnle(mode, path, arg0, ..., env)`: the program is the
    path (arg0 is only the name it sees); an `e` form ends with the environment."""

    def handler(site: Site) -> tuple[Launch, ...]:
        given = site.scope.sequence(site.node.args)
        items = given.items[first : -1 if env and not given.open else None]
        return _argv(site, tuple(map(word, items[:1] + items[2:])), given.open)

    return handler


def _vector(first: int) -> Handler:
    """`os.execv(path, args)`, `os.spawnv(mode, path, args)`, `os.posix_spawn(path, argv, env)`."""

    def handler(site: Site) -> tuple[Launch, ...]:
        path, args = site.argument(first), site.argument(first + 1, "argv")
        if isinstance(path, Absent):
            return ()
        listed = args if isinstance(args, Seq) else Seq((), True)
        return _argv(site, (word(path), *map(word, listed.items[1:])), listed.open)

    return handler


def _spread(first: int) -> Handler:
    """`asyncio.create_subprocess_exec(program, *args)`, `loop.subprocess_exec(factory, program, ...)`."""

    def handler(site: Site) -> tuple[Launch, ...]:
        given = site.scope.sequence(site.node.args)
        return _argv(site, tuple(map(word, given.items[first:])), given.open)

    return handler


def _pty(site: Site) -> tuple[Launch, ...]:
    argv = site.argument(0, "argv")
    return () if isinstance(argv, Absent) else _program(site, argv)


def _pexpect(site: Site) -> tuple[Launch, ...]:
    """`pexpect.spawn(command, args)`: the command is split like a shell's words (read as a command
    line, which it may be more than), or is the program when `args` are given."""
    command, args = site.argument(0, "command"), site.argument(1, "args")
    if isinstance(args, Absent) or (isinstance(args, Seq) and not args.items and not args.open):
        return _command_line(site, command)
    if isinstance(command, Absent):
        return ()
    listed = args if isinstance(args, Seq) else Seq((), True)
    return _argv(site, (word(command), *map(word, listed.items)), listed.open)


def _opaque(why: str) -> Handler:
    return lambda site: (site.unknown(why),)


def removal(site: Site, command: tuple[str, ...], path: Value | Absent) -> tuple[Launch, ...]:
    """The `rm` a removal is, when its path is known (the home directory is `~`)."""
    target = None if isinstance(path, Absent) else word(path)
    if target is None:
        return ()  # a path built at run time is data: a script cleaning its own temp dir
    return (
        Launch(
            api=site.api, argv=(*command, "./" + target if target.startswith("-") else target), line=site.line
        ),
    )


def _remove(command: tuple[str, ...]) -> Handler:
    return lambda site: removal(site, command, site.argument(0, "path"))


PATH_METHODS = {"unlink": ("rm",), "rmdir": ("rmdir",), "rmtree": ("rm", "-rf")}
"""Removal methods of `pathlib.Path`, with the command each is."""
_PATH_KINDS = ("Path", "PosixPath", "WindowsPath")
_REMOVALS: dict[str, Handler] = {
    "shutil.rmtree": _remove(("rm", "-rf")),
    **{f"os.{name}": _remove(("rm",)) for name in ("remove", "unlink")},
    **{f"os.{name}": _remove(("rmdir",)) for name in ("rmdir", "removedirs")},
    **{
        f"pathlib.{kind}.{name}": _remove(command)
        for kind in _PATH_KINDS
        for name, command in PATH_METHODS.items()
    },
}
REMOVALS = frozenset(_REMOVALS)
APIS: dict[str, Handler] = {
    **{name: _shell(0, "command") for name in ("os.system", f"{LIBC}.system")},
    **{name: _shell(0, "cmd") for name in ("os.popen", "platform.popen", f"{LIBC}.popen")},
    **{f"os.popen{n}": _shell(0, "cmd") for n in "234"},  # Python 2
    **{f"pexpect.{name}": _pexpect for name in ("spawn", "spawnu")},
    **{f"pexpect.{name}": _shell(0, "command") for name in ("run", "runu")},
    **{f"{module}.{name}": _shell(0, "cmd") for module in ("subprocess", "commands")
       for name in ("getoutput", "getstatusoutput")},
    **{f"subprocess.{name}": _popen for name in ("run", "call", "check_call", "check_output", "Popen")},
    **{f"os.exec{form}": _listed(0, form.endswith("e")) for form in ("l", "le", "lp", "lpe")},
    **{f"os.exec{form}": _vector(0) for form in ("v", "ve", "vp", "vpe")},
    **{f"os.spawn{form}": _listed(1, form.endswith("e")) for form in ("l", "le", "lp", "lpe")},
    **{f"os.spawn{form}": _vector(1) for form in ("v", "ve", "vp", "vpe")},
    **{f"os.{name}": _vector(0) for name in ("posix_spawn", "posix_spawnp")},
    **{f"{module}.create_subprocess_shell": _shell(0, "cmd") for module in ("asyncio", "asyncio.subprocess")},
    **{f"{module}.create_subprocess_exec": _spread(0) for module in ("asyncio", "asyncio.subprocess")},
    "pty.spawn": _pty,
    "_posixsubprocess.fork_exec": _opaque("starts a process rein cannot read"),
    **{f"{LIBC}.{name}": _opaque(f"calls the C library's {name}") for name in (
        "execl", "execle", "execlp", "execv", "execve", "execvp", "execvpe", "posix_spawn", "posix_spawnp")},
    **_REMOVALS,
}  # fmt: skip
METHODS: dict[str, Handler] = {
    "subprocess_shell": _shell(1, "cmd"),
    "subprocess_exec": _spread(1),
    "create_subprocess_shell": _shell(0, "cmd"),
    "create_subprocess_exec": _spread(0),
}
"""Process APIs found by their method name alone, whatever the object: an asyncio event loop's."""


def lookup(name: str) -> tuple[str, Handler] | None:
    """The API `name` is and its handler. A chain through a module that imports another is that
    module's (`subprocess.os.system` is `os.system`); `f.__call__` is `f`."""
    segments = name.removesuffix(".__call__").split(".")
    for start in range(len(segments) - 1):
        key = ".".join(segments[start:])
        if key in APIS:
            return key, APIS[key]
    return None
