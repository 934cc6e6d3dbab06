"""A tox 4 `tox.ini` (https://tox.wiki/en/latest/config.html) as tox reads it: configparser's
sections and multi-line values (full-line `#`/`;` comments dropped), then per value tox's own steps
(`tox/config/loader/ini`): `#` comments stripped, the lines of factors the environment does not
have dropped (`py311: pytest`), `\\` continuations joined, `{...}` substitutions made. Each line
keeps the number of the line it starts on."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product

Line = tuple[int, str]

_SECTION = re.compile(r"\[(.+)\]\s*$")
_OPTION = re.compile(r"([^\s=:][^=:]*?)\s*[=:]\s*(.*)$")
_COMMENT = re.compile(r"\s*(?<!\\)#.*")
_FACTORS = re.compile(r"^([\w{}.!+,-]+):\s+(.+)")
_BRACES = re.compile(r"\{([^{}]*)\}")
PLATFORMS = frozenset(
    [
        "linux",
        "darwin",
        "win32",
        "cygwin",
        "msys",
        "freebsd",
        "openbsd",
        "netbsd",
        "aix",
        "sunos",
        "x86_64",
        "amd64",
        "arm64",
        "aarch64",
        "x86",
        "i686",
        "i386",
        "ppc64le",
        "s390x",
        "riscv64",
        "armv7l",
    ]
)
"""Factors tox takes from the machine: they may hold wherever the command runs."""


class IniError(Exception):
    """Text configparser rejects (tox stops with an error)."""


@dataclass(frozen=True, slots=True)
class Ini:
    sections: dict[str, dict[str, tuple[int, list[Line]]]]
    """Section name: option (lowercased): (line of the key, the value's lines)."""

    def get(self, section: str, key: str) -> tuple[int, list[Line]] | None:
        return self.sections.get(section, {}).get(key)


def parse(text: str) -> Ini:
    sections: dict[str, dict[str, tuple[int, list[Line]]]] = {}
    current: dict[str, tuple[int, list[Line]]] | None = None
    value: list[Line] | None = None
    for number, raw in enumerate(text.replace("\r", "").split("\n"), 1):
        stripped = raw.strip()
        if stripped.startswith(("#", ";")):
            continue
        if value is not None and raw[:1] in (" ", "\t") and stripped:
            value.append((number, stripped))
            continue
        if not stripped:
            if value is not None:
                value.append((number, ""))
            continue
        if (section := _SECTION.match(raw)) is not None:
            name = section.group(1)
            if name in sections:
                raise IniError(f"section [{name}] appears twice (line {number})")
            current, value = sections.setdefault(name, {}), None
            continue
        option = _OPTION.match(raw)
        if current is None or option is None:
            raise IniError(f"line {number} is neither a section, an option nor a continuation")
        key = option.group(1).strip().lower()
        if key in current:
            raise IniError(f"option {key} appears twice in a section (line {number})")
        value = [(number, option.group(2).strip())] if option.group(2).strip() else []
        current[key] = (number, value)
    for options in sections.values():
        for key, (number, lines) in options.items():
            while lines and not lines[-1][1]:
                lines.pop()
            options[key] = (number, lines)
    return Ini(sections)


def expand(text: str) -> list[str]:
    """Brace expansion of an env name or factor (`py3{11,12}-django` is two)."""
    parts = _BRACES.split(text)
    choices = [
        [part] if index % 2 == 0 else [c.strip() for c in part.split(",")] for index, part in enumerate(parts)
    ]
    return ["".join(combo) for combo in product(*choices)][:256]


def env_list(lines: list[Line]) -> list[str]:
    names: list[str] = []
    for _, raw in lines:
        for item in re.split(r",(?![^{]*\})", _COMMENT.sub("", raw)):
            names.extend(name for name in expand(item.strip()) if name)
    return names


def _holds(expression: str, factors: set[str]) -> bool:
    """Whether a factor condition (`py311,py312-django`, `!lint`) may hold for an env with `factors`."""
    for group in expression.split(","):
        for option in expand(group):
            conditions = [(part.lstrip("!"), part.startswith("!")) for part in option.split("-") if part]
            if all(name in PLATFORMS or (name in factors) != negate for name, negate in conditions):
                return True
    return False


def lines_for(lines: list[Line], env: str | None) -> Iterator[Line]:
    """A value's lines for `env`: comments stripped, other factors' lines dropped, continuations
    joined (tox's `process_raw`). With `env` None every conditional line is kept."""
    factors = set(env.split("-")) if env else set()
    kept: list[Line] = []
    skipping = False
    for number, raw in lines:
        line = _COMMENT.sub("", raw).replace("\\#", "#")
        conditional = _FACTORS.match(line)
        if conditional is not None:
            if env is not None and not _holds(conditional.group(1), factors):
                skipping = line.endswith("\\")
                continue
            line = conditional.group(2)
        elif skipping:
            skipping = line.endswith("\\")
            continue
        kept.append((number, line))
    at = 0
    while at < len(kept):
        number, line = kept[at]
        at += 1
        while line.endswith("\\") and at < len(kept):
            line = line[:-1] + kept[at][1]
            at += 1
        if line.strip():
            yield number, line.removesuffix("\\")
