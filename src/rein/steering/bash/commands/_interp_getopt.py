"""GNU `getopt_long` as the tools built on it read their options: short letters cluster (`-ne`), a
value is the rest of the cluster or the next word, long options may be abbreviated to a unique prefix
(`sed --expr=...`), and `--` ends the options. Used where a misread option would hide a program
(`gawk -i inplace -e CODE`, `python -m timeit -s SETUP STMT`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rein.steering.bash._words import tail
from rein.steering.bash.model import Word


@dataclass(frozen=True, slots=True)
class Getopt:
    """One tool's option table."""

    values: str = ""
    """Short letters that take a value: the rest of the cluster, or else the next word."""
    optional: str = ""
    """Short letters whose value can only be the rest of the cluster (`sed -i.bak`, `gawk -d`)."""
    longs: Mapping[str, str] = field(default_factory=dict)
    """Long names: "" a flag, "=" a value (`--x=v` or `--x v`), "?" an attached value only; a letter
    after it names the short option it is (`"=e"`: reported as `-e`)."""
    permute: bool = False
    """Operands may come before options (GNU's default); else the first operand ends the options."""
    ends: frozenset[str] = frozenset()
    """Options whose value is the last one read (`gawk -E FILE`)."""
    abbreviate: bool = True
    """Long names may be shortened to a unique prefix."""


@dataclass(frozen=True, slots=True)
class Options:
    """What a command line's options were."""

    options: tuple[tuple[str, Word | None], ...]
    """(`-e` or `--name`, its value) in order; a long option with a short form is named by the letter."""
    operands: tuple[Word, ...]
    end: int
    """Index of the first word after the options (the first operand, unless they permute)."""

    def values(self, *names: str) -> list[Word]:
        return [value for name, value in self.options if name in names and value is not None]

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)


def getopt(argv: Sequence[Word], spec: Getopt, start: int = 1) -> Options:
    """Read `argv[start:]` by `spec`."""
    found: list[tuple[str, Word | None]] = []
    operands: list[Word] = []
    index, count = start, len(argv)
    end = count
    while index < count:
        word = argv[index]
        value = word.value
        if value == "--":
            operands.extend(argv[index + 1 :])
            end = index + 1 if end == count else end
            break
        if value == "-" or not value.startswith("-"):
            if not spec.permute:
                end = index
                operands.extend(argv[index:])
                break
            end = index if end == count else end
            operands.append(word)
            index += 1
            continue
        index += 1
        taken = _long(word, argv, index, spec) if value.startswith("--") else _short(word, argv, index, spec)
        for name, got, used in taken:
            found.append((name, got))
            index += used
            if name in spec.ends:
                operands.extend(argv[index:])
                return Options(tuple(found), tuple(operands), index)
    return Options(tuple(found), tuple(operands), min(end, count))


def _long(word: Word, argv: Sequence[Word], index: int, spec: Getopt) -> list[tuple[str, Word | None, int]]:
    head, eq, _ = word.value[2:].partition("=")
    name = _resolve(head, spec)
    if name is None:
        return [(f"--{head}", tail(word, len(head) + 3) if eq else None, 0)]
    kind = spec.longs[name]
    label = f"-{kind[1]}" if len(kind) > 1 else f"--{name}"
    if eq:
        return [(label, tail(word, len(head) + 3), 0)]
    if kind.startswith("=") and index < len(argv):
        return [(label, argv[index], 1)]
    return [(label, None, 0)]


def _resolve(head: str, spec: Getopt) -> str | None:
    if head in spec.longs:
        return head
    if not spec.abbreviate or not head:
        return None
    matches = [name for name in spec.longs if name.startswith(head)]
    return matches[0] if len(matches) == 1 else None


def _short(word: Word, argv: Sequence[Word], index: int, spec: Getopt) -> list[tuple[str, Word | None, int]]:
    value = word.value
    taken: list[tuple[str, Word | None, int]] = []
    for position in range(1, len(value)):
        letter = value[position]
        rest = position + 1 < len(value)
        if letter in spec.values:
            if rest:
                taken.append((f"-{letter}", tail(word, position + 1), 0))
            else:
                taken.append((f"-{letter}", argv[index] if index < len(argv) else None, 1))
            break
        if letter in spec.optional:
            taken.append((f"-{letter}", tail(word, position + 1) if rest else None, 0))
            break
        taken.append((f"-{letter}", None, 0))
    return taken
