"""A command's arguments as its tool reads them, for rules: options by full name, operands, and whether a
word rein cannot read may be one more flag.

A word rein cannot read may be a flag (`xargs git push` may get `-f`; `git push "$X"` with X unknown may
be `--force`), so a rule about flags or targets cannot say no while one is there. A value rein can
bound is not a flag: a fresh temp path, a path below a known directory (`find . -exec rm {} +`), a git
ref name, or a word with literal text before the unknown part that does not start with `-`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rein.steering.bash import Bounded, CommandRef, Expansion, Word
from rein.steering.bash.commands import Options, git_spec, parse, subcommand_index, tool_spec


@dataclass(frozen=True, slots=True)
class Args:
    options: tuple[tuple[str, Word | None], ...]
    operands: tuple[Word, ...]
    wild: bool
    """Some word rein cannot read may be any flag (or several words)."""
    unknown_options: tuple[str, ...] = ()
    """Options the tool's table does not know, or ambiguous abbreviations."""
    after_dashdash: tuple[Word, ...] | None = None
    """The words after `--` (None when there is no `--`)."""

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)

    def values(self, *names: str) -> list[Word]:
        return [value for name, value in self.options if name in names and value is not None]


def unreadable(word: Word) -> bool:
    """Whether rein cannot tell anything of the word's value: it starts with an expansion it does not
    know and cannot bound."""
    if not word.dynamic:
        return False
    first = word.parts[0]
    return not isinstance(first, str) and not _bounded(first)


def may_be_flag(word: Word) -> bool:
    """Whether `word` may start with `-` once the shell expands it (or split into words that do)."""
    if not word.dynamic:
        return False
    first = word.parts[0]
    if isinstance(first, str):
        return first.startswith("-")
    return not _bounded(first)


def may_split(word: Word) -> bool:
    """Whether `word` may become several words: it holds an unquoted expansion (`git $CMD`), or an
    argument list supplied at run time (`xargs git`); a ref name or a fresh temp path has no blank."""
    return any(
        isinstance(part, Expansion)
        and (not part.quoted or _MANY.match(part.raw) is not None)
        and not (isinstance(part.value, Bounded) and part.value.kind in ("ref", "temp"))
        for part in word.parts
    )


_MANY = re.compile(r"\$\{?!?(@|[A-Za-z_]\w*\[@\])")
"""`"$@"`, `"${a[@]}"` and their slices and edits: one word per element, quoted or not."""


def _bounded(part: Expansion) -> bool:
    """An expansion whose value rein bounds: a temp path, a path below a directory, a git ref."""
    value = part.value
    if not isinstance(value, Bounded) or value.kind == "reflines":
        return False
    return value.kind != "below" or not value.path.startswith("-")


def read(argv: Sequence[Word], start: int, options: Options) -> Args:
    parsed = parse(argv, start, options)
    words = list(argv[start:])
    end = next(
        (index for index, word in enumerate(words) if word.value == "--" and not word.dynamic), len(words)
    )
    values = {id(value) for _, value in parsed.options if value is not None and not may_split(value)}
    # an option's value is no flag (`checkout -b "$NEW"`; `-b $NEW` may split into more words); an
    # abbreviation that fits several options is any of them
    wild = any(may_be_flag(word) for word in words[:end] if id(word) not in values) or any(
        isinstance(part, Expansion) and part.kind == "option" for word in words[:end] for part in word.parts
    )
    after = tuple(words[end + 1 :]) if end < len(words) else None
    return Args(parsed.options, parsed.operands, wild, parsed.unknown, after)


_last: list[tuple[CommandRef, tuple[str, Args]]] = []


def git_args(ref: CommandRef) -> tuple[str, Args]:
    """A git command's subcommand and its arguments read with that subcommand's table (kept for the
    last ref: every git rule reads the same one in a row)."""
    if _last and _last[0][0] is ref:
        return _last[0][1]
    found = _git_args(ref)
    _last[:] = [(ref, found)]
    return found


def _git_args(ref: CommandRef) -> tuple[str, Args]:
    argv = ref.argv
    index = subcommand_index(argv)
    if index >= len(argv):
        return "", Args((), (), False)
    sub = argv[index].value
    return sub, read(argv, index + 1, git_spec(sub) or Options())


def tool_args(ref: CommandRef, key: str) -> Args:
    return read(ref.argv, 1, tool_spec(key))
