"""Launchers rein's command model does not unwrap, read by `no-dev-server` itself: what each starts, and
whether the shell waits for it.

`systemd-run` starts a transient service and returns, unless `--scope`, `--wait`, `--pty`, `--pipe` or
`--shell` keep it attached (systemd-run(1)); `daemonize` always detaches; `start-stop-daemon --start`
waits for a program that does not fork itself unless `--background`; `stack exec` and `cabal exec` run
their command in the foreground. The command model sees the first three as unknown commands and checks
a suffix of their argv as if run, without their options: that ref leaves the verdict to this reading.
"""

from __future__ import annotations

from collections.abc import Callable

from rein.steering._defaults._server_read import Words, argv
from rein.steering.bash import Word
from rein.steering.bash.commands import Options, long_options, parse

Launch = tuple[bool, Words]
"""Whether the launcher leaves what it starts running detached, and that command's argv."""

_SYSTEMD_RUN = Options(
    short_value="HMupEC",
    long=long_options(
        "host=", "machine=", "unit=", "property=", "description=", "slice=", "service-type=", "uid=", "gid=",
        "nice=", "working-directory=", "setenv=", "path-property=", "socket-property=", "timer-property=",
        "on-active=", "on-boot=", "on-startup=", "on-unit-active=", "on-unit-inactive=", "on-calendar=",
        "capsule=", "json=", "background=", "expand-environment=", "user", "system", "scope", "wait",
        "pty", "pty-late", "pipe", "shell", "quiet", "collect", "same-dir", "remain-after-exit", "no-block",
        "send-sighup", "slice-inherit", "no-ask-password", "on-timezone-change", "on-clock-change",
        "ignore-failure",
    ),
    permute=False,
)  # fmt: skip
_ATTACHED = ("--scope", "--wait", "--pty", "--pty-late", "--pipe", "--shell", "-t", "-P", "-S")
"""systemd-run options that keep the command attached to the caller until it ends."""
_DAEMONIZE = Options(short_value="ceEloOpu", permute=False, abbreviate=False)
_START_STOP = Options(
    short_value="pxnugcsardNPIkOR",
    long=long_options(
        "pidfile=", "exec=", "name=", "user=", "group=", "chuid=", "signal=", "startas=", "chroot=",
        "chdir=", "nicelevel=", "procsched=", "iosched=", "umask=", "output=", "retry=", "pid=", "ppid=",
        "notify-timeout=", "start", "stop", "status", "help", "version", "background", "no-close",
        "make-pidfile", "test", "oknodo", "quiet", "verbose", "remove-pidfile", "notify-await",
    ),
)  # fmt: skip
_EXEC_VALUES = frozenset({"--package", "--rts-options", "--cwd", "--project-file", "--builddir"})
"""`stack exec`/`cabal exec` options before the command that take the next word."""


def _systemd_run(args: Words) -> Launch:
    parsed = parse(argv("systemd-run", args), 1, _SYSTEMD_RUN)
    return not parsed.has(*_ATTACHED), tuple(args[parsed.rest - 1 :])


def _daemonize(args: Words) -> Launch:
    return True, tuple(args[parse(argv("daemonize", args), 1, _DAEMONIZE).rest - 1 :])


def _start_stop(args: Words) -> Launch | None:
    parsed = parse(argv("start-stop-daemon", args), 1, _START_STOP)
    program = parsed.last("--startas", "-a") or parsed.last("--exec", "-x")
    if not parsed.has("--start", "-S") or program is None:
        return None  # `--stop`, `--status`: nothing starts
    values = [word.value for word in args]
    after = args[values.index("--") + 1 :] if "--" in values else ()
    return parsed.has("--background", "-b"), (program, *after)


def _exec(args: Words) -> Launch | None:
    """`stack exec -- yesod devel`, `stack exec yesod -- devel`, `cabal exec -- ghcid`."""
    values = [word.value for word in args]
    if "exec" not in values:
        return None
    rest = list(args[values.index("exec") + 1 :])
    command: list[Word] = []
    while rest:
        word = rest.pop(0)
        if word.value == "--" and not word.dynamic:
            continue
        if word.value.startswith("-") and not command:
            if word.value in _EXEC_VALUES and rest:
                rest.pop(0)
            continue
        command.append(word)
    return False, tuple(command)


LAUNCHERS: dict[str, Callable[[Words], Launch | None]] = {
    "systemd-run": _systemd_run,
    "daemonize": _daemonize,
    "start-stop-daemon": _start_stop,
    "stack": _exec,
    "cabal": _exec,
}
"""What each launcher starts, and whether it detaches it; None where it starts nothing rein reads."""
MANAGED = frozenset({"pm2", "forever"})
"""Process managers that start a program under their own daemon (`pm2 start app.js`): their own
reading decides (`--no-daemon`), not the program's, which they restart whenever it exits."""
