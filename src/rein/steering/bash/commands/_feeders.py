"""Runners that supply arguments at run time: `parallel`, `find -exec`, `fd -x` (and `xargs`, in `_xargs`).

An argument supplied at run time may be anything, a flag included (`xargs git push` may get `-f`), so
it is a word rules cannot read, unless rein can bound it: `find . -exec rm {} +` gives paths at or
below `.`, and `xargs` fed by `find .` likewise; `echo / | xargs rm -rf` gets exactly `/`.
"""

from __future__ import annotations

import posixpath
import shlex

from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._feeder_tables import FIND_PRIMARIES
from rein.steering.bash.commands._find import reach
from rein.steering.bash.commands._inner import (
    NOTHING,
    Argv,
    Call,
    Inner,
    Unwrapped,
    Value,
    run,
    script,
    text_of,
)
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.model import UNKNOWN, Bounded, Expansion, Unknown, Word

RUNTIME_RAW = "{}"
"""How an argument supplied at run time shows in a command's text."""
MAX_ITEMS = 16
"""Literal argument lists longer than this (`parallel cmd ::: a b c ...`) are read as run-time ones."""


def runtime_word(bound: Unknown = UNKNOWN, prefix: str = "", suffix: str = "") -> Word:
    """A word holding an argument supplied at run time, with literal text around it (`{}/x`)."""
    part = Expansion(kind="runtime", raw=RUNTIME_RAW, value=bound)
    parts = tuple(piece for piece in (prefix, part, suffix) if piece)
    return Word(value=f"{prefix}{{}}{suffix}", raw=f"{prefix}{{}}{suffix}", parts=parts)


def replace_marker(argv: Argv, marker: str, bound: Unknown) -> tuple[Argv, bool]:
    """`argv` with every `marker` inside a literal word replaced by the run-time argument."""
    out: list[Word] = []
    found = False
    for word in argv:
        if word.dynamic or marker not in word.value:
            out.append(word)
            continue
        found = True
        prefix, _, suffix = word.value.partition(marker)
        out.append(runtime_word(bound, prefix, suffix))
    return tuple(out), found


def find(call: Call) -> Unwrapped:
    argv = call.argv
    index = 1
    while index < len(argv):  # -H -L -P -O3 -D opts come before the start paths
        value = argv[index].value
        if value not in ("-H", "-L", "-P", "-D") and not value.startswith("-O"):
            break
        index += 2 if value == "-D" else 1
    starts: list[Word] = []
    while index < len(argv) and not argv[index].value.startswith(("-", "(", "!")):
        starts.append(argv[index])
        index += 1
    expression = argv[index:]
    follows = any(word.value == "-L" for word in argv[1:index])
    inners: list[Inner] = []
    while index < len(argv):
        action = argv[index].value
        index += 1
        if action not in ("-exec", "-execdir", "-ok", "-okdir"):
            index += max(FIND_PRIMARIES.get(action, 0), 0)
            continue
        start = index
        at = index - 1 - (len(argv) - len(expression))  # the action's place in the expression
        bounds = [_below(call, word, expression, at, follows) for word in starts[:MAX_ITEMS]]
        while index < len(argv) and not _find_end(argv, index):
            index += 1
        if index > start:
            for bound in bounds or [_below(call, Word.literal("."), expression, at, follows)]:
                replaced, _ = replace_marker(argv[start:index], "{}", bound)
                inners.append(Inner(f"find {action}", "maybe", argv=replaced, cwd_unknown="dir" in action))
        index += 1
    return Unwrapped(tuple(inners))


def _below(call: Call, word: Word, expression: Argv = (), action: int = 0, follows: bool = False) -> Unknown:
    """What `find` gives an action at `expression[action]` for a start path: paths at or below it,
    or only some below it when the tests before the action say so (`-name 'tmp.*'`, see `_find`)."""
    if word.dynamic:
        return UNKNOWN
    path = join_path(call.state.cwd, word.value)
    if isinstance(path, str):
        found = reach(word.value, path, expression, action, follows=follows) if expression else path
        return Bounded("below", found)
    return Bounded("below", posixpath.normpath(word.value)) if not word.value.startswith("/") else UNKNOWN


def _find_end(argv: Argv, index: int) -> bool:
    value = argv[index].value
    return value == ";" or (value == "+" and argv[index - 1].value == "{}")


def fd(call: Call) -> Unwrapped:
    argv = call.argv
    for index, word in enumerate(argv):
        if word.value in ("-x", "--exec", "-X", "--exec-batch"):
            end = next((at for at in range(index + 1, len(argv)) if argv[at].value == ";"), len(argv))
            command = argv[index + 1 : end]
            paths = [w for w in argv[1:index] if not w.value.startswith("-")][1:]
            bound = (
                _below(call, paths[0])
                if len(paths) == 1
                else _below(call, Word.literal("."))
                if not paths
                else UNKNOWN
            )
            replaced, found = replace_marker(command, "{}", bound)
            return run(f"fd {word.value}", "maybe", replaced if found else (*command, runtime_word(bound)))
    return NOTHING


def parallel(call: Call) -> Unwrapped:
    """GNU parallel runs its command template through a shell, once per argument."""
    argv = call.argv
    parsed = parse(argv, 1, spec("parallel"))
    index = parsed.rest
    end = next((at for at in range(index, len(argv)) if argv[at].value.startswith(":::")), len(argv))
    template = argv[index:end]
    items: list[Value] = []
    known = end < len(argv) and argv[end].value in (":::", ":::+")
    for word in argv[end + 1 :]:
        if word.value.startswith(":::"):
            known = word.value in (":::", ":::+")
            continue
        items.append(word.value if known and not word.dynamic else UNKNOWN)
    if end == len(argv) or len(items) > MAX_ITEMS:
        items = [UNKNOWN]
    jobs: list[Inner] = []
    notes: list[str] = []
    for item in items:
        if not template:  # no command: each argument is a command line
            if isinstance(item, str):
                jobs.append(Inner("parallel", "maybe", script=item))
            else:
                notes.append("parallel runs command lines it reads at run time")
            continue
        text, _ = text_of(template)
        value = shlex.quote(item) if isinstance(item, str) else f'"{RUNTIME}"'
        jobs.append(Inner("parallel", "maybe", script=_substitute(text, value)))
    found = script("parallel", "maybe", template, "parallel command") if template else NOTHING
    return Unwrapped(tuple(jobs), (*found.notes, *notes))


def _substitute(template: str, value: str) -> str:
    """parallel's replacement strings take the argument; without one it is appended."""
    replaced = template
    for marker in ("{}", "{.}", "{/}", "{//}", "{/.}", "{1}"):
        replaced = replaced.replace(marker, value)
    return replaced if replaced != template else f"{template} {value}"
