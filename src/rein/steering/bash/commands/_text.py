"""Tools that run a command named in an option or in their script: `tar --to-command`, `tar -I`,
`rsync -e`/`--rsync-path`, `zip -TT`, `man -P`, `nodemon --exec`, the remote shells of cloud CLIs
(`gcloud compute ssh --command`), `cmake -E`'s built-in commands, and `sed`'s `e` command. (`awk` is
a language: see `_programs`.)"""

from __future__ import annotations

from collections.abc import Callable

from rein.steering.bash._words import tail
from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Mode, Unwrapped, run, script
from rein.steering.bash.commands._interp_getopt import Getopt, getopt
from rein.steering.bash.commands._programs import launched
from rein.steering.bash.commands._sources import file_text
from rein.steering.bash.launch import launches
from rein.steering.bash.model import Word

_TAR_COMMANDS = (
    "--to-command",
    "--use-compress-program",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
)
_TAR_SHORT = ("-I", "-F")


def _option_values(call: Call, longs: tuple[str, ...], shorts: tuple[str, ...]) -> list[tuple[str, Word]]:
    """Values of the named options, as `--opt=value`, `--opt value`, `-Xvalue` or `-X value`."""
    argv = call.argv
    found: list[tuple[str, Word]] = []
    for index, word in enumerate(argv[1:], start=1):
        value = word.value
        following = argv[index + 1] if index + 1 < len(argv) else None
        for name in longs:
            if value.startswith(name + "="):
                found.append((name, tail(word, len(name) + 1)))
            elif value == name and following is not None:
                found.append((name, following))
        for name in shorts:
            if value == name and following is not None:
                found.append((name, following))
            elif value.startswith(name) and len(value) > 2 and not value.startswith("--"):
                found.append((name, tail(word, 2)))
    return found


def tar(call: Call) -> Unwrapped:
    inners: list[Inner] = []
    notes: list[str] = []
    for name, value in _option_values(call, (*_TAR_COMMANDS, "--checkpoint-action"), _TAR_SHORT):
        command = value
        if name == "--checkpoint-action":
            action = value.value.partition("=")[0]
            if action != "exec":
                continue
            command = tail(value, len(action) + 1)
        found = script(f"tar {name}", "maybe", (command,), f"tar {name} command")
        inners.extend(found.inners)
        notes.extend(found.notes)
    return Unwrapped(tuple(inners), tuple(notes))


def rsync(call: Call) -> Unwrapped:
    """`rsync -e cmd` runs cmd, `--rsync-path=cmd` runs cmd on the remote host; `--delete` removes what
    the source lacks from the destination, which for an empty source is everything: checked as `rm -r
    DEST` when the destination is local."""
    inners: list[Inner] = []
    notes: list[str] = []
    for name, value in _option_values(call, ("--rsh", "--rsync-path"), ("-e",)):
        if name == "--rsync-path":  # the remote shell runs it on the other host as the remote rsync
            found = script("rsync --rsync-path", "remote", (value,), "rsync --rsync-path command")
        else:
            found = script("rsync -e", "maybe", (value,), "rsync -e command")
        inners.extend(found.inners)
        notes.extend(found.notes)
    argv = call.argv
    deletes = any(word.value.startswith("--del") for word in argv[1:])
    last = argv[-1] if len(argv) > 2 else None
    if deletes and last is not None and not last.value.startswith("-") and not _remote(last.value):
        before = argv[-2].value
        if before not in _RSYNC_VALUES and not (before.startswith("--") and before[2:] in _RSYNC_LONG_VALUES):
            inners.append(
                Inner("rsync --delete", "child", argv=(Word.literal("rm"), Word.literal("-r"), last))
            )
    return Unwrapped(tuple(inners), tuple(notes))


_RSYNC_VALUES = frozenset({"-e", "-f", "-B", "-T", "-M"})
_RSYNC_LONG_VALUES = frozenset({
    "rsh", "filter", "exclude", "include", "exclude-from", "include-from", "files-from", "temp-dir",
    "backup-dir", "suffix", "compare-dest", "copy-dest", "link-dest", "log-file", "log-file-format",
    "password-file", "chmod", "chown", "partial-dir", "max-size", "min-size", "timeout", "bwlimit", "port",
    "out-format", "info", "debug", "rsync-path", "usermap", "groupmap", "iconv", "skip-compress",
    "max-delete", "modify-window", "block-size", "compress-level", "checksum-choice", "remote-option",
})  # fmt: skip
"""rsync options whose value may be the next word, so that word is no destination."""


def _remote(path: str) -> bool:
    """`host:path` and `rsync://...`: a destination on another machine."""
    head = path.partition("/")[0]
    return ":" in head or path.startswith("rsync://")


def rimraf(call: Call) -> Unwrapped:
    """npm's `rimraf PATH...` removes like `rm -rf PATH...`."""
    paths = tuple(word for word in call.argv[1:] if not word.value.startswith("-"))
    return run("rimraf", "child", (Word.literal("rm"), Word.literal("-rf"), *paths)) if paths else NOTHING


_COMMAND_OPTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...], Mode]] = {
    # command: long options, short options whose value is a command line, and where it runs
    "zip": (("--unzip-command",), ("-TT",), "maybe"),
    "man": (("--pager",), ("-P",), "maybe"),
    "tcpdump": ((), ("-z",), "maybe"),
    "wget": (("--use-askpass",), (), "maybe"),
    "nodemon": (("--exec",), ("-x",), "maybe"),
    "gcloud": (("--command",), (), "remote"),
    "fly": (("--command",), ("-C",), "remote"),
    "flyctl": (("--command",), ("-C",), "remote"),
    "doctl": (("--ssh-command",), (), "remote"),
    "vagrant": (("--command",), ("-c",), "remote"),
    "az": (("--scripts",), (), "remote"),
}


def _command_option(call: Call) -> Unwrapped:
    longs, shorts, mode = _COMMAND_OPTIONS[call.name]
    inners: list[Inner] = []
    notes: list[str] = []
    for name, value in _option_values(call, longs, shorts):
        found = script(f"{call.name} {name}", mode, (value,), f"{call.name} {name} command")
        inners.extend(found.inners)
        notes.extend(found.notes)
    return Unwrapped(tuple(inners), tuple(notes))


_CMAKE_RM = {"rm": (), "remove": ("-f",), "remove_directory": ("-r", "-f"), "rm_rf": ("-r", "-f")}
"""`cmake -E` commands that remove files, as the `rm` they amount to."""


def cmake(call: Call) -> Unwrapped:
    """`cmake -E rm -rf x` removes like `rm -rf x`; `-E chdir dir cmd`, `-E env A=1 cmd` and
    `-E time cmd` run a command."""
    argv = call.argv
    if len(argv) < 3 or argv[1].value != "-E":
        return NOTHING
    action, rest = argv[2].value, argv[3:]
    if action in _CMAKE_RM:
        flags = tuple(Word.literal(flag) for flag in _CMAKE_RM[action])
        return run("cmake -E", "child", (Word.literal("rm"), *flags, *rest))
    if action == "chdir" and rest:
        return run("cmake -E chdir", "child", rest[1:], cwd=rest[0])
    if action == "env":
        index = next((i for i, word in enumerate(rest) if "=" not in word.value and word.value != "--"), 0)
        return run("cmake -E env", "child", rest[index:]) if rest else NOTHING
    if action == "time":
        return run("cmake -E time", "child", rest)
    return NOTHING


_SED = Getopt(
    values="efl",
    optional="i",
    longs={
        "expression": "=e", "file": "=f", "line-length": "=l", "in-place": "?i", "quiet": "n", "silent": "n",
        "debug": "", "posix": "", "follow-symlinks": "", "regexp-extended": "E", "separate": "s",
        "sandbox": "", "unbuffered": "u", "null-data": "z", "zero-terminated": "z", "binary": "b",
        "help": "", "version": "",
    },
    permute=True,
)  # fmt: skip
"""GNU sed's options: clustered letters, `-l N`, `-i[SUFFIX]`, and long names abbreviated (`--expr=`)."""


def sed(call: Call) -> Unwrapped:
    read = getopt(call.argv, _SED)
    if read.has("--sandbox"):
        return NOTHING
    scripts: list[str] = []
    notes: list[str] = []
    for name, value in read.options:
        if value is None or name not in ("-e", "-f"):
            continue
        if value.dynamic:
            notes.append(f"sed script is dynamic: {value.raw}")
        elif name == "-f":
            text, note = file_text(call, value, "a script", disk=False)
            scripts.extend([text] if text is not None else [])
            notes.extend([note] if note else [])
        else:
            scripts.append(value.value)
    if not read.has("-e", "-f") and read.operands:
        if read.operands[0].dynamic:
            notes.append(f"sed script is dynamic: {read.operands[0].raw}")
        scripts.append(read.operands[0].value)
    found = launched("sed", launches("sed", "\n".join(scripts))) if scripts else NOTHING
    return Unwrapped(found.inners, (*notes, *found.notes))


HANDLERS: dict[str, Callable[[Call], Unwrapped]] = {
    "tar": tar,
    "bsdtar": tar,
    "gtar": tar,
    "rsync": rsync,
    "sed": sed,
    "gsed": sed,
    "cmake": cmake,
    "rimraf": rimraf,
    **dict.fromkeys(_COMMAND_OPTIONS, _command_option),
}
