"""Python's process APIs: how each one starts a process, and what a call of it runs.

`APIS` maps a qualified name (`subprocess.run`, `os.execvp`) to a handler that reads the call's
arguments as values and returns its launches: a shell command line, an argv, or an unknown launch.
File removal through the standard library (`shutil.rmtree`, `os.remove`, `Path.unlink`) is a launch
of the equivalent `rm` or `rmdir` when its path is known, so rein's rules about removing see it; a
path built at run time is data. Code run with `exec` and its kin is `_reader`'s,
not this module's; other libraries' process APIs are `_libraries`'s.
"""

from __future__ import annotations

import posixpath

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.python._call_site import (
    SHELLS,
    Absent,
    Handler,
    Site,
    argv,
    command_line,
    opaque,
    program,
    program_argument,
    removal,
    shell,
)
from rein.steering.bash.launch.python._libraries import LIBRARIES
from rein.steering.bash.launch.python._resolve import LIBC
from rein.steering.bash.launch.python._values import Glob, Home, Seq, Text, truth, word


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
        if isinstance(executable, Absent) or not isinstance(args, Text | Home | Glob | Seq):
            return program(site, args)
        items = args.items if isinstance(args, Seq) else (args,)
        return argv(site, (executable, *items[1:]), isinstance(args, Seq) and args.open)
    if with_shell is None:
        why = "is called with shell= built at run time"
        return (
            argv(site, args.items, args.open, why) if isinstance(args, Seq) else command_line(site, args, why)
        )
    # With a shell, a list's first item is the command line and the rest are its $0, $1, ...
    command = (args.items[0] if args.items else None) if isinstance(args, Seq) else args
    if isinstance(executable, Absent) or posixpath.basename(word(executable) or "") in SHELLS:
        return command_line(site, command)
    return command_line(site, command, "runs it with an executable= rein does not know as a shell")


def _listed(first: int, env: bool) -> Handler:
    """`os.execl(path, arg0, arg1, ...)`, `os.spawnle(mode, path, arg0, ..., env)`: the program is the
    path (arg0 is only the name it sees); an `e` form ends with the environment."""

    def handler(site: Site) -> tuple[Launch, ...]:
        given = site.scope.sequence(site.node.args)
        items = given.items[first : -1 if env and not given.open else None]
        return argv(site, items[:1] + items[2:], given.open)

    return handler


def _vector(first: int) -> Handler:
    """`os.execv(path, args)`, `os.spawnv(mode, path, args)`, `os.posix_spawn(path, argv, env)`."""

    def handler(site: Site) -> tuple[Launch, ...]:
        path, args = site.argument(first), site.argument(first + 1, "argv")
        if isinstance(path, Absent):
            return ()
        listed = args if isinstance(args, Seq) else Seq((), True)
        return argv(site, (path, *listed.items[1:]), listed.open)

    return handler


def _spread(first: int) -> Handler:
    """`asyncio.create_subprocess_exec(program, *args)`, `loop.subprocess_exec(factory, program, ...)`."""

    def handler(site: Site) -> tuple[Launch, ...]:
        given = site.scope.sequence(site.node.args)
        return argv(site, given.items[first:], given.open)

    return handler


def _pexpect(site: Site) -> tuple[Launch, ...]:
    """`pexpect.spawn(command, args)`: the command is split like a shell's words (read as a command
    line, which it may be more than), or is the program when `args` are given."""
    command, args = site.argument(0, "command"), site.argument(1, "args")
    if isinstance(args, Absent) or (isinstance(args, Seq) and not args.items and not args.open):
        return command_line(site, command)
    if isinstance(command, Absent):
        return ()
    listed = args if isinstance(args, Seq) else Seq((), True)
    return argv(site, (command, *listed.items), listed.open)


def _remove(command: tuple[str, ...]) -> Handler:
    return lambda site: removal(site, command, site.argument(0, "path"))


PATH_METHODS = {"unlink": ("rm",), "rmdir": ("rmdir",), "rmtree": ("rm", "-rf")}
"""Removal methods of `pathlib.Path`, with the command each is."""
_PATH_KINDS = ("Path", "PosixPath", "WindowsPath")
_REMOVALS: dict[str, Handler] = {
    **{name: _remove(("rm", "-rf")) for name in ("shutil.rmtree", "distutils.dir_util.remove_tree")},
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
    **{name: shell(0, "command") for name in ("os.system", f"{LIBC}.system")},
    **{name: shell(0, "cmd") for name in ("os.popen", "platform.popen", f"{LIBC}.popen")},
    **{f"os.popen{n}": shell(0, "cmd") for n in "234"},  # Python 2
    **{f"pexpect.{name}": _pexpect for name in ("spawn", "spawnu")},
    **{f"pexpect.{name}": shell(0, "command") for name in ("run", "runu")},
    **{f"{module}.{name}": shell(0, "cmd") for module in ("subprocess", "commands")
       for name in ("getoutput", "getstatusoutput")},
    **{f"subprocess.{name}": _popen for name in ("run", "call", "check_call", "check_output", "Popen")},
    **{f"os.exec{form}": _listed(0, form.endswith("e")) for form in ("l", "le", "lp", "lpe")},
    **{f"os.exec{form}": _vector(0) for form in ("v", "ve", "vp", "vpe")},
    **{f"os.spawn{form}": _listed(1, form.endswith("e")) for form in ("l", "le", "lp", "lpe")},
    **{f"os.spawn{form}": _vector(1) for form in ("v", "ve", "vp", "vpe")},
    **{f"os.{name}": _vector(0) for name in ("posix_spawn", "posix_spawnp")},
    **{f"{module}.create_subprocess_shell": shell(0, "cmd") for module in ("asyncio", "asyncio.subprocess")},
    **{f"{module}.create_subprocess_exec": _spread(0) for module in ("asyncio", "asyncio.subprocess")},
    "pty.spawn": lambda site: program_argument(site, site.argument(0, "argv")),
    "_posixsubprocess.fork_exec": opaque("starts a process rein cannot read"),
    **{f"{LIBC}.{name}": opaque(f"calls the C library's {name}") for name in (
        "execl", "execle", "execlp", "execv", "execve", "execvp", "execvpe", "posix_spawn", "posix_spawnp")},
    **LIBRARIES,
    **_REMOVALS,
}  # fmt: skip
METHODS: dict[str, Handler] = {
    "subprocess_shell": shell(1, "cmd"),
    "subprocess_exec": _spread(1),
    "create_subprocess_shell": shell(0, "cmd"),
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
