"""Where the interpreters beyond Python, JavaScript, Ruby, Perl, PHP and awk take their program: Lua,
Tcl, R, Julia, AppleScript and JXA, the Lisps, Elixir, Erlang, Haskell, OCaml, the JVM languages,
Swift, Crystal, gnuplot, m4, dc, and the shells that are not bash (fish, csh/tcsh, PowerShell,
nushell, elvish, xonsh).

Most read their options by a `Spec`; the few that read them their own way have a function here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from rein.steering.bash._words import tail
from rein.steering.bash.commands._interp_own_syntax import emacs, lldb, powershell
from rein.steering.bash.commands._interp_program import Program
from rein.steering.bash.commands._interp_specs import SPECS, Spec
from rein.steering.bash.model import Word

Reader = Callable[[Sequence[Word]], Program | None]


def scan(spec: Spec, argv: Sequence[Word], start: int = 1) -> Program | None:
    """The program by `spec`: code and files from options, else the script operand, else stdin."""
    code: list[Word] = []
    files: list[Word] = []
    operand: Word | None = None
    quiet = False
    index, count = start, len(argv)
    while index < count:
        word = argv[index]
        value = word.value
        index += 1
        if value in spec.stops:
            return None
        if value in spec.ends:
            break
        if value == "--":
            operand = argv[index] if index < count and spec.script else None
            break
        if value == "-" or not value.startswith("-"):
            if spec.script:
                operand = word
                break
            continue
        quiet = quiet or value in spec.quiet
        name, eq, _ = value.partition("=")
        short = name[:2] if not name.startswith("--") and len(name) > 2 else ""
        if name in spec.code or name in spec.files or name in spec.values:
            taken = tail(word, len(name) + 1) if eq else (argv[index] if index < count else None)
            index += 0 if eq else 1
        elif short and (short in spec.code or short in spec.files):
            name, taken = short, tail(word, 2)
        else:
            continue
        if taken is not None and name in spec.code:
            code.append(taken)
        elif taken is not None and name in spec.files:
            files.append(taken)
    if code:
        more = (operand,) if spec.both and operand is not None else ()
        return Program(spec.language, code=tuple(code), files=(*files, *more))
    if files:
        return Program(spec.language, script=files[0], files=tuple(files[1:]))
    if operand is not None:
        return Program(spec.language, script=operand)
    return Program(spec.language) if spec.stdin and not quiet else None


def _csh(argv: Sequence[Word]) -> Program:
    """`csh -c CMD`, `tcsh -fc CMD`: options cluster, `-c` takes the first operand."""
    has_c = has_s = False
    index = 1
    while index < len(argv) and argv[index].value.startswith("-") and argv[index].value != "-":
        has_c = has_c or "c" in argv[index].value
        has_s = has_s or "s" in argv[index].value
        index += 1
    operand = argv[index] if index < len(argv) else None
    if has_c:
        return Program("csh", code=(operand or Word.literal(""),))
    return Program("csh", script=None if has_s else operand)


def _elvish(argv: Sequence[Word]) -> Program:
    spec = Spec("elvish", values=frozenset({"-rc", "-log", "-sock", "-db", "-deprecation-level", "-port"}))
    found = scan(spec, argv) or Program("elvish")
    if any(word.value in ("-c", "--c") for word in argv[1:]) and found.script is not None:
        return Program("elvish", code=(found.script,))
    return found


def _crystal(argv: Sequence[Word]) -> Program | None:
    command = argv[1].value if len(argv) > 1 else ""
    if command == "eval":
        return Program("crystal", code=tuple(argv[2:])) if len(argv) > 2 else Program("crystal")
    if command == "run":
        return Program("crystal", script=argv[2]) if len(argv) > 2 else None
    return Program("crystal", script=argv[1]) if command.endswith(".cr") else None


_JAVA_VALUES = frozenset({
    "-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path", "--add-modules",
    "--limit-modules", "--add-reads", "--add-exports", "--add-opens", "--patch-module", "--source",
    "--enable-native-access",
})  # fmt: skip


def _java(argv: Sequence[Word]) -> Program | None:
    """`java [options] X.java args`: a source file run as a program (`--source N` makes any file one)."""
    source = False
    index = 1
    while index < len(argv):
        value = argv[index].value
        index += 1
        if value in ("-jar", "-m", "--module", "--version", "-version", "--help", "-help"):
            return None
        if value.startswith("-"):
            source = source or value.startswith("--source")
            index += value in _JAVA_VALUES
            continue
        return Program("java", script=argv[index - 1]) if source or value.endswith(".java") else None
    return None


def _osascript(argv: Sequence[Word]) -> Program | None:
    found = scan(SPECS["osascript"], argv)
    language = next(
        (argv[i + 1].value for i, word in enumerate(argv[:-1]) if word.value == "-l"),
        "AppleScript",
    )
    if found is not None and language.lower() in ("javascript", "js"):
        return replace(found, language="jxa")
    return found


def _r(argv: Sequence[Word]) -> Program | None:
    values = [word.value for word in argv]
    if "CMD" in values:
        at = values.index("CMD")
        operands = [word for word in argv[at + 2 :] if not word.value.startswith("-")]
        if values[at + 1 : at + 2] == ["BATCH"] and operands:
            return Program("r", script=operands[0])
        return None
    return scan(SPECS["R"], argv)


def _bb(argv: Sequence[Word]) -> Program | None:
    found = scan(SPECS["bb"], argv)
    script = found.script if found is not None else None
    if script is not None and script.value != "-" and "." not in script.value and "/" not in script.value:
        return None  # `bb task`: a task of the project's bb.edn
    return found


SPECIAL: dict[str, Reader] = {
    "csh": _csh,
    "tcsh": _csh,
    "elvish": _elvish,
    "pwsh": lambda argv: powershell(argv, "file"),
    "pwsh-preview": lambda argv: powershell(argv, "file"),
    "powershell": lambda argv: powershell(argv, "command"),
    "emacs": emacs,
    "emacs-nox": emacs,
    "emacsclient": emacs,
    "crystal": _crystal,
    "java": _java,
    "osascript": _osascript,
    "R": _r,
    "bb": _bb,
    "lldb": lldb,
}
NAMES = frozenset(SPECS) | frozenset(SPECIAL)
"""The command names read here (`_interp_spec_names.NAMES`, which a hook loads without this module)."""


def program(name: str, argv: Sequence[Word]) -> Program | None:
    special = SPECIAL.get(name)
    if special is not None:
        return special(argv)
    spec = SPECS.get(name)
    return scan(spec, argv) if spec is not None else None
