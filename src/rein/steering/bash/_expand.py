"""Words as the shell hands them to a command: known values put in, split and dropped as bash does.

A word whose expansions are all known becomes the literal it expands to (`D=/; rm -rf $D` runs `rm -rf
/`), so every rule reads values, not spellings. An unquoted expansion is split on blanks (`CMD="git push
-f"; $CMD` runs `git push -f`) and vanishes when empty; `"$@"` and `"${a[@]}"` give one word per
element. What is not known stays an expansion in the word, for rules to treat as unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from rein.steering.bash._frame import POSITIONAL, Array, Value
from rein.steering.bash._words import lookup
from rein.steering.bash.model import UNKNOWN, Env, Expansion, Unknown, Word, WordPart

_GLOB = re.compile(r"[*?\[]")
_MULTI = frozenset({"@", "*"})
_FIELD_BREAK = object()
"""Marks where an expansion splits the word in two."""


def expand(argv: Sequence[Word], env: Env, arrays: Mapping[str, Array]) -> tuple[Word, ...]:
    """The words the command gets. Literal words pass through untouched."""
    if not any(word.dynamic for word in argv):
        return tuple(argv)
    out: list[Word] = []
    for word in argv:
        out.extend(expand_word(word, env, arrays) if word.dynamic else (word,))
    return tuple(out)


def expand_word(word: Word, env: Env, arrays: Mapping[str, Array]) -> list[Word]:
    pieces: list[WordPart | object] = []
    for part in word.parts:
        pieces.extend((part,) if isinstance(part, str) else _expanded(part, env, arrays))
    fields: list[list[WordPart]] = [[]]
    for piece in pieces:
        if piece is _FIELD_BREAK:
            fields.append([])
        elif isinstance(piece, str | Expansion):
            fields[-1].append(piece)
    words = [_word(field, word.raw) for field in fields]
    if not _quoted(word):
        return [found for found in words if found.value or found.dynamic]
    if len(word.parts) == 1 and not pieces:  # "$@" with no parameters: no word at all
        return []
    return words


def _quoted(word: Word) -> bool:
    """Whether the word had quotes, so an empty expansion still leaves an empty word."""
    return word.raw[:1] in ("'", '"') or any(
        isinstance(part, Expansion) and part.quoted for part in word.parts
    )


def _expanded(part: Expansion, env: Env, arrays: Mapping[str, Array]) -> Iterable[WordPart | object]:
    """One expansion's pieces: text, still-unknown expansions, and breaks between fields."""
    if part.kind not in ("var", "command"):
        return (part,)
    elements = _elements(part, env, arrays)
    if elements is None:
        value = lookup(part, env)
        if isinstance(value, Unknown):  # keep what is known of it (a temp path, a branch name)
            return (part if value is UNKNOWN or part.value is value else replace(part, value=value),)
        return _text(value, part, env.get("IFS"))
    if isinstance(elements, Unknown):
        return (part,)
    out: list[WordPart | object] = []
    for index, element in enumerate(elements):
        if index:
            out.append(_FIELD_BREAK)
        out.extend(_text(element, part, env.get("IFS")) if isinstance(element, str) else (part,))
    return out


def _elements(part: Expansion, env: Env, arrays: Mapping[str, Array]) -> Sequence[Value] | Unknown | None:
    """For `"$@"`, `$*`, `${a[@]}`: the elements (one word each); None for a scalar expansion."""
    if part.kind != "var" or part.name is None:
        return None
    if part.index is None and part.name not in _MULTI:
        return None
    if part.index is not None and part.index not in _MULTI:
        array = arrays.get(part.name)
        if isinstance(array, tuple) and part.index.isdigit():
            number = int(part.index)
            return (array[number] if number < len(array) else "",)
        return UNKNOWN
    array = arrays.get(POSITIONAL if part.index is None else part.name, UNKNOWN)
    if isinstance(array, Unknown):
        return UNKNOWN
    if part.span is not None:
        array = _sliced(array, part, env)
    if (part.index or part.name) == "*" and part.quoted:  # "$*": one word, joined by IFS's first char
        return (_joined(array, env.get("IFS", _DEFAULT_IFS)),)
    return array


def _sliced(array: Sequence[Value], part: Expansion, env: Env) -> tuple[Value, ...]:
    """`${@:N:M}` counts from `$0` (`${@:1}` is `"$@"`); `${a[@]:N:M}` from the first element."""
    assert part.span is not None
    offset, length = part.span
    items = list(array)
    if part.index is None:  # positional parameters: `$0` comes first
        items = [env.get("0", UNKNOWN), *items]
    if offset < 0:
        offset = max(len(items) + offset, 0)
    return tuple(items[offset : None if length is None else offset + length])


def _joined(array: Sequence[Value], ifs: Value) -> Value:
    if isinstance(ifs, Unknown) or not all(isinstance(value, str) for value in array):
        return UNKNOWN
    return ifs[:1].join(value for value in array if isinstance(value, str))


def _text(value: str, part: Expansion, ifs: Value | None) -> list[WordPart | object]:
    """A known value: as is when quoted; split on `$IFS` (and read as a glob) when not."""
    if part.quoted:
        return [value]
    if isinstance(ifs, Unknown):
        return [replace(part, value=UNKNOWN)]  # how it splits is not known
    fields, before, after = split_fields(value, _DEFAULT_IFS if ifs is None else ifs)
    if not fields:  # nothing but delimiters: the word breaks there (`push$IFS-f`)
        return [_FIELD_BREAK] if value else []
    out: list[WordPart | object] = [_FIELD_BREAK] if before else []
    for index, field in enumerate(fields):
        if index:
            out.append(_FIELD_BREAK)
        out.append(Expansion(kind="glob", raw=field) if _GLOB.search(field) else field)
    if after:
        out.append(_FIELD_BREAK)
    return out


_DEFAULT_IFS = " \t\n"


def split_fields(value: str, ifs: str) -> tuple[list[str], bool, bool]:
    """The fields bash splits an unquoted value into with this `IFS`, whether it starts with IFS blanks
    and whether it ends with a delimiter (text before or after the expansion is then a field of its
    own). Blanks in IFS gather (leading and trailing ones make no field); each other IFS character ends
    a field, empty or not (a leading one makes an empty first field, which joins the text before)."""
    if not ifs:
        return ([value] if value else []), False, False
    blanks = {char for char in ifs if char in " \t\n"}
    count = len(value)
    fields: list[str] = []
    start = index = 0
    while index < count and value[index] in blanks:
        index += 1
    start = index
    while index < count:
        if value[index] not in ifs:
            index += 1
            continue
        fields.append(value[start:index])
        while index < count and value[index] in blanks:
            index += 1
        if index < count and value[index] not in blanks and value[index] in ifs:
            index += 1
            while index < count and value[index] in blanks:
                index += 1
        start = index
    if start < count:
        fields.append(value[start:])
    return fields, bool(value) and value[0] in blanks, bool(value) and value[-1] in ifs


def _word(parts: list[WordPart], raw: str) -> Word:
    merged: list[WordPart] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        elif part != "":
            merged.append(part)
    if all(isinstance(part, str) for part in merged):
        return Word(value="".join(part for part in merged if isinstance(part, str)), raw=raw)
    value = "".join(part if isinstance(part, str) else part.raw for part in merged)
    return Word(value=value, raw=raw, parts=tuple(merged))


def fill(argv: Sequence[Word], outputs: Mapping[str, Value]) -> list[Word]:
    """`argv` with what rein knows of each command substitution's output put into its expansion
    (`$(pwd)` is the cwd, `$(mktemp -d)` a fresh temp path), found by the substitution's text."""
    if not outputs:
        return list(argv)
    out: list[Word] = []
    for word in argv:
        if not word.dynamic or not any(isinstance(p, Expansion) and p.raw in outputs for p in word.parts):
            out.append(word)
            continue
        parts = tuple(
            replace(part, value=outputs[part.raw])
            if isinstance(part, Expansion)
            and part.kind in ("command", "process")
            and outputs.get(part.raw, UNKNOWN) is not UNKNOWN
            else part
            for part in word.parts
        )
        out.append(Word(value=word.value, raw=word.raw, parts=parts))
    return out
