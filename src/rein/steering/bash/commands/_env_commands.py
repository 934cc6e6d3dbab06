"""Variables through which a program runs a command: `MANPAGER` for man, `LESSOPEN` for less, `EDITOR`
for `crontab -e`, `NODE_OPTIONS=--require` for node, `LD_PRELOAD` for every program.

The command model reads a command; this adds what the program runs because of a variable in its
environment (its prefix, `export`, `env X=...`): the value as the command line the program runs
(`line`), or a file it loads (`node`, `perl`, `ruby`, `python`). git's own variables (`GIT_PAGER`,
`PAGER`, `EDITOR`, `GIT_SSH_COMMAND`, ...) are read with git (`_git_config.COMMAND_ENV`), the shells'
start-up variables (`BASH_ENV`, `ENV`, `ZDOTDIR`) with the shells (`_startup`), and `PROMPT_COMMAND`
by the walker.

The table (`PROGRAMS`), by what the value is; where a program falls back through several variables
(`MANPAGER`, then `PAGER`), the first one set is read:

- a command line: `MANPAGER`/`PAGER` (man), `SYSTEMD_PAGER`/`PAGER` and `SYSTEMD_EDITOR`/`EDITOR`
  (systemctl, journalctl, ...), `AWS_PAGER`, `BAT_PAGER`, `DELTA_PAGER`, `PSQL_PAGER`, `SUDO_ASKPASS`
  (`sudo -A`), `SUDO_EDITOR`/`VISUAL`/`EDITOR` (`sudo -e`, sudoedit, visudo), `SSH_ASKPASS` (ssh, scp,
  sftp, ssh-add, rsync), `RSYNC_RSH`, `VISUAL`/`EDITOR` (`crontab -e`, vipe, vipw), `KUBE_EDITOR`
  (`kubectl edit`), `FCEDIT` (fc);
- less's preprocessor: `LESSOPEN`, `LESSCLOSE` (`|cmd %s`, `%s` the file), for less and man;
- browsers, `:`-separated, `%s` the URL: `BROWSER` (xdg-open, sensible-browser, `python -m
  webbrowser`, `pydoc -b`, `man -H`, `gh --web`, `cargo doc --open`);
- the program's own options: `MANOPT`; a file of them: `RIPGREP_CONFIG_PATH` (fzf reads
  `FZF_DEFAULT_COMMAND` and `FZF_DEFAULT_OPTS` itself, in `_hooks`);
- a program the line wrote: `SHELL` (script, tmux, screen, parallel, flock, entr, `sudo -s`, `su -m`);
- code a runtime loads (`_env_loads`): `PYTHONSTARTUP` (interactive python, ipython),
  `sitecustomize.py` on `PYTHONPATH`, `NODE_OPTIONS` (`--require`, `--import`, `--loader`: node, npm,
  npx, pnpm, yarn, tsx and programs rein does not know), `PERL5OPT` (`-M`), `PERL5DB` (`-d`),
  `RUBYOPT` (`-r`), and `LD_PRELOAD`, `LD_AUDIT`, `DYLD_INSERT_LIBRARIES` for every program.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from rein.steering.bash.commands._env_loads import library, loaded
from rein.steering.bash.commands._inert import SHELL_BUILTINS
from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Unwrapped
from rein.steering.bash.commands._interp import language, program
from rein.steering.bash.commands._sources import file_text
from rein.steering.bash.model import CommandKind, Unknown, Word

Form = Literal["line", "lessopen", "browsers", "options", "config", "program", "load"]


@dataclass(frozen=True, slots=True)
class Reads:
    """Variables a program reads, in the order it looks (the first one set is used), and how."""

    names: tuple[str, ...]
    form: Form = "line"
    when: Callable[[Call], bool] = lambda call: True


def _option(*spellings: str) -> Callable[[Call], bool]:
    """The command has one of these options (`-A` also inside a bundle like `-An`)."""
    shorts = "".join(spelling[1] for spelling in spellings if len(spelling) == 2)
    longs = tuple(spelling for spelling in spellings if spelling.startswith("--"))

    def has(call: Call) -> bool:
        for word in call.argv[1:]:
            value = word.value
            if value == "--":
                return False
            if value.startswith(longs) if longs else False:
                return True
            if (
                shorts
                and value[:1] == "-"
                and value[1:2] != "-"
                and any(letter in value[1:] for letter in shorts)
            ):
                return True
        return False

    return has


def _word(*names: str) -> Callable[[Call], bool]:
    """One of the command's words is one of `names` (`kubectl edit`, `systemctl edit`)."""
    return lambda call: any(word.value in names for word in call.argv[1:])


def _both(first: Callable[[Call], bool], second: Callable[[Call], bool]) -> Callable[[Call], bool]:
    return lambda call: first(call) and second(call)


def _either(first: Callable[[Call], bool], second: Callable[[Call], bool]) -> Callable[[Call], bool]:
    return lambda call: first(call) or second(call)


def _python_interactive(call: Call) -> bool:
    """python with no program to run reads its startup file when interactive (`-i`, or a terminal:
    no stdin given)."""
    prog = program(call.name, call.argv)
    if prog is None or prog.code or prog.module is not None or prog.script is not None:
        return False
    return call.stdin is None or _option("-i")(call)


_EDITORS = ("VISUAL", "EDITOR")
_SYSTEMD = (
    Reads(("SYSTEMD_PAGER", "PAGER")),
    Reads(("SYSTEMD_EDITOR", "EDITOR", "VISUAL"), when=_word("edit")),
)
_SHELL = Reads(("SHELL",), "program")
_ASKPASS = Reads(("SSH_ASKPASS",))
_LESS = Reads(("LESSOPEN",), "lessopen"), Reads(("LESSCLOSE",), "lessopen")
_BROWSER = Reads(("BROWSER",), "browsers")
_NODE = Reads(("NODE_OPTIONS",), "load")
_PERL = Reads(("PERL5OPT",), "load"), Reads(("PERL5DB",), "load")
_RUBY = Reads(("RUBYOPT",), "load")
_PYTHON = (
    Reads(("PYTHONSTARTUP",), "load", _python_interactive),
    Reads(("PYTHONPATH",), "load"),
    Reads(("BROWSER",), "browsers", lambda call: any(word.value == "webbrowser" for word in call.argv[1:3])),
)

PROGRAMS: dict[str, tuple[Reads, ...]] = {
    "man": (
        Reads(("MANPAGER", "PAGER")), *_LESS, Reads(("MANOPT",), "options"),
        Reads(("BROWSER",), "browsers", _option("-H", "--html")),
    ),
    "less": _LESS,
    **dict.fromkeys(
        ("systemctl", "journalctl", "loginctl", "busctl", "coredumpctl", "resolvectl", "timedatectl",
         "hostnamectl", "localectl", "networkctl", "machinectl", "homectl", "userdbctl", "bootctl",
         "systemd-analyze", "systemd-cgls", "systemd-delta"),
        _SYSTEMD,
    ),
    "aws": (Reads(("AWS_PAGER", "PAGER")),),
    "bat": (Reads(("BAT_PAGER", "PAGER")),),
    "batcat": (Reads(("BAT_PAGER", "PAGER")),),
    "delta": (Reads(("DELTA_PAGER", "BAT_PAGER", "PAGER")),),
    "psql": (Reads(("PSQL_PAGER", "PAGER")),),
    "sudo": (
        Reads(("SUDO_ASKPASS",), when=_option("-A", "--askpass")),
        Reads(("SUDO_EDITOR", *_EDITORS), when=_option("-e", "--edit")),
        Reads(("SHELL",), "program", _option("-s", "--shell")),
    ),
    "sudoedit": (Reads(("SUDO_EDITOR", *_EDITORS)),),
    "visudo": (Reads(("SUDO_EDITOR", *_EDITORS)),),
    "vipw": (Reads(_EDITORS),),
    "vigr": (Reads(_EDITORS),),
    **dict.fromkeys(("ssh", "scp", "sftp", "ssh-add", "ssh-copy-id"), (_ASKPASS,)),
    "rsync": (Reads(("RSYNC_RSH",), when=lambda call: not _option("-e", "--rsh")(call)), _ASKPASS),
    "crontab": (Reads(_EDITORS, when=_option("-e")),),
    "kubectl": (Reads(("KUBE_EDITOR", "EDITOR"), when=_word("edit", "--edit")),),
    "fc": (Reads(("FCEDIT", "EDITOR"), when=lambda call: not _option("-l", "-s", "-e")(call)),),
    "vipe": (Reads(_EDITORS),),
    "sensible-editor": (Reads((*_EDITORS, "SELECTED_EDITOR")),),
    "rg": (Reads(("RIPGREP_CONFIG_PATH",), "config"),),
    **dict.fromkeys(("xdg-open", "sensible-browser", "x-www-browser", "www-browser"), (_BROWSER,)),
    **dict.fromkeys(("pydoc", "pydoc3"), (Reads(("BROWSER",), "browsers", _option("-b")),)),
    "gh": (Reads(("GH_BROWSER", "BROWSER"), "browsers", _either(_word("browse"), _option("-w", "--web"))),),
    "cargo": (Reads(("BROWSER",), "browsers", _both(_word("doc"), _option("--open"))),),
    **dict.fromkeys(("script", "tmux", "screen", "parallel", "flock", "entr"), (_SHELL,)),
    "su": (Reads(("SHELL",), "program", _option("-m", "-p", "--preserve-environment")),),
    "python": _PYTHON,
    "ipython": (Reads(("PYTHONSTARTUP",), "load"),),
    "ipython3": (Reads(("PYTHONSTARTUP",), "load"),),
    **dict.fromkeys(("node", "nodejs", "npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg"), (_NODE,)),
    **dict.fromkeys(("corepack", "tsx", "ts-node"), (_NODE,)),
    "perl": _PERL,
    **dict.fromkeys(("ruby", "irb", "gem", "bundle", "bundler", "rake", "rails", "rspec", "erb"), (_RUBY,)),
}  # fmt: skip
"""What each program runs through variables, by command name (python's names are matched apart)."""

UNKNOWN_PROGRAMS = (_NODE, *_PERL, _RUBY)
"""A program rein does not know may be a node, Perl or Ruby script."""
EVERY_PROGRAM = Reads(("LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES"), "load")
"""The dynamic loader runs a library's constructors in every program."""


def env_commands(call: Call, kind: CommandKind) -> Unwrapped:
    """What `call` runs because of the variables in its environment."""
    env = call.state.env
    if _WATCHED.isdisjoint(env):  # most commands: none of these variables is set
        return NOTHING
    name = call.name
    if name not in PROGRAMS and language(name) == "python":  # python3.12, pypy3
        name = "python"
    rows = PROGRAMS.get(name, ())
    if kind == "unknown":
        rows = (*rows, *UNKNOWN_PROGRAMS)
    if name not in SHELL_BUILTINS:
        rows = (*rows, EVERY_PROGRAM)
    inners: list[Inner] = []
    notes: list[str] = []
    for row in rows:
        found = next(((variable, env[variable]) for variable in row.names if env.get(variable)), None)
        if found is None or not row.when(call):
            continue
        variable, value = found
        if isinstance(value, Unknown):
            notes.append(f"{call.name} runs what ${variable} names, which is not known statically")
            continue
        more = _FORMS[row.form](call, variable, value)
        inners.extend(more.inners)
        notes.extend(more.notes)
    return Unwrapped(tuple(inners), tuple(notes)) if inners or notes else NOTHING


_WATCHED = frozenset(
    name
    for rows in (*PROGRAMS.values(), UNKNOWN_PROGRAMS, (EVERY_PROGRAM,))
    for row in rows
    for name in row.names
)


def with_env(runs: Unwrapped, more: Unwrapped) -> Unwrapped:
    """What a command runs itself, and what it runs through its environment."""
    return replace(runs, inners=(*runs.inners, *more.inners), notes=(*runs.notes, *more.notes))


def _line(call: Call, variable: str, value: str) -> Unwrapped:
    why = f"{call.name} runs ${variable}"
    return Unwrapped((Inner(f"{call.name} ${variable}", "maybe", script=value, why=why),))


def _lessopen(call: Call, variable: str, value: str) -> Unwrapped:
    """less's input preprocessor: `|cmd %s` pipes, `||cmd %s` and `cmd %s` too; `-` reads stdin."""
    operand = next((word for word in call.argv[1:] if not word.value.startswith(("-", "+"))), None)
    path = (
        shlex.quote(operand.value) if operand is not None and not operand.dynamic else '"${__rein_runtime__}"'
    )
    text = value.lstrip("|").lstrip("-").replace("%s", path)
    return _line(call, variable, text) if text.strip() else NOTHING


def _browsers(call: Call, variable: str, value: str) -> Unwrapped:
    """`BROWSER=a:b %s`: each entry is tried in turn, `%s` the URL."""
    entries = [entry.replace("%s", '"${__rein_runtime__}"') for entry in value.split(":") if entry.strip()]
    inners = tuple(inner for entry in entries for inner in _line(call, variable, entry).inners)
    return Unwrapped(inners)


def _options(call: Call, variable: str, value: str) -> Unwrapped:
    """`MANOPT`, `FZF_DEFAULT_OPTS`: more options of the program itself, read before its own."""
    try:
        words = shlex.split(value)
    except ValueError:
        return Unwrapped(notes=(f"{call.name} reads options from ${variable} that rein cannot split",))
    argv = (call.argv[0], *(Word.literal(word) for word in words), *call.argv[1:])
    return Unwrapped((Inner(f"{call.name} ${variable}", "child", argv=argv, env_unset=(variable,)),))


def _config(call: Call, variable: str, value: str) -> Unwrapped:
    """`RIPGREP_CONFIG_PATH`: a file of options, one a line (`#` lines are comments)."""
    text, note = file_text(call, Word.literal(value), "an option file", disk=False)
    if text is None:
        return Unwrapped(notes=(note,) if note else ())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    argv = (call.argv[0], *(Word.literal(line) for line in lines), *call.argv[1:])
    return Unwrapped((Inner(f"{call.name} ${variable}", "child", argv=argv, env_unset=(variable,)),))


def _program(call: Call, variable: str, value: str) -> Unwrapped:
    """`SHELL=./x.sh tmux`: the program runs, when it is a file this line wrote."""
    path = Word.literal(value)
    text, note = file_text(call, path, "a program", disk=False)
    if text is None:
        return Unwrapped(notes=(note,) if note else ())
    why = f"{call.name} runs ${variable}, a file this command line wrote"
    return Unwrapped((Inner(f"{call.name} ${variable}", "maybe", argv=(path,), why=why),))


def _load(call: Call, variable: str, value: str) -> Unwrapped:
    if variable in ("LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES"):
        return library(call, variable, value)
    return loaded(call, variable, value)


_FORMS: dict[Form, Callable[[Call, str, str], Unwrapped]] = {
    "line": _line,
    "lessopen": _lessopen,
    "browsers": _browsers,
    "options": _options,
    "config": _config,
    "program": _program,
    "load": _load,
}
