"""Runners that run the rest of their argv as a command: `sudo`, `env`, `timeout`, `nice`, `chrt`, ...

Each reads its own options as the tool does (which take a value decides where the command starts) and
says what it runs. The plain ones are entries of `_runner_tables.WRAPPERS`; the handlers here are the
tools with semantics of their own (`sudo -s`, `env -S`, the `time` keyword, `nice -5`, `script -c`).
None recurses: the walker reads the inner command again, so `sudo timeout 5 nice git push -f` unwraps
one level at a time.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import replace

from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Unwrapped, assignments, run, script
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._runner import handlers, unwrap, unwrap_parsed
from rein.steering.bash.commands._runner_tables import TIME_KEYWORD, WRAPPERS
from rein.steering.bash.commands._shells import shell_string
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Word


def _sudo(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, spec("sudo"))
    sudo = WRAPPERS["sudo"]
    login = parsed.has("-i", "--login")
    if not (login or parsed.has("-s", "--shell")) or parsed.has(*sudo.nothing):
        return unwrap_parsed(sudo, call, parsed)
    env_set, index = assignments(argv, parsed.rest)  # the arguments become a `$SHELL -c` string
    joined = shell_string("sudo", argv[index:], "sudo -s command")
    inners = tuple(replace(job, cwd_unknown=login, env_set=env_set) for job in joined.inners)
    return Unwrapped(inners, joined.notes)


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


def _time(call: Call) -> Unwrapped:
    """`time` is the keyword, which runs the command in this shell; a path is GNU time."""
    return unwrap(TIME_KEYWORD if call.argv[0].value == "time" else WRAPPERS["time"], call)


def _nice(call: Call) -> Unwrapped:
    """`nice -n N cmd`, and the obsolete `nice -N cmd`."""
    argv = call.argv
    if len(argv) > 1 and argv[1].value[:1] == "-" and argv[1].value[1:].lstrip("-").isdigit():
        return run("nice", "child", argv[2:])
    return unwrap(WRAPPERS["nice"], call)


def _script(call: Call) -> Unwrapped:
    """util-linux `script -c cmd [file]`; without `-c` it starts an interactive shell."""
    parsed = parse(call.argv, 1, spec("script"))
    command = parsed.last("-c", "--command")
    return NOTHING if command is None else shell_string("script -c", (command,), "script -c command")


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
    **handlers(WRAPPERS),
    "sudo": _sudo,
    "env": _env,
    "time": _time,
    "nice": _nice,
    "script": _script,
    "coproc": _coproc,
    "watchexec": _watchexec,
    "hub": _hub,
}
"""Wrappers by command name: each returns what the command runs. The plain ones are table entries
(`_runner_tables.WRAPPERS`)."""
