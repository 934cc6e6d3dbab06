"""Perl's double-quoted string escapes: `\\n`, `\\x{263A}`, `\\N{U+41}`, `\\cA`, octal, and the case
changes `\\U \\L \\F \\Q ... \\E`, `\\u \\l`, applied across interpolated holes.

It does not split a string into text and interpolations (the values module does).
"""

from __future__ import annotations

import re
import unicodedata

from rein.steering.bash.launch._folding import Value, char, literal

_ESCAPE = re.compile(
    r"\\(?:x\{([0-9a-fA-F]*)\}|x([0-9a-fA-F]{0,2})|o\{([0-7]*)\}|([0-7]{1,3})|c(.)|N\{U\+([0-9a-fA-F]+)\}"
    r"|N\{([^}]*)\}|([lLuUQEF])|(.))",
    re.DOTALL,
)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "b": "\b", "a": "\a", "e": "\x1b"}
_CASE = "\ue000"
"""Marks a decoded case change (`\\U` is this and "U"), apart from a literal backslash and letter."""
Piece = str | Value
"""A decoded piece of a double-quoted string: text (with case-change marks) or an interpolated hole."""


def _escape(match: re.Match[str]) -> str:
    braces, hexa, obraces, octal, ctrl, code, name, case, other = match.groups()
    if braces is not None or hexa is not None:
        return char(int(braces or hexa or "0", 16))
    if obraces is not None or octal:
        return char(int(obraces or octal or "0", 8))
    if ctrl:
        return char(ord(ctrl.upper()) ^ 64)
    if code:
        return char(int(code, 16))
    if name is not None:
        try:
            return unicodedata.lookup(name)
        except KeyError:
            return "\ufffd"
    if case:
        return _CASE + case  # applied after decoding, by `cased`
    return _SIMPLE.get(other, other)


def cased(pieces: list[Piece]) -> Value:
    r"""Apply `\U \L \F \Q ... \E` and `\u \l` over the decoded pieces."""
    modes: list[str] = []
    once = ""
    out = Value()
    for piece in pieces:
        if isinstance(piece, Value):
            changed = tuple(_case(part, modes, "") if isinstance(part, str) else part for part in piece.parts)
            out += Value(changed) if modes else piece
            once = ""
            continue
        for chunk in re.split(f"({_CASE}[lLuUQEF])", piece):
            if len(chunk) == 2 and chunk[0] == _CASE:
                letter = chunk[1]
                if letter == "E":
                    modes = modes[:-1]
                elif letter in "lu":
                    once = letter
                else:
                    modes.append(letter)
            elif chunk:
                out += literal(_case(chunk, modes, once))
                once = ""
    return out


def _case(chunk: str, modes: list[str], once: str) -> str:
    for mode in modes:
        if mode == "Q":
            chunk = re.sub(r"(\W)", r"\\\1", chunk)
        else:
            chunk = chunk.upper() if mode == "U" else chunk.lower()
    if once and chunk:
        chunk = (chunk[0].upper() if once == "u" else chunk[0].lower()) + chunk[1:]
    return chunk


def unescape(raw: str) -> str:
    """A double-quoted body's text with its escapes decoded; case changes stay as marks for `cased`."""
    return _ESCAPE.sub(_escape, raw)
