"""The pieces of JavaScript regex syntax `_jsregex` builds on: flags, character sets as code point ranges
(and how a set is written for the `regex` module and for hyperscan), and small scanners."""

from __future__ import annotations

import re

MAX_CODE = 0x10FFFF
SURROGATES = (0xD800, 0xDFFF)
JS_FLAGS = "dgimsuyv"
_KEPT_FLAGS = "imsu"
_REFUSED_FLAGS = {
    "y": "sticky ('y') anchors every test at the start of the buffer, which a stream rule cannot mean",
    "v": "the 'v' flag's set notation has no translation",
}
_LEADING_FLAGS = re.compile(r"^\(\?([a-z]+)\)")
_SPECIAL_IN = frozenset("\\]^-[")

Ranges = list[tuple[int, int]]

DIGIT: Ranges = [(0x30, 0x39)]
WORD: Ranges = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
SPACE: Ranges = [
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
]
LINE_TERMINATORS: Ranges = [(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]
"""JavaScript's `\\d`, `\\w`, `\\s` (its whitespace and line terminators) and the terminators `.` stops at."""


def render_class(ranges: Ranges, *, negated: bool, raw: list[str]) -> tuple[str, str]:
    """A class of `ranges` (plus `raw` items such as `\\p{L}`) as (`regex` text, hyperscan text)."""
    merged = merge(ranges)
    if not merged and not raw:
        # JavaScript's `[]` matches nothing and `[^]` anything.
        empty = r"[\s\S]" if negated else r"[^\s\S]"
        return empty, empty
    head = "[^" if negated else "["
    regex = [head, *(_class_range(lo, hi, hs=False) for lo, hi in merged), *raw, "]"]
    hs = [head, *(_class_range(lo, hi, hs=True) for lo, hi in merged), *raw, "]"]
    return "".join(regex), "".join(hs)


def merge(ranges: Ranges) -> Ranges:
    """Sorted, merged ranges without the surrogate block (text is UTF-8: it holds none)."""
    out: Ranges = []
    for lo, hi in sorted(ranges):
        for part in _drop_surrogates(lo, hi):
            if out and part[0] <= out[-1][1] + 1:
                out[-1] = (out[-1][0], max(out[-1][1], part[1]))
            else:
                out.append(part)
    return out


def _drop_surrogates(lo: int, hi: int) -> Ranges:
    s_lo, s_hi = SURROGATES
    parts = [(lo, min(hi, s_lo - 1)), (max(lo, s_hi + 1), hi)]
    return [(a, b) for a, b in parts if a <= b]


def complement(ranges: Ranges) -> Ranges:
    out: Ranges = []
    start = 0
    for lo, hi in merge(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= MAX_CODE:
        out.append((start, MAX_CODE))
    return out


def escaped(code: int) -> tuple[str, str]:
    """A code point as (`regex` text, hyperscan text): printable ASCII as itself, others escaped."""
    if 0x20 <= code < 0x7F:
        return chr(code), chr(code)
    if code <= 0xFF:
        return f"\\x{code:02x}", f"\\x{code:02x}"
    hs = f"\\x{{{code:x}}}"
    return (f"\\u{code:04x}", hs) if code <= 0xFFFF else (f"\\U{code:08x}", hs)


def _class_char(code: int, *, hs: bool) -> str:
    if chr(code) in _SPECIAL_IN:
        return "\\" + chr(code)
    regex, hyperscan = escaped(code)
    return hyperscan if hs else regex


def _class_range(lo: int, hi: int, *, hs: bool) -> str:
    if lo == hi:
        return _class_char(lo, hs=hs)
    return f"{_class_char(lo, hs=hs)}-{_class_char(hi, hs=hs)}"


def split_js_flags(written: str) -> tuple[str, str]:
    """Split a leading inline flag group off as the JavaScript agents do: lowercase `i`, `m`, `s` only.
    Any other group (`(?x)`, `(?I)`) stays in the pattern, where the translation refuses it."""
    match = _LEADING_FLAGS.match(written)
    if match is None or set(match.group(1)) - set("ims"):
        return written, ""
    return written[match.end() :], "".join(sorted(set(match.group(1))))


def parse_js_flags(value: str) -> str:
    """Read a `flags` value as JavaScript flags. `g` and `d` change nothing about whether a pattern
    matches and are dropped; `y` and `v` raise ValueError (see `_REFUSED_FLAGS`)."""
    for letter in value:
        if letter in _REFUSED_FLAGS:
            raise ValueError(_REFUSED_FLAGS[letter])
        if letter not in JS_FLAGS:
            raise ValueError(f"unknown JavaScript regex flag {letter!r}: use i, m, s or u")
    return "".join(sorted({c for c in value if c in _KEPT_FLAGS}))


def count_groups(pattern: str) -> tuple[int, list[str]]:
    """Capturing groups in `pattern` and the names of the named ones, in order."""
    count, names, i, in_class = 0, [], 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            if not pattern.startswith("(?", i):
                count += 1
            elif pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
                count += 1
                end = pattern.find(">", i)
                names.append(pattern[i + 3 : end] if end > 0 else "")
        i += 1
    return count, names


def digits(text: str, start: int) -> str:
    end = start
    while end < len(text) and text[end].isdigit():
        end += 1
    return text[start:end]


def hex4(text: str, start: int) -> int | None:
    digits = text[start : start + 4]
    if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
        return int(digits, 16)
    return None
