"""Runners that run the rest of their argv as a command: `sudo`, `env`, `timeout`, `nice`, `chrt`, ...

Each reads its own options as the tool does (which take a value decides where the command starts) and
says what it runs. None recurses: the walker reads the inner command again, so `sudo timeout 5 nice git
push -f` unwraps one level at a time.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import replace

from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Unwrapped, assignments, run, script
from rein.steering.bash.commands._options import Options, parse
from rein.steering.bash.commands._shells import shell_string
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Word


def _sudo(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, spec("sudo"))
    if parsed.has("-e", "--edit", "-l", "--list", "-v", "--validate", "-V", "--version", "-K"):
        return NOTHING
    env_set, index = assignments(argv, parsed.rest)
    login = parsed.has("-i", "--login")
    if login or parsed.has("-s", "--shell"):  # the arguments become a `$SHELL -c` string
        joined = shell_string("sudo", argv[index:], "sudo -s command")
        inners = tuple(replace(job, cwd_unknown=login, env_set=env_set) for job in joined.inners)
        return Unwrapped(inners, joined.notes)
    cwd, chroot = parsed.last("-D", "--chdir"), parsed.has("-R", "--chroot")
    return run("sudo", "child", argv[index:], cwd=cwd, cwd_unknown=chroot, env_set=env_set)


def _doas(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, spec("doas"))
    return NOTHING if parsed.has("-C") else run("doas", "child", call.argv[parsed.rest :])


def _env(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, spec("env"))
    index = parsed.rest
    clear = parsed.has("-i", "--ignore-environment")
    while index < len(argv) and argv[index].value == "-":
        clear, index = True, index + 1
    unset = tuple(value.value for value in parsed.values("-u", "--unset"))
    env_set, index = assignments(argv, index)
    cwd = parsed.last("-C", "--chdir")
    split = parsed.last("-S", "--split-string")
    if split is None:
        return run("env", "child", argv[index:], cwd=cwd, env_set=env_set, env_unset=unset, env_clear=clear)
    text = " ".join([split.value, *(shlex.quote(word.value) for word in argv[index:])])
    notes = (f"env -S string is dynamic: {split.raw}",) if split.dynamic else ()
    inner = Inner("env", "child", script=text, cwd=cwd, env_set=env_set, env_unset=unset, env_clear=clear)
    return Unwrapped((inner,), notes)


def _command(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, Options(permute=False))
    return NOTHING if parsed.has("-v", "-V") else run("command", "same", call.argv[parsed.rest :])


def _time(call: Call) -> Unwrapped:
    argv = call.argv
    if argv[0].value == "time":  # the keyword: runs in this shell
        return run("time", "same", argv[parse(argv, 1, Options(permute=False)).rest :])
    return run("time", "child", argv[parse(argv, 1, spec("time")).rest :])


def _after_operands(label: str, count: int, mode: str = "child") -> Callable[[Call], Unwrapped]:
    """A runner whose command follows `count` operands: `timeout 5 cmd`, `taskset 0x3 cmd`."""

    def handler(call: Call) -> Unwrapped:
        rest = parse(call.argv, 1, spec(label)).rest
        return run(label, "maybe" if mode == "maybe" else "child", call.argv[rest + count :])

    return handler


def _simple(label: str, mode: str = "child") -> Callable[[Call], Unwrapped]:
    return _after_operands(label, 0, mode)


def _nice(call: Call) -> Unwrapped:
    argv = call.argv
    if len(argv) > 1 and argv[1].value[:1] == "-" and argv[1].value[1:].lstrip("-").isdigit():
        return run("nice", "child", argv[2:])
    return run("nice", "child", argv[parse(argv, 1, spec("nice")).rest :])


def _ionice(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, spec("ionice"))
    if parsed.has("-p", "-P", "-u", "--pid", "--pgid", "--uid"):
        return NOTHING
    return run("ionice", "child", call.argv[parsed.rest :])


def _chrt(call: Call) -> Unwrapped:
    """`chrt [options] [priority] command`; `-p` works on a running process instead."""
    argv = call.argv
    parsed = parse(argv, 1, spec("chrt"))
    if parsed.has("-p", "--pid"):
        return NOTHING
    index = parsed.rest
    if index < len(argv) and argv[index].value.isdigit():
        index += 1
    return run("chrt", "child", argv[index:])


def _taskset(call: Call) -> Unwrapped:
    """`taskset [-c] mask command`; `-p` works on a running process instead."""
    parsed = parse(call.argv, 1, spec("taskset"))
    if parsed.has("-p", "--pid"):
        return NOTHING
    return run("taskset", "child", call.argv[parsed.rest + 1 :])


def _script(call: Call) -> Unwrapped:
    """util-linux `script -c cmd [file]`; without `-c` it starts an interactive shell."""
    parsed = parse(call.argv, 1, spec("script"))
    command = parsed.last("-c", "--command")
    return NOTHING if command is None else shell_string("script -c", (command,), "script -c command")


def _setsid(call: Call) -> Unwrapped:
    """util-linux setsid forks and returns at once with `-f` (unless `-w` waits); without it, it forks
    only when it leads its process group, which a command a non-interactive shell runs does not, so
    the shell waits for it."""
    parsed = parse(call.argv, 1, spec("setsid"))
    found = run("setsid", "maybe", call.argv[parsed.rest :])
    if not parsed.has("-f", "--fork") or parsed.has("-w", "--wait"):
        return found
    return Unwrapped(tuple(replace(inner, background=True) for inner in found.inners), found.notes)


def _pkexec(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, spec("pkexec"))
    return run("pkexec", "child", call.argv[parsed.rest :], cwd_unknown=not parsed.has("--keep-cwd"))


def _chroot(call: Call) -> Unwrapped:
    rest = parse(call.argv, 1, spec("chroot")).rest
    return run("chroot", "child", call.argv[rest + 1 :], cwd_unknown=True)


def _watchexec(call: Call) -> Unwrapped:
    """`watchexec [options] [--] command...`: one word is a shell command line, several an argv."""
    argv = call.argv
    parsed = parse(argv, 1, spec("watchexec"))
    rest = argv[parsed.rest :]
    if len(rest) == 1 and not parsed.has("-n", "--shell"):
        return script("watchexec", "maybe", rest, "watchexec command")
    return run("watchexec", "maybe", rest)


def _hub(call: Call) -> Unwrapped:
    """hub wraps git: a command of its own (`pull-request`, `browse`) aside, it runs `git` with the
    same arguments, so `hub push -f` is `git push -f`."""
    return run("hub", "child", (Word(value="git", raw=call.argv[0].raw), *call.argv[1:]))


def _coproc(call: Call) -> Unwrapped:
    inner = run("coproc", "maybe", call.argv[1:])
    return Unwrapped(inner.inners, problems=("unsupported shell construct 'coproc'",))


HANDLERS: dict[str, Callable[[Call], Unwrapped]] = {
    "sudo": _sudo,
    "doas": _doas,
    "env": _env,
    "command": _command,
    "builtin": lambda call: run("builtin", "same", call.argv[1:]),
    "exec": lambda call: run("exec", "same", call.argv[parse(call.argv, 1, spec("exec")).rest :]),
    "time": _time,
    "timeout": _after_operands("timeout", 1),
    "nice": _nice,
    "nohup": _simple("nohup"),
    "ionice": _ionice,
    "chrt": _chrt,
    "taskset": _taskset,
    "stdbuf": _simple("stdbuf"),
    "unbuffer": _simple("unbuffer"),
    "script": _script,
    "setsid": _setsid,
    "busybox": lambda call: run("busybox", "child", call.argv[1:]),
    "pkexec": _pkexec,
    "chroot": _chroot,
    "coproc": _coproc,
    "watchexec": _watchexec,
    "hub": _hub,
}
"""Wrappers by command name: each returns what the command runs."""
