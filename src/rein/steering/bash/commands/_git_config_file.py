"""git's configuration file syntax, read as git reads it (git-config(1), "CONFIGURATION FILE").

`[section]`, `[section "subsection"]` (quoted, with `\\"` and `\\\\`), the old `[section.subsection]`;
`name = value` lines whose value may be quoted, carry `\\n`, `\\t`, `\\b`, `\\"`, `\\\\` escapes, end in
a `;` or `#` comment outside quotes and continue on the next line after a trailing backslash; a name
with no `=` is a boolean true. Keys come back as git compares them (section and name lowercased, the
subsection kept), with the line each was set on. A line git would refuse is skipped, not fatal: rein
reads what it can of a file git may reject as a whole.
"""

from __future__ import annotations

import re

_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_NAME = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(=|$|[;#])")
_UNQUOTE = re.compile(r"\\(.)")
_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}
MAX_LINES = 20_000

Setting = tuple[str, str, int]
"""A key as git compares it, its value, and the 1-based line it is set on."""


def key_of(name: str) -> str:
    """A key as git compares it: section and variable name ignore case, a subsection does not."""
    section, _, rest = name.partition(".")
    middle, _, variable = rest.rpartition(".")
    return f"{section.lower()}.{middle}.{variable.lower()}" if middle else name.lower()


def parse_config(text: str) -> list[Setting]:
    """Every setting of a git configuration file, in order."""
    settings: list[Setting] = []
    section = ""
    lines = text.split("\n")[:MAX_LINES]
    at = 0
    while at < len(lines):
        number = at + 1
        line = lines[at].removesuffix("\r")
        at += 1
        found = _SECTION.match(line)
        if found is not None:
            name, sub = found.group(1), found.group(2)
            section = f"{name}.{_UNQUOTE.sub(_unquoted, sub)}" if sub is not None else name.lower()
            line = line[found.end() :]
        entry = _NAME.match(line)
        if entry is None or not section:
            continue
        key = key_of(f"{section}.{entry.group(1)}")
        if entry.group(2) != "=":
            settings.append((key, "true", number))
            continue
        value, at = _value(line[entry.end() :], lines, at)
        settings.append((key, value, number))
    return settings


def _value(rest: str, lines: list[str], at: int) -> tuple[str, int]:
    """A value after `=`: quotes removed, escapes read, a trailing comment dropped, continued lines
    joined; blanks outside quotes at either end trimmed, inner runs kept as written."""
    out: list[str] = []
    quoted = False
    pending = ""  # blanks seen outside quotes, kept only if more value follows
    index = 0
    while index < len(rest):
        char = rest[index]
        index += 1
        if char == "\\":
            if index >= len(rest):
                if at < len(lines):  # a backslash at the end continues on the next line
                    rest, index, at = lines[at].removesuffix("\r"), 0, at + 1
                continue
            out.append(pending + _ESCAPES.get(rest[index], rest[index]))
            pending = ""
            index += 1
        elif char == '"':
            quoted = not quoted
            out.append(pending)
            pending = ""
        elif not quoted and char in ";#":
            break
        elif not quoted and char in " \t":
            pending += char if out else ""
        else:
            out.append(pending + char)
            pending = ""
    return "".join(out), at


def _unquoted(found: re.Match[str]) -> str:
    return found.group(1)
