"""Start-up files: what a shell reads and runs before its own script.

| shell | login (`-l`, `--login`) | interactive (`-i`) | otherwise |
|---|---|---|---|
| bash | /etc/profile, ~/.bash_profile, ~/.bash_login, ~/.profile | ~/.bashrc, /etc/bash.bashrc | $BASH_ENV |
| sh, dash, ash, `bash --posix` | /etc/profile, ~/.profile | `$ENV` | |
| ksh, mksh | /etc/profile, ~/.profile | `$ENV` (else ~/.kshrc, ~/.mkshrc) | |
| zsh | /etc/zprofile, .zprofile, /etc/zlogin, .zlogin | /etc/zshrc, .zshrc | |

zsh reads /etc/zshenv and `$ZDOTDIR`/.zshenv at every start; bash's `--rcfile F` replaces ~/.bashrc.

(`$ZDOTDIR` defaults to `$HOME`; Debian keeps zsh's global files in /etc/zsh/.) `--norc`,
`--noprofile` and zsh's `-f` turn files off. `$BASH_ENV` and `$ENV` are expanded as a double-quoted
word first, so a command substitution in them runs. Which of a login shell's files exist is not
known, so every one is read.

A file the line wrote runs as part of the script (an alias or a function it defines applies to the
script); one it wrote with content rein cannot know, or a variable only known at run time, is
unknown. A file on disk the line did not write is read through `file_text` (the `Disk` port).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rein.steering.bash._redirects import as_double_quoted
from rein.steering.bash.commands._inner import Call, Inner, Unwrapped
from rein.steering.bash.commands._sources import Text, file_text
from rein.steering.bash.model import Unknown, Word

_PROFILE = ("/etc/profile", "~/.profile")
_BASH_LOGIN = ("/etc/profile", "~/.bash_profile", "~/.bash_login", "~/.profile")
_ZSH = {
    "env": ("/etc/zshenv", "/etc/zsh/zshenv"),
    "login": (
        "/etc/zprofile",
        "/etc/zsh/zprofile",
        "$Z/.zprofile",
        "/etc/zlogin",
        "/etc/zsh/zlogin",
        "$Z/.zlogin",
    ),
    "interactive": ("/etc/zshrc", "/etc/zsh/zshrc", "$Z/.zshrc"),
}
_POSIX = frozenset({"sh", "dash", "ash", "ksh", "mksh"})
_ENV_DEFAULT = {"ksh": "~/.kshrc", "mksh": "~/.mkshrc"}


@dataclass(frozen=True, slots=True)
class Flags:
    """How a shell was started, as far as its start-up files go."""

    login: bool = False
    interactive: bool = False
    posix: bool = False
    rc: bool = True
    """Its rc files are read (`--norc`, zsh's `-f`/`--no-rcs` turn them off)."""
    profile: bool = True
    rcfile: Word | None = None
    globals: bool = True
    """zsh's /etc files after /etc/zshenv (`-d`/`--no-globalrcs` turns them off)."""


def flags(name: str, argv: Sequence[Word], end: int) -> Flags:
    """The options in `argv[1:end]` (the shell's own, before its script or `-c` string)."""
    found = _PLAIN
    index = 1
    while index < end:
        value = argv[index].value
        if value.startswith("--"):
            if value in ("--rcfile", "--init-file") and index + 1 < end:
                found = replace(found, rcfile=argv[index + 1])
                index += 1
            else:
                found = _long(found, value[2:])
        elif len(value) > 1 and value[0] in "-+":
            letters = value[1:]
            if value[0] == "-" and letters != "c" and not letters.isdigit():
                found = _short(found, name, letters)
            values = letters.count("o") + letters.count("O")
            for offset in range(values):  # `-o posix`, `+o rcs`
                option = argv[index + 1 + offset].value if index + 1 + offset < end else ""
                found = (
                    _named(found, option.replace("_", "").lower(), value[0] == "-")
                    if "o" in letters
                    else found
                )
            index += values
        index += 1
    return found


def _short(found: Flags, name: str, letters: str) -> Flags:
    zsh = name == "zsh"
    login, interactive = "l" in letters, "i" in letters
    norc, noglobal = zsh and "f" in letters, zsh and "d" in letters
    if not (login or interactive or norc or noglobal):
        return found
    return replace(
        found,
        login=found.login or login,
        interactive=found.interactive or interactive,
        rc=found.rc and not norc,
        globals=found.globals and not noglobal,
    )


def _long(found: Flags, name: str) -> Flags:
    if name == "login":
        return replace(found, login=True)
    if name == "interactive":
        return replace(found, interactive=True)
    if name == "posix":
        return replace(found, posix=True)
    if name in ("norc", "no-rcs"):
        return replace(found, rc=False)
    if name == "noprofile":
        return replace(found, profile=False)
    return replace(found, globals=False) if name == "no-globalrcs" else found


def _named(found: Flags, option: str, on: bool) -> Flags:
    """`-o posix`, `+o rcs`, `-o login`: set options by name (zsh also spells them `no...`)."""
    if option.startswith("no"):
        option, on = option[2:], not on
    if option == "posix":
        return replace(found, posix=on)
    if option == "login" and on:
        return replace(found, login=True)
    if option == "interactive" and on:
        return replace(found, interactive=True)
    if option == "rcs":
        return replace(found, rc=on)
    return replace(found, globals=on) if option == "globalrcs" else found


def sources(name: str, given: Flags) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The files (`~` is `$HOME`, `$Z` is `$ZDOTDIR`) and the variables naming a file that the shell
    `name` reads at start, in order."""
    if name == "zsh":
        files = [*_ZSH["env"], *(("$Z/.zshenv",) if given.rc else ())]
        for kind, wanted in (("login", given.login), ("interactive", given.interactive)):
            if given.rc and wanted:
                files += [path for path in _ZSH[kind] if given.globals or not path.startswith("/etc/")]
        return tuple(files), ()
    if name == "bash" and not given.posix:
        files = list(_BASH_LOGIN) if given.login and given.profile else []
        if given.interactive and not given.login and given.rc:
            files += [given.rcfile.value] if given.rcfile is not None else ["/etc/bash.bashrc", "~/.bashrc"]
        return tuple(files), () if given.interactive else ("BASH_ENV",)
    if name in _POSIX or name == "bash":
        files = list(_PROFILE) if given.login and given.profile else []
        return tuple(files), ("ENV",) if given.interactive else ()
    return (), ()


@dataclass(frozen=True, slots=True)
class Startup:
    """What a shell runs at start: text to run before its script, files of the person's read apart
    (leniently), and what about it cannot be known."""

    text: str = ""
    apart: tuple[Inner, ...] = ()
    notes: tuple[str, ...] = ()
    why: str = ""

    def before(self, name: str, found: Unwrapped) -> Unwrapped:
        """`found` (what the shell runs) with the start-up text run first, in the same shell."""
        inners = found.inners
        if self.text:
            scripted = [inner for inner in inners if inner.script is not None]
            if scripted:
                inners = tuple(
                    replace(inner, script=f"{self.text}\n{inner.script}", why=inner.why or self.why)
                    if inner.script is not None
                    else inner
                    for inner in inners
                )
            else:
                inners = (*inners, Inner(name, "child", script=self.text, via="start-up file", why=self.why))
        if inners is found.inners and not self.apart and not self.notes:
            return found
        return replace(found, inners=(*self.apart, *inners), notes=(*found.notes, *self.notes))


def startup(call: Call, end: int) -> Startup:
    """What the shell `call` (its options end at `end`) runs before its script."""
    name = posixpath.basename(call.argv[0].value)
    files, variables = sources(name, flags(name, call.argv, end))
    env = call.state.env
    texts: list[str] = []
    read: list[str] = []
    apart: list[Inner] = []
    notes: list[str] = []
    paths: list[str] = []
    for variable in variables:
        value = env.get(variable)
        if isinstance(value, Unknown):
            notes.append(f"{name} reads the start-up file ${variable}, which is not known statically")
        elif value and ("$" in value or "`" in value):
            texts.append(': "' + as_double_quoted(value.encode("utf-8", "surrogatepass")).decode() + '"')
            read.append(f"${variable}")
            notes.append(f"{name} reads the start-up file ${variable}={value}, a path known at run time")
        elif value:
            paths.append(value)
        elif variable == "ENV" and name in _ENV_DEFAULT:
            paths.append(_ENV_DEFAULT[name])
    home, zdot = env.get("HOME"), env.get("ZDOTDIR", env.get("HOME"))
    for written in (*files, *paths):
        path = written
        if written.startswith(("~/", "$Z/")):
            base = home if written[0] == "~" else zdot
            if not isinstance(base, str) or not base:
                continue
            path = f"{base.rstrip('/')}/{written.partition('/')[2]}"
        text, note = startup_text(call, path)
        notes.extend([note] if note else [])
        if text is None:
            continue
        kept = _kept(call, text)
        if kept is None:
            texts.append(text)
            read.append(path)
        else:
            apart.append(Inner(name, "child", script=text, via="start-up file", origin=kept, lenient=True))
    if not texts and not apart and not notes:
        return _NONE
    why = f"{name} runs its start-up files first: {', '.join(read)}" if read else ""
    return Startup("\n".join(texts), tuple(apart), tuple(notes), why)


def startup_text(call: Call, path: str) -> Text:
    """The text of the start-up file at `path`: what this line wrote there, else what `file_text`
    reads of the file on disk. A download or an archive the line unpacked is not taken to have
    written the person's start-up files."""
    return file_text(replace(call, files_unknown=False), Word.literal(path), "a start-up file")


def _kept(call: Call, text: str) -> str | None:
    """Where a start-up file of the person's on disk is, when `text` was read from one: it runs
    apart, read leniently; None for text the line or the agent wrote."""
    disk = call.disk
    read = disk.of(text) if disk is not None else None
    return read.label if read is not None and read.lenient else None


_NONE = Startup()
_PLAIN = Flags()
