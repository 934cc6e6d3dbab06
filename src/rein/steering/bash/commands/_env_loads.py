"""Code a runtime loads because of a variable: `NODE_OPTIONS=--require ./x.js`, `PERL5OPT=-Mx`,
`RUBYOPT=-r./x`, `PYTHONSTARTUP`, `sitecustomize.py` on `PYTHONPATH`, and libraries in `LD_PRELOAD`.

A file the line wrote is read as a program of its language, run as `node FILE` (`perl FILE`, ...)
would be, without the variable (so it is read once); Perl's `-M` text is Perl code itself
(`-Mstrict;system(...)`). A module or library on disk the line did not write is the project's or the
system's; a library in the line's reach (relative, below the working directory, in /tmp) may have
been built by it, and what its constructors run cannot be read: unknown.
"""

from __future__ import annotations

import re

from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Unwrapped
from rein.steering.bash.commands._sources import file_text
from rein.steering.bash.model import Unknown, Word

_NODE_LOADS = frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader"})
_NODE_SUFFIXES = ("", ".js", ".cjs", ".mjs", "/index.js")
_SCRATCH = ("/tmp/", "/var/tmp/", "/dev/shm/")
_LIBRARY_SPLIT = re.compile(r"[\s:]+")


def loaded(call: Call, variable: str, value: str) -> Unwrapped:
    if variable == "NODE_OPTIONS":
        return _node(call, value)
    if variable == "PERL5OPT":
        return _perl(call, value)
    if variable == "PERL5DB":
        debugged = any(word.value.startswith("-d") for word in call.argv[1:])
        if not debugged and "-d" not in str(call.state.env.get("PERL5OPT", "")):
            return NOTHING
        return _run(call, variable, ("perl", "-e", value))
    if variable == "RUBYOPT":
        return _ruby(call, value)
    if variable == "PYTHONSTARTUP":
        return _file(call, variable, "python3", (value,), disk=True)
    if variable == "PYTHONPATH":
        paths = [f"{directory or '.'}/{name}" for directory in value.split(":") for name in _CUSTOMIZE]
        return _file(call, variable, "python3", paths)
    return NOTHING


_CUSTOMIZE = ("sitecustomize.py", "usercustomize.py")
"""Modules Python's `site` imports at every start, from any directory on its path."""


def _node(call: Call, value: str) -> Unwrapped:
    words = value.split()
    found: list[str] = []
    for index, word in enumerate(words):
        option, _, attached = word.partition("=")
        if option.startswith("-r") and len(option) > 2:  # `-r./x.js`
            option, attached = "-r", word[2:]
        if option not in _NODE_LOADS:
            continue
        target = attached or (words[index + 1] if index + 1 < len(words) else "")
        target = target.removeprefix("file://")
        if target.startswith(("./", "../", "/")) or target.endswith((".js", ".cjs", ".mjs", ".ts")):
            found.extend(target + suffix for suffix in _NODE_SUFFIXES)
        elif target and _wrote_below(call, f"node_modules/{target}"):
            note = f"{call.name} loads {target} through $NODE_OPTIONS, a package this command line wrote"
            return Unwrapped(notes=(note,))
    return _file(call, "NODE_OPTIONS", "node", found, first=True)


def _perl(call: Call, value: str) -> Unwrapped:
    """`-MMod`, `-M-Mod`, `-MMod=a,b`, `-mMod`: perl runs `use Mod ...;` (the text is Perl code);
    `-Idir` adds where modules are found."""
    words = value.split()
    code: list[str] = []
    modules: list[str] = []
    dirs = ["."] + [word[2:] for word in words if word.startswith("-I") and len(word) > 2]
    for index, word in enumerate(words):
        if word[:2] not in ("-M", "-m"):
            continue
        text = word[2:] or (words[index + 1] if index + 1 < len(words) else "")
        name, eq, imports = text.lstrip("-").partition("=")
        verb = "no" if text.startswith("-") else "use"
        code.append(f"{verb} {name} split(/,/, q{{{imports}}});" if eq else f"{verb} {text.lstrip('-')};")
        module = name.split(";")[0].strip().replace("::", "/")
        modules.extend(f"{directory}/{module}.pm" for directory in dirs if module)
    if not code:
        return NOTHING
    ran = _run(call, "PERL5OPT", ("perl", "-e", "\n".join(code)))
    files = _file(call, "PERL5OPT", "perl", modules)
    return Unwrapped((*ran.inners, *files.inners), files.notes)


def _ruby(call: Call, value: str) -> Unwrapped:
    words = value.split()
    dirs = ["."] + [word[2:] for word in words if word.startswith("-I") and len(word) > 2]
    found: list[str] = []
    for index, word in enumerate(words):
        if not word.startswith("-r"):
            continue
        target = word[2:] or (words[index + 1] if index + 1 < len(words) else "")
        bases = [target] if target.startswith(("./", "../", "/")) else [f"{d}/{target}" for d in dirs]
        found.extend(base + suffix for base in bases if target for suffix in ("", ".rb"))
    return _file(call, "RUBYOPT", "ruby", found)


def _file(
    call: Call,
    variable: str,
    runtime: str,
    paths: list[str] | tuple[str, ...],
    *,
    first: bool = False,
    disk: bool = False,
) -> Unwrapped:
    """Each of `paths` that holds a program this line wrote runs (`node x.js`); with `disk`, one on
    disk too (a start-up file: the `Disk` port reads it)."""
    inners: list[Inner] = []
    notes: list[str] = []
    for path in dict.fromkeys(paths):
        text, note = file_text(call, Word.literal(path), "a program", disk=disk)
        notes.extend([note] if note else [])
        if text is not None:
            why = f"{call.name} loads {path} through ${variable}"
            argv = (Word.literal(runtime), Word.literal(path))
            inners.append(
                Inner(f"{call.name} ${variable}", "child", argv=argv, why=why, env_unset=(variable,))
            )
            if first:
                break
    return Unwrapped(tuple(inners), tuple(notes))


def _run(call: Call, variable: str, argv: tuple[str, ...]) -> Unwrapped:
    words = tuple(Word.literal(word) for word in argv)
    why = f"{call.name} runs ${variable}"
    return Unwrapped(
        (Inner(f"{call.name} ${variable}", "child", argv=words, why=why, env_unset=(variable,)),)
    )


def library(call: Call, variable: str, value: str) -> Unwrapped:
    """`LD_PRELOAD=./x.so cmd`: the library's constructors run in cmd. A bare name is looked up in
    the system's directories; a path the line wrote or could have built is unknown."""
    notes: list[str] = []
    for name in _LIBRARY_SPLIT.split(value):
        if not name or ("/" not in name and "$" not in name):
            continue
        path = join_path(call.state.cwd, name)
        cwd = call.state.cwd
        reach = (
            "$" in name
            or isinstance(path, Unknown)
            or path in call.files
            or not name.startswith("/")
            or path.startswith(_SCRATCH)
            or (isinstance(cwd, str) and path.startswith(cwd.rstrip("/") + "/"))
        )
        if reach:
            notes.append(
                f"{call.name} loads {name} through ${variable}: its code runs first, and rein cannot read it"
            )
    return Unwrapped(notes=tuple(notes))


def _wrote_below(call: Call, directory: str) -> bool:
    path = join_path(call.state.cwd, directory)
    return isinstance(path, str) and any(written.startswith(path + "/") for written in call.files)
