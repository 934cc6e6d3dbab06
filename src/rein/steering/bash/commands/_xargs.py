"""`xargs`: the command it builds from what it reads, as GNU xargs reads it.

By default the input splits on blanks and newlines, with quotes and backslashes read; `-0` and `-d
DELIM` split on the delimiter only, every other character kept; `-I R` (also `-i`, `--replace`) reads
whole lines (leading blanks dropped, quotes still read) and puts each line where R is, one command per
line. `-n N` and `-L N` give each command N arguments or N lines. Input rein can read (a heredoc, `echo
... |`, a file the line wrote with `-a`) gives the exact commands; other input gives an argument only
known at run time.
"""

from __future__ import annotations

import re
import shlex

from rein.steering.bash.commands._feeders import MAX_ITEMS, replace_marker, runtime_word
from rein.steering.bash.commands._inner import Argv, Call, Inner, Unwrapped, run
from rein.steering.bash.commands._options import Parsed, parse
from rein.steering.bash.commands._sources import file_text
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import UNKNOWN, Unknown, Word

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def delimiter(text: str) -> str | None:
    """The character `-d` names: itself, a C escape (`\\n`), octal (`\\012`) or hex (`\\x0a`); None
    when xargs rejects it."""
    if len(text) == 1:
        return text
    if not text.startswith("\\"):
        return None
    if text[1:] in _ESCAPES:
        return _ESCAPES[text[1:]]
    if re.fullmatch(r"\\[0-7]{1,3}", text):
        return chr(int(text[1:], 8))
    if re.fullmatch(r"\\x[0-9a-fA-F]{1,2}", text):
        return chr(int(text[2:], 16))
    return None


def _unquoted_line(line: str) -> str | None:
    """One `-I` input line as xargs reads it: leading blanks dropped, quotes and backslashes removed,
    inner blanks kept; None for an unmatched quote (xargs stops with an error)."""
    out: list[str] = []
    quote = ""
    escaped = False
    for char in line.lstrip(" \t"):
        if escaped:
            out.append(char)
            escaped = False
        elif quote:
            if char == quote:
                quote = ""
            else:
                out.append(char)
        elif char in "'\"":
            quote = char
        elif char == "\\":
            escaped = True
        else:
            out.append(char)
    return None if quote else "".join(out)


def _words(text: str) -> list[str] | None:
    try:
        return shlex.split(text, posix=True)
    except ValueError:
        return None


def _input(call: Call, parsed: Parsed) -> str | Unknown:
    """The text xargs reads: its stdin, or the file `-a` names when this line wrote it."""
    arg_file = parsed.last("-a", "--arg-file")
    if arg_file is not None:
        text, _ = file_text(call, arg_file, "arguments", disk=False)
        return text if text is not None else UNKNOWN
    stdin = call.stdin
    return stdin.content if stdin is not None else UNKNOWN


def _groups(text: str, parsed: Parsed, marker: str | None) -> list[list[str]] | None:
    """The argument lists of the commands xargs runs, each a list of items; None when they cannot be
    read (an unmatched quote, a delimiter xargs rejects)."""
    named = parsed.last("-d", "--delimiter")
    split = "\0" if parsed.has("-0", "--null") else delimiter(named.value) if named is not None else None
    if named is not None and split is None and not parsed.has("-0", "--null"):
        return None
    if split is not None:
        items = text.split(split)
        lines = [[item] for item in (items[:-1] if items and not items[-1] else items)]
    elif marker is not None:
        read = [_unquoted_line(line) for line in text.split("\n")]
        if any(line is None for line in read):
            return None
        lines = [[line] for line in read if line]
    else:
        found = [_words(line) for line in text.split("\n")]
        if any(words is None for words in found):
            return None
        lines = [words for words in found if words]
    if marker is not None:  # one command per line (or delimited item)
        return lines
    items = [item for line in lines for item in line]
    count = _number(parsed.last("-n", "--max-args"))
    if count:
        return [items[start : start + count] for start in range(0, len(items), count)]
    per = _number(parsed.last("-L", "--max-lines", "-l"))
    if per:
        return [
            [item for line in lines[start : start + per] for item in line]
            for start in range(0, len(lines), per)
        ]
    return [items] if items else []


def _number(word: Word | None) -> int:
    return int(word.value) if word is not None and word.value.isdigit() and int(word.value) > 0 else 0


def xargs(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, spec("xargs"))
    command = argv[parsed.rest :] or (Word.literal("echo"),)
    marker = _marker(parsed)
    text = _input(call, parsed)
    groups = _groups(text, parsed, marker) if isinstance(text, str) else None
    if groups is not None and sum(len(group) for group in groups) <= MAX_ITEMS:
        if marker is None:
            return Unwrapped(
                tuple(
                    Inner("xargs", "maybe", argv=(*command, *(Word.literal(item) for item in group)))
                    for group in groups or [[]]
                )
            )
        return Unwrapped(
            tuple(Inner("xargs", "maybe", argv=_put(command, marker, group[0])) for group in groups)
        )
    bound = text if isinstance(text, Unknown) else UNKNOWN
    if marker is not None:
        replaced, _ = replace_marker(command, marker, bound)
        return run("xargs", "maybe", replaced)
    return run("xargs", "maybe", (*command, runtime_word(bound)))


def _marker(parsed: Parsed) -> str | None:
    """The replace string of `-I R`, `-iR`, `--replace=R` (`{}` for a bare `-i`/`--replace`)."""
    for name, value in reversed(parsed.options):
        if name in ("-I", "-i", "--replace"):
            return value.value if value is not None else "{}"
    return None


def _put(argv: Argv, marker: str, item: str) -> Argv:
    """`argv` with a known argument where `xargs -I` puts it (every occurrence, in every word)."""
    return tuple(
        Word.literal(word.value.replace(marker, item)) if not word.dynamic and marker in word.value else word
        for word in argv
    )
