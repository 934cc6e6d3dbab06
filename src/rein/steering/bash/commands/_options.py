"""Options parsed the way the real tool parses them: GNU getopt_long and git's parse-options.

A command's `Options` says which long options exist (so a unique prefix such as `--forc` means
`--force`, and an ambiguous one is an error the tool reports), which of them take a value, which short
letters take one, and whether options may follow operands. `parse` reads an argv with it; `normalize`
rewrites abbreviated long options to their full names, so every rule reads the meaning, not the
spelling.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from rein.steering.bash._words import tail
from rein.steering.bash.model import Expansion, Word

Arity = Literal["none", "required", "optional"]
"""A long option takes no value, a value (`--repo x` or `--repo=x`), or only an attached one
(`--signed=yes`)."""


def long_options(*names: str) -> Mapping[str, Arity]:
    """A long-option table from names: `repo=` takes a value, `signed?` an optional one, `force` none."""
    table: dict[str, Arity] = {}
    for name in names:
        if name.endswith("="):
            table[name[:-1]] = "required"
        elif name.endswith("?"):
            table[name[:-1]] = "optional"
        else:
            table[name] = "none"
    return MappingProxyType(table)


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """How one command (or one git subcommand) reads its options."""

    long: Mapping[str, Arity] = field(default_factory=lambda: MappingProxyType({}))
    """Long option names without the dashes (`force`, `repo`)."""
    short_value: str = ""
    """Short letters that take a value: attached (`-ofile`) or the next word (`-o file`)."""
    short_optional: str = ""
    """Short letters whose value is optional and only ever attached (`-n5`)."""
    abbreviate: bool = True
    """A unique prefix of a long option names it (getopt_long, git parse-options)."""
    negate: bool = False
    """git: every long option without a value has a `--no-` form that undoes it."""
    permute: bool = True
    """GNU: options may follow operands until `--`. False: the first operand ends the options, as for
    a command that runs the rest (`sudo`, `timeout`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Parsed:
    """An argv read with `Options`: options by full name in order, operands, and what was unclear."""

    options: tuple[tuple[str, Word | None], ...] = ()
    """(`--force`, None), (`-C`, Word), ...: long options by their full name."""
    operands: tuple[Word, ...] = ()
    rest: int = 0
    """For `permute=False`: the index of the first operand (the command a runner runs)."""
    unknown: tuple[str, ...] = ()
    """Options the table does not know, or ambiguous prefixes: what they mean is not known."""

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)

    def last(self, *names: str) -> Word | None:
        """The value of the last of `names` given with a value."""
        found = [value for name, value in self.options if name in names and value is not None]
        return found[-1] if found else None

    def values(self, *names: str) -> list[Word]:
        return [value for name, value in self.options if name in names and value is not None]


def expand_long(name: str, options: Options) -> tuple[str, ...]:
    """The full long names `name` (without dashes) may mean: itself when exact, else every option it
    is a prefix of (one: a valid abbreviation; several: ambiguous; none: unknown)."""
    table = options.long
    if name in table or not options.abbreviate:
        return (name,) if name in table or _negated(name, options) else ()
    if _negated(name, options):
        return (name,)
    found = [full for full in table if full.startswith(name)]
    if options.negate and name.startswith("no-"):
        found += [f"no-{full}" for full in table if table[full] == "none" and full.startswith(name[3:])]
    return tuple(dict.fromkeys(found))


def _negated(name: str, options: Options) -> bool:
    return options.negate and name.startswith("no-") and options.long.get(name[3:]) == "none"


def _arity(name: str, options: Options) -> Arity:
    return "none" if name.startswith("no-") and name not in options.long else options.long[name]


def parse(argv: Sequence[Word], start: int, options: Options) -> Parsed:
    """Read `argv[start:]`. A word that is not a literal option (an expansion) is an operand; a lone
    `-` is an operand; `--` ends the options."""
    found: list[tuple[str, Word | None]] = []
    operands: list[Word] = []
    unknown: list[str] = []
    index, count = start, len(argv)
    rest = count
    while index < count:
        word = argv[index]
        value = word.value
        index += 1
        if value == "--" and not word.dynamic:
            operands.extend(argv[index:])
            rest = min(rest, index)
            break
        if len(value) < 2 or value[0] != "-" or (word.parts and not isinstance(word.parts[0], str)):
            operands.append(word)
            if not options.permute:
                rest = index - 1
                operands.extend(argv[index:])
                break
            continue
        if value.startswith("--"):
            index = _long(argv, index, word, options, found, unknown)
        else:
            index = _short(argv, index, word, options, found)
    return Parsed(
        options=tuple(found), operands=tuple(operands), rest=min(rest, count), unknown=tuple(unknown)
    )


def _long(
    argv: Sequence[Word],
    index: int,
    word: Word,
    options: Options,
    found: list[tuple[str, Word | None]],
    unknown: list[str],
) -> int:
    name, eq, _ = word.value[2:].partition("=")
    names = expand_long(name, options)
    if len(names) != 1:
        unknown.append(word.value if not names else f"{word.value} (could be --{' or --'.join(names)})")
        found.append((f"--{name}", tail(word, len(name) + 3) if eq else None))
        return index
    full = names[0]
    arity = _arity(full, options)
    if eq:
        found.append((f"--{full}", tail(word, len(name) + 3)))
    elif arity == "required" and index < len(argv):
        found.append((f"--{full}", argv[index]))
        index += 1
    else:
        found.append((f"--{full}", None))
    return index


def _short(
    argv: Sequence[Word], index: int, word: Word, options: Options, found: list[tuple[str, Word | None]]
) -> int:
    value = word.value
    for position in range(1, len(value)):
        letter = value[position]
        if letter in options.short_optional:
            found.append((f"-{letter}", tail(word, position + 1) if position + 1 < len(value) else None))
            break
        if letter not in options.short_value:
            found.append((f"-{letter}", None))
            continue
        if position + 1 < len(value):
            found.append((f"-{letter}", tail(word, position + 1)))
        elif index < len(argv):
            found.append((f"-{letter}", argv[index]))
            index += 1
        else:
            found.append((f"-{letter}", None))
        break
    return index


def normalize(argv: Sequence[Word], start: int, options: Options) -> tuple[Word, ...]:
    """`argv` with every abbreviated long option from `start` on written out in full (`--forc` is
    `--force`, `--har=x` is `--hard=x`); an ambiguous one becomes a word rules cannot read (it may be
    any of the options it abbreviates). Values and operands stay as they are."""
    if not options.abbreviate or not options.long:
        return tuple(argv)
    out = list(argv)
    index, count = start, len(argv)
    while index < count:
        word = argv[index]
        value = word.value
        index += 1
        if value == "--":
            break
        if not value.startswith("--") or word.dynamic:
            if not options.permute and not value.startswith("-"):
                break
            continue
        name, eq, rest = value[2:].partition("=")
        names = expand_long(name, options)
        if len(names) == 1 and names[0] != name:
            text = f"--{names[0]}{eq}{rest}"
            out[index - 1] = Word(value=text, raw=word.raw)
        elif len(names) > 1:
            out[index - 1] = Word(value=value, raw=word.raw, parts=(Expansion(kind="option", raw=value),))
        if len(names) == 1 and not eq and _arity(names[0], options) == "required":
            index += 1
    return tuple(out)
