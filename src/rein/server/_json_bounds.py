"""What a JSON body may not be, checked on its bytes before `json.loads` builds a single object:

- nested deeper than `MAX_DEPTH` arrays and objects: the parse, and every walk of the value after it,
  costs time in the depth, and Python's stack ends near 1000 (a RecursionError, a 500);
- made of more arrays and objects than one per `BYTES_PER_CONTAINER` bytes (`MIN_CONTAINERS` always
  allowed): parsing costs ~0.4 us per container with the garbage collector's passes, so 512 KB of
  `[]` held the event loop 75 ms where as many bytes of real entries take ~8 (they hold one per ~75
  bytes; the densest, JSON schemas, one per ~20, and those are small).

A lone UTF-16 surrogate escape (`"\\ud83d"`, what `JSON.stringify` writes for half an emoji) is
data the fork keeps: it is stored, hashed and answered as JavaScript writes it (`js_json`).

    problem = json_problem(raw)     # None, or the message of a 400

No Python loop runs per byte: strings are cut out with `bytes.replace`/`translate`/`split`, and the
depth is a C-level running sum over the brackets that remain, once their count is bounded (about
2 ms for 512 KB).
"""

from __future__ import annotations

import array
import itertools
from typing import Final

MAX_DEPTH: Final = 100
"""Arrays and objects inside one another, the body itself counted. pi's entries nest about 8 deep
before a tool call's arguments; the rest is for model-made JSON."""
BYTES_PER_CONTAINER: Final = 16
MIN_CONTAINERS: Final = 20_000

_STRUCTURE: Final = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE: Final = bytes(set(range(256)) - set(b'[]{}"'))
_SIGNED: Final = bytes.maketrans(b"[]", b"\x01\xff")  # +1 and -1 as signed bytes


def json_problem(raw: bytes, max_depth: int = MAX_DEPTH) -> str | None:
    """Why `raw` is refused before parsing, or None. Invalid JSON is left to the parser (a bracket
    count over broken text is only ever too high, so it can only refuse early what fails anyway)."""
    unescaped = raw.replace(b"\\\\", b"")  # an escaped backslash escapes nothing after it
    brackets = _brackets(unescaped)
    deep = f"body nests arrays and objects more than {max_depth} deep"
    if b"[" * (max_depth + 1) in brackets:  # the usual deep body, found before counting
        return deep
    allowed = max(MIN_CONTAINERS, len(raw) // BYTES_PER_CONTAINER)
    if brackets.count(b"[") > allowed:
        return (
            f"body holds {brackets.count(b'[')} arrays and objects: more than {allowed} "
            f"(one per {BYTES_PER_CONTAINER} bytes, at least {MIN_CONTAINERS})"
        )
    return deep if too_deep(brackets, max_depth) else None


def _brackets(unescaped: bytes) -> bytes:
    """The brackets outside strings, `{` `}` written `[` `]`: after the escaped quotes go, every `"`
    left opens or closes a string."""
    text = unescaped.replace(b'\\"', b"").translate(_STRUCTURE, _NOT_STRUCTURE)
    text = text.replace(b'""', b"")  # most strings hold no bracket; dropping a pair keeps the parity
    return b"".join(text.split(b'"')[::2]) if b'"' in text else text


def too_deep(brackets: bytes, limit: int) -> bool:
    """Whether `brackets` (only `[` and `]`) nest more than `limit` deep."""
    if brackets.count(b"[") <= limit:
        return False
    # the running depth, summed in C over +1/-1 signed bytes (small ints: no allocation)
    return max(itertools.accumulate(array.array("b", brackets.translate(_SIGNED)))) > limit
