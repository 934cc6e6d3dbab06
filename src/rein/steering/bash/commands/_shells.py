"""Runners that run a string as shell code: `bash -c`, a shell reading a script or stdin, `eval`,
`source`, `ssh`, `su -c`, `watch`, `flock -c`, `trap`, `at`, and the programs `expect` spawns. The walker
parses the string like the command line itself, with the positional parameters the shell gets
(`bash -c 'rm -rf "$1"' _ /`)."""

from __future__ import annotations

import posixpath
import re

from rein.steering.bash.commands._inner import NOTHING, Argv, Call, Inner, Unwrapped, Value, run, script
from rein.steering.bash.commands._interp import shell_options
from rein.steering.bash.commands._options import Options, parse
from rein.steering.bash.commands._setup import shell_setup
from rein.steering.bash.commands._sources import STDIN_PATHS, Text, file_text, stdin_text
from rein.steering.bash.commands._startup import startup
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import UNKNOWN, Word


def shell_string(label: str, words: Argv, what: str) -> Unwrapped:
    """Words a shell joins and runs as one string (`sudo -s cmd args`, `ssh host cmd args`)."""
    return script(label, "child", words, what)


def _args(words: Argv) -> tuple[Value, ...]:
    return tuple(UNKNOWN if word.dynamic else word.value for word in words)


def shell(call: Call) -> Unwrapped:
    """`bash -c STRING [$0 [args]]`, `bash FILE [args]`, `bash` reading stdin (`-s`, a heredoc, a pipe),
    each after the start-up files the shell reads (`_startup`)."""
    name = posixpath.basename(call.argv[0].value)
    has_c, has_s, index = shell_options(call.argv)
    return startup(call, index).before(name, _program(call, name, has_c, has_s, index))


def _program(call: Call, name: str, has_c: bool, has_s: bool, index: int) -> Unwrapped:
    argv = call.argv
    if has_c:
        if index >= len(argv):
            return NOTHING
        args = _args(argv[index + 1 :])
        return script(f"{name} -c", "child", argv[index : index + 1], f"{name} -c command", args=args)
    if has_s or index >= len(argv) or argv[index].value in STDIN_PATHS:
        text, note = stdin_text(call)
        args = (name, *_args(argv[index + (not has_s and index < len(argv)) :]))
        via: str = call.stdin.kind if call.stdin is not None else "stdin"
    else:
        text, note = _script_text(call, argv[index])
        args = _args(argv[index:])
        via = "script"
    if text is None:
        return Unwrapped(notes=(note,) if note else ())
    why = f"{name} runs {argv[index].value}, which this command line wrote" if via == "script" else ""
    return Unwrapped((Inner(name, "child", script=text, args=args, via=via, why=why),))


def source(call: Call) -> Unwrapped:
    """`source FILE [args]` and `. FILE`: the file runs in this shell."""
    argv = call.argv
    if len(argv) < 2 or shell_setup(argv[1]):
        return NOTHING
    text, note = _script_text(call, argv[1])
    if text is None:
        return Unwrapped(notes=(note,) if note else ())
    why = f"{argv[0].value} reads {argv[1].value}, which this command line wrote"
    args = (argv[0].value, *_args(argv[2:]))
    return Unwrapped((Inner("", "same", script=text, via="source", args=args, why=why),))


_DESCRIPTOR = re.compile(r"/(?:dev/fd|proc/(?:self|\d+)/fd)/(\d+)")


def _script_text(call: Call, word: Word) -> Text:
    """A script file's text; one read from a descriptor other than stdin (`bash /dev/fd/3` after
    `exec 3< <(...)`) is what rein does not follow."""
    found = _DESCRIPTOR.fullmatch(word.value)
    if found is not None and found[1] != "0" and not word.dynamic:
        return None, f"{call.name} reads a script from descriptor {found[1]}, which rein does not follow"
    return file_text(call, word)


def eval_string(call: Call) -> Unwrapped:
    if len(call.argv) == 2 and shell_setup(call.argv[1]):
        return NOTHING
    return script("", "same", call.argv[1:], "eval string", via="eval")


def watch(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, spec("watch"))
    if parsed.has("-x", "--exec"):
        return run("watch", "maybe", call.argv[parsed.rest :])
    return script("watch", "maybe", call.argv[parsed.rest :], "watch command")


def flock(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, spec("flock"))
    index = parsed.rest
    command = parsed.last("-c", "--command")
    if command is None and index + 1 < len(argv) and argv[index + 1].value in ("-c", "--command"):
        command = argv[index + 2] if index + 2 < len(argv) else None
    if command is not None:
        return script("flock", "child", (command,), "flock -c command")
    return run("flock", "child", argv[index + 1 :])


def ssh(call: Call) -> Unwrapped:
    """The remote command, and the local ones `-o ProxyCommand=...` and the like run."""
    argv = call.argv
    options = spec("ssh")
    parsed = parse(argv, 1, options)
    found = list(parsed.options)
    index = parsed.rest
    if index < len(argv):  # OpenSSH reads options after the host too
        more = parse(argv, index + 1, options)
        found += more.options
        index = more.rest
    local = [
        Inner("ssh -o", "maybe", script=value.value.partition("=")[2])
        for name, value in found
        if name == "-o" and value is not None and value.value.lower().startswith(_LOCAL_COMMANDS)
    ]
    if any(name == "-N" for name, _ in found):
        return Unwrapped(tuple(local))
    remote = script("", "remote", argv[index:], "ssh command", via="ssh")
    return Unwrapped((*local, *remote.inners), remote.notes)


_ADB_VALUES = frozenset({"-s", "-t", "-H", "-P", "-L"})


def adb(call: Call) -> Unwrapped:
    """`adb [-s serial] shell|exec-out cmd...` runs the command on the device; adb's other commands
    (`reboot`, `install`, `logcat`) act on the device and run nothing here."""
    argv = call.argv
    index = 1
    while index < len(argv) and argv[index].value.startswith("-"):
        index += 2 if argv[index].value in _ADB_VALUES else 1
    if index < len(argv) and argv[index].value in ("shell", "exec-out"):
        return script("", "remote", argv[index + 1 :], "adb shell command", via="adb shell")
    return NOTHING


def trap(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, Options(permute=False))
    index = parsed.rest
    if parsed.has("-l", "-p") or len(argv) - index < 2 or argv[index].value in ("-", ""):
        return NOTHING
    return script("", "later", argv[index : index + 1], "trap command", via="trap")


def su(call: Call) -> Unwrapped:
    """`su [options] [-] [user [args]]` with `-c cmd` (also attached, `-c'cmd'`, and among the
    arguments after `--`, which the user's shell reads); `runuser -u user [--] cmd args`."""
    argv = call.argv
    label = posixpath.basename(argv[0].value)
    if label == "runuser":
        direct = parse(argv, 1, spec("runuser"))
        if direct.has("-u", "--user"):
            return run(label, "child", argv[direct.rest :])
    parsed = parse(argv, 1, spec("su"))
    operands = list(parsed.operands)
    login = parsed.has("-l", "--login") or any(word.value == "-" for word in operands[:1])
    command = parsed.last("-c", "--command", "--session-command")
    shell_args = operands[1:] if operands and operands[0].value != "-" else operands[2:]
    for index, word in enumerate(shell_args[:-1]):  # `su user -- -c cmd`: the shell's own -c
        if word.value.startswith("-") and word.value.endswith("c") and not word.value.startswith("--"):
            command = shell_args[index + 1]
            break
    if command is None:
        return NOTHING
    found = script(label, "child", (command,), f"{label} -c command")
    inners = tuple(Inner(job.label, job.mode, script=job.script, cwd_unknown=login) for job in found.inners)
    return Unwrapped(inners, found.notes)


def at(call: Call) -> Unwrapped:
    """`at TIME` and `batch` run the commands they read (stdin, or `-f file`) with sh, later."""
    argv = call.argv
    parsed = parse(argv, 1, spec("at"))
    if parsed.has("-l", "-d", "-r", "-c"):  # list, delete or print jobs
        return NOTHING
    file = parsed.last("-f")
    text, note = file_text(call, file, "a job") if file is not None else stdin_text(call, "its job")
    if text is None:
        return Unwrapped(notes=(note,) if note else ())
    return Unwrapped((Inner(argv[0].value, "maybe", script=text, via="at"),))


_TCL_RUNS = re.compile(r"(?:^|[;\n\[])\s*(?:spawn|exec|system)\s+([^;\n\]]*)")
"""A Tcl command that starts a program: `spawn cmd args`, `exec cmd args`, `system cmd args`."""


def expect(call: Call) -> Unwrapped:
    """`expect -c 'spawn git push -f'` (or a script this line wrote): what it spawns or execs."""
    argv = call.argv
    texts = [argv[index + 1] for index, word in enumerate(argv[:-1]) if word.value == "-c"]
    notes = [f"expect script is dynamic: {word.raw}" for word in texts if word.dynamic]
    found = [word.value for word in texts]
    if not texts:
        script_word = next((word for word in argv[1:] if not word.value.startswith("-")), None)
        text, note = file_text(call, script_word, "a script") if script_word is not None else (None, "")
        found += [text] if text is not None else []
        notes += [note] if note else []
    inners = tuple(
        Inner("expect", "maybe", script=match[1].strip(), via="expect spawn", speculative=True)
        for text in found
        for match in _TCL_RUNS.finditer(text)
        if match[1].strip()
    )
    return Unwrapped(inners, tuple(notes))


_LOCAL_COMMANDS = ("proxycommand=", "localcommand=", "knownhostscommand=")
"""ssh_config options whose value is a command ssh runs on this machine."""
