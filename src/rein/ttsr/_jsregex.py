"""Read a JavaScript regular expression and write one the engines run with the same meaning.

Rules found in a JavaScript agent's folder were written for `new RegExp(pattern, flags)`. The `regex`
module and hyperscan read most of that syntax alike but mean something else by parts of it, so the
pattern is tokenized (escapes, classes, groups, quantifiers) and rewritten:

- `$` without `m`: only the very end of the text (`\\z`), never before a final newline.
- `\\d`, `\\w`, `\\s` and their negations: JavaScript's sets (ASCII digits and word characters, its own
  whitespace list), written out as classes; `\\b`/`\\B` on the ASCII `\\w` (`(?a:\\b)` for `regex`,
  plain `\\b` for hyperscan, which reads it as ASCII already).
- `.` without `s`: anything but JavaScript's line terminators (`\\n`, `\\r`, U+2028, U+2029).
- `(?<name>...)`, `\\k<name>`, `\\1`: groups renamed to safe names, references kept.
- `\\uXXXX` (and surrogate pairs), `\\u{...}` with `u`, `\\xHH`, `\\cX`, `\\0`, legacy octal and identity
  escapes without `u`; `{`, `}` and `]` as literals where JavaScript reads them so.

What has no faithful translation raises `JsRegexError` naming the construct. Known gaps, kept small:
without `u`, JavaScript counts an astral character as two code units (`^.$` does not match one emoji);
`^`/`$` with `m` stop at `\\n` only (JavaScript also at `\\r`, U+2028, U+2029); a backreference to a group
that did not take part matches nothing (JavaScript: the empty string).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rein.ttsr._jssets import (
    DIGIT,
    LINE_TERMINATORS,
    MAX_CODE,
    SPACE,
    SURROGATES,
    WORD,
    Ranges,
    complement,
    count_groups,
    digits,
    escaped,
    hex4,
    render_class,
)

_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_SPECIAL_OUT = frozenset("\\^$.|?*+()[]{}")
_QUANTIFIER = re.compile(r"\{(\d+)(?:(,)(\d*))?\}")


class JsRegexError(ValueError):
    """A JavaScript pattern that cannot be read or has no faithful translation; says which construct."""


@dataclass(frozen=True, slots=True)
class Translation:
    """One JavaScript pattern written for each engine. They differ only where the syntax must."""

    regex: str
    """For the `regex` module (compiled with the rule's `i`/`m`/`s` flags)."""
    hyperscan: str
    """For hyperscan (UTF-8, no UCP)."""


def translate(pattern: str, flags: str, *, multiline: bool = False) -> Translation:
    """Translate `pattern` read with JavaScript `flags`. `multiline` forces `^`/`$` to line edges (a
    `line`-extent rule, where each line is tested alone). Raises `JsRegexError`."""
    return _Translator(pattern, flags, multiline=multiline).run()


class _Translator:
    def __init__(self, pattern: str, flags: str, *, multiline: bool) -> None:
        self.src = pattern
        self.unicode = "u" in flags
        self.dotall = "s" in flags
        self.multiline = multiline or "m" in flags
        self.i = 0
        self.regex: list[str] = []
        self.hs: list[str] = []
        self.groups, self.names = count_groups(pattern)
        self.named = 0

    def emit(self, text: str, hs: str | None = None) -> None:
        self.regex.append(text)
        self.hs.append(text if hs is None else hs)

    def fail(self, what: str) -> JsRegexError:
        return JsRegexError(f"{what} (at position {self.i})")

    def run(self) -> Translation:
        src, quantifiable = self.src, False
        while self.i < len(src):
            char = src[self.i]
            if char in "*+?" or (char == "{" and _QUANTIFIER.match(src, self.i)):
                if not quantifiable:
                    raise self.fail(f"nothing to repeat before {char!r}")
                self.quantifier()
                quantifiable = False
                continue
            quantifiable = True
            if char == "\\":
                quantifiable = self.escape()
            elif char == "[":
                self.char_class()
            elif char == "(":
                self.group()
                quantifiable = False
            elif char == ")":
                self.emit(")")
                self.i += 1
            elif char == "|":
                self.emit("|")
                self.i += 1
                quantifiable = False
            elif char == ".":
                if self.dotall:
                    self.emit(".")
                else:
                    self.emit_class(LINE_TERMINATORS, negated=True)
                self.i += 1
            elif char in "^$":
                self.emit(char if char == "^" or self.multiline else r"\z")
                self.i += 1
                quantifiable = False
            elif char in "{}]":
                if self.unicode:
                    raise self.fail(f"a lone {char!r} (escape it: JavaScript's 'u' mode refuses it)")
                self.emit("\\" + char)
                self.i += 1
            else:
                self.literal(ord(char))
                self.i += 1
        return Translation(regex="".join(self.regex), hyperscan="".join(self.hs))

    def quantifier(self) -> None:
        src = self.src
        if src[self.i] == "{":
            match = _QUANTIFIER.match(src, self.i)
            assert match is not None
            low, _comma, high = match.groups()
            if high and int(high) < int(low):
                raise self.fail(f"the numbers in {match.group(0)!r} are out of order")
            self.emit(match.group(0))
            self.i = match.end()
        else:
            self.emit(src[self.i])
            self.i += 1
        if self.i < len(src) and src[self.i] == "?":
            self.emit("?")
            self.i += 1

    def group(self) -> None:
        src, i = self.src, self.i
        for head in ("(?:", "(?=", "(?!", "(?<=", "(?<!"):
            if src.startswith(head, i):
                self.emit(head)
                self.i += len(head)
                return
        if src.startswith("(?<", i):
            end = src.find(">", i)
            if end < 0:
                raise self.fail("a named group without its closing '>'")
            self.named += 1
            self.emit(f"(?P<js{self.named}>")
            self.i = end + 1
            return
        if src.startswith("(?", i):
            opened = re.match(r"\(\?[^:)]{0,8}[:)]?", src[i:])
            shown = opened.group(0) if opened else "(?"
            raise self.fail(f"the group {shown!r} is not JavaScript syntax")
        self.emit("(")
        self.i += 1

    def escape(self) -> bool:
        """Translate the escape at `self.i`; returns whether a quantifier may follow it."""
        src = self.src
        if self.i + 1 >= len(src):
            raise self.fail("a '\\' at the end of the pattern")
        char = src[self.i + 1]
        self.i += 2
        if char in "dDwWsS":
            ranges = {"d": DIGIT, "w": WORD, "s": SPACE}[char.lower()]
            self.emit_class(ranges, negated=char.isupper())
            return True
        if char in "bB":
            self.emit(f"(?a:\\{char})", f"\\{char}")
            return False
        if char == "k" and (self.unicode or self.names):
            return self.named_reference()
        if char.isdigit() and char != "0":
            number = digits(src, self.i - 1)
            if int(number) <= self.groups:
                self.emit(f"(?:\\{number})")
                self.i += len(number) - 1
                return True
        if char in "pP" and self.unicode:
            end = src.find("}", self.i)
            if not src.startswith("{", self.i) or end < 0:
                raise self.fail(f"'\\{char}' needs a property in braces")
            self.emit(src[self.i - 2 : end + 1])
            self.i = end + 1
            return True
        code = self.char_escape(char, in_class=False)
        if code is None:
            self.emit("\\\\")
            self.i -= 1  # `\c` not followed by a letter: a backslash, then the `c` as itself
            return True
        self.literal(code)
        return True

    def named_reference(self) -> bool:
        src = self.src
        end = src.find(">", self.i)
        if not src.startswith("<", self.i) or end < 0:
            raise self.fail("'\\k' needs a group name in '<...>'")
        name = src[self.i + 1 : end]
        if name not in self.names:
            raise self.fail(f"'\\k<{name}>' names no group")
        self.emit(f"(?P=js{self.names.index(name) + 1})")
        self.i = end + 1
        return True

    def char_escape(self, char: str, *, in_class: bool) -> int | None:
        """The code point of a one-character escape whose backslash and `char` were read (`self.i` is
        after `char`). None: `\\c` not followed by a control letter (kept as a backslash)."""
        src = self.src
        simple = {"t": 9, "n": 10, "v": 11, "f": 12, "r": 13}
        if char in simple:
            return simple[char]
        if char == "b" and in_class:
            return 8
        if char == "c":
            nxt = src[self.i : self.i + 1]
            if nxt.isascii() and (nxt.isalpha() or (in_class and not self.unicode and nxt in "0123456789_")):
                self.i += 1
                return ord(nxt) % 32
            if self.unicode:
                raise self.fail("'\\c' must be followed by a letter")
            return None
        if char == "x":
            hexa = src[self.i : self.i + 2]
            if len(hexa) == 2 and all(c in "0123456789abcdefABCDEF" for c in hexa):
                self.i += 2
                return int(hexa, 16)
            return self.identity(char)
        if char == "u":
            return self.unicode_escape()
        if char == "0" and not src[self.i : self.i + 1].isdigit():
            return 0
        if char.isdigit():
            if self.unicode:
                raise self.fail(f"'\\{char}' is not a group reference, and 'u' mode refuses octal escapes")
            if char in "89":
                return ord(char)
            octal = re.match(r"[0-7]{0,2}", src[self.i :])
            digits = char + (octal.group(0) if octal else "")
            if int(digits, 8) > 0o377:
                digits = digits[:2]
            self.i += len(digits) - 1
            return int(digits, 8)
        if char == "-" and in_class:
            return ord("-")
        return self.identity(char)

    def identity(self, char: str) -> int:
        if self.unicode and char not in _SYNTAX:
            raise self.fail(f"'\\{char}' is not a valid escape in 'u' mode")
        return ord(char)

    def unicode_escape(self) -> int:
        src = self.src
        if self.unicode and src.startswith("{", self.i):
            end = src.find("}", self.i)
            digits = src[self.i + 1 : end] if end > 0 else ""
            if (
                not digits
                or any(c not in "0123456789abcdefABCDEF" for c in digits)
                or int(digits, 16) > MAX_CODE
            ):
                raise self.fail("'\\u{...}' needs a code point up to 10FFFF in hex")
            self.i = end + 1
            return self.not_surrogate(int(digits, 16))
        unit = hex4(src, self.i)
        if unit is None:
            return self.identity("u")
        self.i += 4
        if 0xD800 <= unit <= 0xDBFF and src.startswith("\\u", self.i):
            low = hex4(src, self.i + 2)
            if low is not None and 0xDC00 <= low <= 0xDFFF:
                self.i += 6
                return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        return self.not_surrogate(unit)

    def not_surrogate(self, code: int) -> int:
        if SURROGATES[0] <= code <= SURROGATES[1]:
            raise self.fail(f"a lone surrogate (U+{code:04X}) never matches UTF-8 text")
        return code

    def literal(self, code: int) -> None:
        char = chr(code)
        if char in _SPECIAL_OUT:
            self.emit("\\" + char)
        else:
            self.emit(*escaped(code))

    def char_class(self) -> None:
        src = self.src
        self.i += 1
        negated = src.startswith("^", self.i)
        if negated:
            self.i += 1
        ranges: Ranges = []
        raw: list[str] = []
        while True:
            if self.i >= len(src):
                raise self.fail("a '[' without its closing ']'")
            if src[self.i] == "]":
                self.i += 1
                break
            first = self.class_atom(ranges, raw)
            if first is not None and src.startswith("-", self.i) and not src.startswith("-]", self.i):
                self.i += 1
                second = self.class_atom(ranges, raw)
                if second is None:
                    if self.unicode:
                        raise self.fail("a class range ends in a set such as '\\d'")
                    ranges += [(first, first), (45, 45)]
                    continue
                if second < first:
                    raise self.fail(f"the class range {chr(first)!r}-{chr(second)!r} is out of order")
                ranges.append((first, second))
            elif first is not None:
                ranges.append((first, first))
        self.emit_class(ranges, negated=negated, raw=raw)

    def class_atom(self, ranges: Ranges, raw: list[str]) -> int | None:
        """Read one class atom: a code point (returned) or a set (added to `ranges`/`raw`, None)."""
        src = self.src
        char = src[self.i]
        if char != "\\":
            self.i += 1
            if SURROGATES[0] <= ord(char) <= SURROGATES[1]:
                raise self.fail("a lone surrogate never matches UTF-8 text")
            return ord(char)
        if self.i + 1 >= len(src):
            raise self.fail("a '\\' at the end of the pattern")
        escaped = src[self.i + 1]
        self.i += 2
        if escaped in "dDwWsS":
            base = {"d": DIGIT, "w": WORD, "s": SPACE}[escaped.lower()]
            ranges += complement(base) if escaped.isupper() else base
            return None
        if escaped in "pP" and self.unicode:
            end = src.find("}", self.i)
            if not src.startswith("{", self.i) or end < 0:
                raise self.fail(f"'\\{escaped}' needs a property in braces")
            raw.append(src[self.i - 2 : end + 1])
            self.i = end + 1
            return None
        if escaped == "k" and self.unicode:
            raise self.fail("'\\k' inside a class")
        code = self.char_escape(escaped, in_class=True)
        if code is None:
            self.i -= 1
            return ord("\\")
        return code

    def emit_class(self, ranges: Ranges, *, negated: bool, raw: list[str] | None = None) -> None:
        self.emit(*render_class(ranges, negated=negated, raw=raw or []))
