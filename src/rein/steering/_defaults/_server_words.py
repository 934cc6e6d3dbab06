"""What a word rein cannot read in full may turn out to be, for `no-dev-server`: a serving subcommand, or
an option that makes a tool watch.

A glob only expands to names of files that exist (or stays as written when none match), so it is read
by its pattern: `tests/unit/test_*.py` and `tests/a.py::test_b[2]` can never be `--watch` or `serve`,
while `*` can be either (a file named `--watch` in the directory would do) and stays unknown. The
pattern is matched against the option's spellings as written, `--watch` and `-w`: a file named
`--watch=a.ts` that `*.ts` would match is not looked for, since a hang, unlike a deletion, only costs
a timeout. Any other expansion is read by its literal text before the first unknown part
(`--watch=$ON` may turn watch on; `src/$F` is no option).
"""

from __future__ import annotations

import glob
from collections.abc import Iterable
from fnmatch import fnmatchcase

from rein.steering._args import unreadable
from rein.steering._defaults._server_kit import Flags
from rein.steering.bash import Expansion, Word

_WILD = "*?["


def pattern(word: Word) -> str | None:
    """The glob a word is made of (literal text and globs only), None for any other expansion."""
    parts: list[str] = []
    for part in word.parts:
        if isinstance(part, str):
            parts.append(glob.escape(part))
        elif part.kind == "glob":
            parts.append(part.raw)
        else:
            return None
    return "".join(parts) if parts else None


def lead(word: Word) -> str:
    """The literal text a word starts with, before its first expansion or wildcard."""
    text: list[str] = []
    for part in word.parts or (word.value,):
        if isinstance(part, str):
            text.append(part)
            continue
        if isinstance(part, Expansion) and part.kind == "glob":
            raw = part.raw
            text.append(raw[: min((raw.index(c) for c in _WILD if c in raw), default=len(raw))])
        break
    return "".join(text)


def spellings(flags: Flags) -> list[str]:
    """The ways a tool's options in `flags` are written: `--watch`, `-watch` (as tsc reads it), `-w`."""
    return [
        *(f"--{name}" for name in flags.longs if name),
        *(f"-{name}" for name in flags.longs if name),
        *(f"-{letter}" for letter in flags.shorts),
    ]


def may_be(word: Word, names: Iterable[str], flags: Flags | None = None) -> bool:
    """Whether a dynamic word may be one of `names` (or, given `flags`, one of those options)."""
    candidates = [name.split()[0] for name in names if name] + (spellings(flags) if flags else [])
    glob_pattern = pattern(word)
    if glob_pattern is not None:
        return any(fnmatchcase(candidate, glob_pattern) for candidate in candidates)
    first = word.parts[0] if word.parts else None
    if isinstance(first, Expansion) and first.kind != "glob":
        return unreadable(word)  # a bounded value (a temp path, a path below `.`) is no name
    text = lead(word)
    return any(candidate.startswith(text) or text.startswith(f"{candidate}=") for candidate in candidates)


def may_be_option(args: Iterable[Word], flags: Flags) -> bool:
    """Whether a dynamic word written as an option (`--$MODE`, `--watch=$W`, `-*`) may be one of
    `flags` (a bare `$X` is read as a subcommand, which it may be too)."""
    if not flags.longs and not flags.shorts:
        return False
    for word in args:
        if word.value == "--" and not word.dynamic:
            return False
        if word.dynamic and lead(word).startswith("-") and may_be(word, (), flags):
            return True
    return False
