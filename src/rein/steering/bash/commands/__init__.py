"""The command model: for every command name rein knows, what kind it is and what it runs.

Every command is one of three kinds (`CommandKind`):

- *inert*: its arguments are data and it runs nothing (`echo`, `grep`, `jq`, `git commit -m`);
- *runner*: a table entry here says where the command it runs is: an argv after its options (`sudo`,
  `timeout`, `uv run`, `docker exec`), a string a shell runs (`bash -c`, `ssh host cmd`, `watch`), a
  program in another language (`python -c`, `awk`), arguments supplied at run time (`xargs`,
  `find -exec`), or a makefile's recipes;
- *unknown*: any other name. Every suffix of its argv that starts with a command rein knows, and every
  string argument that parses as bash, is checked as if it ran (`prlimit --nofile=64 rm -rf ~`).

`runs(call)` says what one command runs, `normalize(call)` what it means (aliases, abbreviated options
and configuration written out), and `writes`/`output` what it writes to files and prints, so a script a
line writes and then runs is read too. Pure: nothing here touches the disk.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from rein.steering.bash.commands import (
    _builds,
    _consoles,
    _containers,
    _deferred,
    _editors,
    _feeders,
    _hooks,
    _js,
    _pkg,
    _shells,
    _tasks,
    _terminals,
    _text,
    _versions,
    _wrappers,
    _xargs,
)
from rein.steering.bash.commands._env_commands import env_commands, with_env
from rein.steering.bash.commands._files import Writes, feeds, writes
from rein.steering.bash.commands._git import read_git, subcommand_index
from rein.steering.bash.commands._git_config import setting
from rein.steering.bash.commands._git_options import GIT_COMMANDS, git_spec
from rein.steering.bash.commands._inert import INERT, SHELL_BUILTINS
from rein.steering.bash.commands._inner import (
    NOTHING,
    PLACEHOLDER,
    Argv,
    Call,
    Inner,
    Mode,
    Unwrapped,
    Value,
    text_of,
)
from rein.steering.bash.commands._interp import SHELLS, Program, language, program
from rein.steering.bash.commands._js import normalize_npm
from rein.steering.bash.commands._makefile import make
from rein.steering.bash.commands._options import Options, Parsed, long_options, parse
from rein.steering.bash.commands._options import normalize as normalize_options
from rein.steering.bash.commands._output import output
from rein.steering.bash.commands._programs import executable, interpreter
from rein.steering.bash.commands._project import project_files
from rein.steering.bash.commands._suffix import unknown_command
from rein.steering.bash.commands._tables import spec as tool_spec
from rein.steering.bash.commands._tables import spec_for
from rein.steering.bash.model import CommandKind, Stdin, Word

Handler = Callable[[Call], Unwrapped]

_INTERPRETERS = (
    "node", "nodejs", "tsx", "ts-node", "deno", "perl", "ruby", "irb", "rake", "php", "ipython", "ipython3",
    "awk", "gawk", "mawk", "nawk",
    # _interp_spec_readers: Lua, Tcl, R, Julia, AppleScript, Lisps, BEAM, Haskell, OCaml, JVM, Swift, ...
    "lua", "luajit", "lua5.1", "lua5.2", "lua5.3", "lua5.4", "texlua", "tclsh", "tclsh8.6", "tclsh9.0",
    "wish", "wish8.6", "wish9.0", "jimsh", "R", "Rscript", "r", "julia", "osascript", "emacs", "emacs-nox",
    "emacsclient", "guile", "guile2.2", "guile3.0", "chez", "scheme", "petite", "chibi-scheme", "gosh",
    "mit-scheme", "racket", "sbcl", "clisp", "ecl", "ccl", "ccl64", "clojure", "clj", "bb", "janet", "fennel",
    "elixir", "iex", "erl", "escript", "ghc", "ghci", "runghc", "runhaskell", "ocaml", "groovy", "groovysh",
    "scala", "scala-cli", "amm", "kotlin", "kotlinc", "kotlinc-jvm", "java", "jshell", "swift", "crystal",
    "gnuplot", "m4", "gm4", "dc", "lldb", "fish", "csh", "tcsh", "pwsh", "pwsh-preview", "powershell", "nu",
    "nushell", "elvish", "xonsh",
)  # fmt: skip

RUNNERS: Mapping[str, Handler] = {
    **_wrappers.HANDLERS,
    **_pkg.HANDLERS,
    **_js.HANDLERS,
    **_containers.HANDLERS,
    **_text.HANDLERS,
    **_versions.HANDLERS,
    **_builds.HANDLERS,
    **_hooks.HANDLERS,
    **_consoles.HANDLERS,
    **_editors.HANDLERS,
    **dict.fromkeys(SHELLS, _shells.shell),
    **dict.fromkeys(_INTERPRETERS, interpreter),
    "eval": _shells.eval_string,
    "source": _shells.source,
    ".": _shells.source,
    "ssh": _shells.ssh,
    "adb": _shells.adb,
    "su": _shells.su,
    "runuser": _shells.su,
    "watch": _shells.watch,
    "flock": _shells.flock,
    "trap": _shells.trap,
    "at": _shells.at,
    "batch": _shells.at,
    "crontab": _deferred.crontab,
    "systemd-run": _deferred.systemd_run,
    "expect": _shells.expect,
    "xargs": _xargs.xargs,
    "parallel": _feeders.parallel,
    "find": _feeders.find,
    "fd": _feeders.fd,
    "fdfind": _feeders.fd,
    "make": make,
    "gmake": make,
    "just": _tasks.just,
    "task": _tasks.task,
    "go-task": _tasks.task,
    "nox": _tasks.nox,
    "poe": _tasks.poe,
    "tmux": _terminals.tmux,
    "screen": _terminals.screen,
}
"""Runners by command name (python's names, `python3.12` and the like, are matched apart)."""

_MIXED = frozenset({
    "git", "npm", "pnpm", "yarn", "bun", "deno", "node", "nodejs", "uv", "pipx", "poetry", "pdm", "hatch",
    "conda", "mamba", "micromamba", "bundle", "devbox", "nix", "direnv", "corepack", "docker", "podman",
    "nerdctl", "kubectl", "oc", "tar", "bsdtar", "gtar", "rsync", "sed", "gsed", "make", "gmake", "find",
    "fd", "fdfind", "ssh", "adb", "trap", "at", "batch", "expect", "heroku", "cmake", "zip", "man", "tcpdump",
    "wget", "nodemon", "gcloud", "fly", "flyctl", "doctl", "vagrant", "az", *_versions.HANDLERS,
    *_builds.HANDLERS, *_hooks.HANDLERS, *_consoles.HANDLERS, *_editors.HANDLERS, "tmux", "screen",
    "tsx", "ts-node", "irb", "rake", "ipython", "ipython3", "just", "task", "go-task", "nox", "poe",
    "java", "swift", "kotlinc", "kotlinc-jvm", "emacs", "emacs-nox", "emacsclient", "ghc", "crystal",
    "scala-cli", "R", "bb", "lldb", "m4", "gm4", "gnuplot", "erl", "iex",
    "crontab", "systemd-run",
})  # fmt: skip
"""Runners only when they run something (`git rebase -x`, `npm exec`, `docker run`): inert otherwise."""

KNOWN = (
    INERT
    | frozenset(RUNNERS)
    | {"git", "python", "python3", "pypy", "pypy3"}
    | {f"git-{c}" for c in GIT_COMMANDS}
)
"""Every command name the model knows."""


def is_python(name: str) -> bool:
    return language(name) == "python"


def kind_of(name: str) -> CommandKind:
    """The kind the model gives a command name, before reading its arguments."""
    if name in RUNNERS or name == "git" or is_python(name):
        return "runner"
    return "inert" if name in INERT else "unknown"


@dataclass(frozen=True, slots=True)
class Reading:
    """What the model makes of one command."""

    call: Call
    """The command as its program will act on it: aliases, abbreviations and configuration written
    out (`git p` with `alias.p='push -f'` is `git push -f`)."""
    kind: CommandKind
    runs: Unwrapped
    """What it runs, and what about it is not known statically."""
    whys: tuple[str, ...] = ()
    """Why `call.argv` differs from the argv written."""


def read(call: Call, *, scan: bool = True) -> Reading:
    """Read one command. `scan` False: an unknown command is not scanned (inside a string that is
    itself only a guess, so guesses do not compound)."""
    reading = _read(call, scan)
    through = env_commands(reading.call, reading.kind)  # `MANPAGER=... man`, `LD_PRELOAD=... cmd`
    if through is not NOTHING:
        kind: CommandKind = "runner" if reading.kind == "inert" else reading.kind
        reading = Reading(reading.call, kind, with_env(reading.runs, through), reading.whys)
    written = project_files(reading.call)
    if not written:
        return reading
    runs = reading.runs
    runs = Unwrapped(runs.inners, (*runs.notes, *written), runs.problems)
    return Reading(reading.call, "runner" if reading.kind == "inert" else reading.kind, runs, reading.whys)


def _read(call: Call, scan: bool) -> Reading:
    name = call.name
    written = executable(call)
    if written is not None:
        return Reading(call, "runner", written)
    dashed = name.startswith("git-") and name[4:] in GIT_COMMANDS  # `git-push`: git's own program
    if name == "git" or dashed:
        head = call.argv[0].value
        if dashed:
            call = replace(
                call, name="git", argv=(Word.literal("git"), Word.literal(name[4:]), *call.argv[1:])
            )
        call, whys, found = read_git(call)
        whys = (f"{head} is git {name[4:]}", *whys) if dashed else whys
        return Reading(call, "runner" if found.inners or found.notes else "inert", found, whys)
    argv, whys = _normalized(call)
    if argv is not call.argv:
        call = replace(call, argv=argv)
    handler = RUNNERS.get(name) or (interpreter if is_python(name) else None)
    if handler is not None:
        found = handler(call)
        mixed = name in _MIXED and not found.inners and not found.notes
        return Reading(call, "inert" if mixed else "runner", found, whys)
    if name in INERT:
        return Reading(call, "inert", NOTHING, whys)
    return Reading(call, "unknown", unknown_command(call) if scan else NOTHING, whys)


def _normalized(call: Call) -> tuple[Argv, tuple[str, ...]]:
    """npm's command aliases and abbreviated long options written out, where rein knows the table."""
    if call.name == "npm":
        argv = normalize_npm(call.argv)
        changed = [
            f"npm reads '{old.raw}' as '{new.value}'"
            for old, new in zip(call.argv, argv, strict=True)
            if old is not new
        ]
        return argv, tuple(changed)
    options = spec_for(call.name)
    if options is None:
        return call.argv, ()
    return normalize_options(call.argv, 1, options), ()


def git_config_change(call: Call) -> tuple[str, Value | None] | None:
    """What a `git config` command sets for the commands after it: (key, value), (key, None) when it
    unsets; None when it is no `git config` that changes anything."""
    if call.name != "git":
        return None
    index = subcommand_index(call.argv)
    if index >= len(call.argv) or call.argv[index].value != "config":
        return None
    return setting(call.argv, index)


__all__ = [
    "KNOWN",
    "NOTHING",
    "PLACEHOLDER",
    "RUNNERS",
    "SHELL_BUILTINS",
    "Call",
    "Inner",
    "Mode",
    "Options",
    "Parsed",
    "Program",
    "Reading",
    "Stdin",
    "Unwrapped",
    "Value",
    "Writes",
    "feeds",
    "git_config_change",
    "git_spec",
    "is_python",
    "kind_of",
    "long_options",
    "output",
    "parse",
    "program",
    "read",
    "subcommand_index",
    "text_of",
    "tool_spec",
    "writes",
]
