"""What a GNU sed script launches: the `e command` command runs `command`, a bare `e` runs the pattern
space (the input), and the `e` flag of `s` runs the pattern space after the substitution.

The script is parsed as GNU sed compiles it: commands separated by newlines or `;`, addresses
(`N`, `$`, `/re/`, `\\cREc`, `first~step`, `addr,+N`, `0,/re/`) with `!`, `{}` blocks, `s` and `y`
with any delimiter, `a`/`i`/`c` text (data), `r`/`R`/`w`/`W` file names and `e` commands to the end
of the line, labels and branches. Nothing else launches. A script GNU sed would reject runs nothing;
since this parser may be the one that is wrong, such a script is one unknown launch when it holds
anything that could be an `e` command or flag.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._launch import RUNTIME, Launch

_SIMPLE = frozenset("=dDgGhHnNpPxzF")
_NUMBERED = frozenset("lLqQ")
_FLAGS = frozenset("gpiImMe0123456789")
_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_RADIX = {"d": (10, 3, "0123456789"), "o": (8, 3, "01234567"), "x": (16, 2, "0123456789abcdefABCDEF")}
_MAYBE_E = re.compile(r"(?<![A-Za-z])[gpiImMw0-9]*e[gpiImMw0-9]*(?![A-Za-z])")
"""An `e` that stands alone, or among `s` flags: what could be an `e` command or flag in a script
this parser could not read."""
_S_E_UNKNOWN = "sed's e flag runs the pattern space after the substitution, which depends on the input"


class _Error(Exception):
    """The script does not parse (GNU sed would refuse it)."""


class _Script:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.found: list[Launch] = []
        self._counted = (0, 1)

    @property
    def line(self) -> int:
        """The line at the cursor, counted on from the last time (the cursor only moves on)."""
        position, line = self._counted if self._counted[0] <= self.at else (0, 1)
        self._counted = (self.at, line + self.text.count("\n", position, self.at))
        return self._counted[1]

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        self.at += 1 if char else 0
        return char

    def blanks(self) -> None:
        while self.peek() in (" ", "\t"):
            self.at += 1

    def rest_of_line(self) -> str:
        end = self.text.find("\n", self.at)
        end = len(self.text) if end < 0 else end
        rest, self.at = self.text[self.at : end], end
        return rest

    def digits(self) -> str:
        start = self.at
        while self.peek().isdigit():
            self.at += 1
        return self.text[start : self.at]

    def end_of_command(self) -> None:
        self.blanks()
        char = self.peek()
        if char in (";", "\n"):
            self.at += 1
        elif char not in ("", "}", "#"):
            raise _Error(f"extra characters after a command near line {self.line}")

    def parse(self) -> None:
        depth = 0
        while True:
            while self.peek() in (" ", "\t", "\n", ";"):
                self.at += 1
            if not self.peek():
                break
            if self.peek() == "#":
                self.rest_of_line()
                continue
            addressed = self.addresses()
            self.blanks()
            while self.peek() == "!":
                self.at += 1
                self.blanks()
            line, command = self.line, self.take()
            if command == "{":
                depth += 1
            elif command == "}":
                depth -= 1
                if depth < 0 or addressed:
                    raise _Error(f"unexpected }} near line {line}")
                self.end_of_command()
            else:
                self.command(command, line, addressed)
        if depth:
            raise _Error("unmatched {")

    def command(self, command: str, line: int, addressed: bool) -> None:
        if command in _SIMPLE:
            self.end_of_command()
        elif command in _NUMBERED:
            self.blanks()
            self.digits()
            self.end_of_command()
        elif command in (":", "b", "t", "T", "v"):
            self.blanks()
            label = re.match(r"[^\s;]*", self.text[self.at :])
            self.at += label.end() if label else 0
            if command == ":" and (addressed or not label or not label.group()):
                raise _Error(f"a bad label near line {line}")
            self.end_of_command()
        elif command in ("a", "i", "c"):
            self.text_argument(line)
        elif command in ("r", "R", "w", "W"):
            self.blanks()
            if not self.rest_of_line():
                raise _Error(f"missing file name near line {line}")
        elif command == "e":
            self.blanks()
            shell = self.rest_of_line()
            if shell:
                self.found.append(Launch(api="e command", shell=shell, line=line))
            else:
                why = "sed's e command runs the pattern space, which is the input"
                self.found.append(Launch(api="e", unknown=why, line=line))
        elif command == "s":
            self.substitute(line)
        elif command == "y":
            delimiter = self.delimiter(line)
            self.part(delimiter, regex=True)
            self.part(delimiter, regex=True)
            self.end_of_command()
        else:
            raise _Error(f"unknown command {command!r} near line {line}")

    def addresses(self) -> bool:
        if not self.address():
            return False
        self.blanks()
        if self.peek() == ",":
            self.at += 1
            self.blanks()
            if self.peek() in ("+", "~"):
                self.at += 1
                if not self.digits():
                    raise _Error(f"a bad address near line {self.line}")
            elif not self.address():
                raise _Error(f"a missing address near line {self.line}")
        return True

    def address(self) -> bool:
        char = self.peek()
        if char.isdigit():
            self.digits()
            if self.peek() == "~":
                self.at += 1
                self.digits()
            return True
        if char == "$":
            self.at += 1
            return True
        if char not in ("/", "\\"):
            return False
        self.at += 1
        self.part(self.take() if char == "\\" else "/", regex=True)
        while self.peek() in ("I", "M"):
            self.at += 1
        return True

    def delimiter(self, line: int) -> str:
        delimiter = self.take()
        if delimiter in ("", "\n", "\\"):
            raise _Error(f"a bad delimiter near line {line}")
        return delimiter

    def part(self, delimiter: str, *, regex: bool) -> str:
        """Text up to the unescaped `delimiter`, as GNU sed's match_slash reads it: an escaped
        delimiter stands for itself, backslash-newline for a newline; other escapes stay."""
        out: list[str] = []
        while True:
            char = self.take()
            if char in ("", "\n"):
                raise _Error(f"an unterminated command near line {self.line}")
            if char == delimiter:
                return "".join(out)
            if char == "\\":
                escaped = self.take()
                if not escaped:
                    raise _Error("an unterminated command")
                keep = escaped != "\n" and (escaped != delimiter or (not regex and escaped == "&"))
                out.append("\\" + escaped if keep else escaped)
            else:
                out.append(char)

    def substitute(self, line: int) -> None:
        delimiter = self.delimiter(line)
        self.part(delimiter, regex=True)
        replacement = self.part(delimiter, regex=False)
        flags = ""
        while self.peek() and self.peek() in _FLAGS:
            flags += self.take()
        writes = self.peek() == "w"
        if writes:
            self.at += 1
            self.blanks()
            if not self.rest_of_line():
                raise _Error(f"missing file name near line {line}")
        else:
            self.end_of_command()
        if "e" in flags:
            shell = "".join(RUNTIME if part is None else part for part in _replacement(replacement))
            self.found.append(Launch(api="s///e", shell=shell, unknown=_S_E_UNKNOWN, line=line))

    def text_argument(self, line: int) -> None:
        """The text of `a`, `i`, `c`: `a\\` and lines, or GNU's one-liner `a text`, continued by a
        backslash at the end of a line. It is data."""
        self.blanks()
        if self.peek() == "\\":
            self.at += 1
            if self.peek() == "\n":
                self.at += 1
        elif self.peek() in ("", "\n"):
            raise _Error(f"expected \\ after a, c or i near line {line}")
        while True:
            text = self.rest_of_line()
            trailing = len(text) - len(text.rstrip("\\"))
            if trailing % 2 == 0 or not self.peek():
                return
            self.at += 1


def _replacement(text: str) -> list[str | None]:
    """A replacement as the text it inserts: `&` and `\\0`..`\\9` are parts of the input (None);
    `\\n`, `\\t`, `\\xHH`, `\\oNNN`, `\\dNNN`, `\\cX` are decoded, `\\L`, `\\U`, `\\l`, `\\u`, `\\E`
    change the case of what follows."""
    out: list[str | None] = []
    case, once = "", ""
    at = 0
    while at < len(text):
        char, at = text[at], at + 1
        if char == "&":
            out.append(None)
            once = ""
            continue
        if char == "\\" and at < len(text):
            char, at = text[at], at + 1
            if char.isdigit():
                out.append(None)
                once = ""
                continue
            if char in "LUE":
                case, once = ("" if char == "E" else char), ""
                continue
            if char in "lu":
                once = char
                continue
            char, at = _escape(char, text, at)
        if once:
            char, once = (char.upper() if once == "u" else char.lower()), ""
        elif case:
            char = char.upper() if case == "U" else char.lower()
        out.append(char)
    return out


def _escape(char: str, text: str, at: int) -> tuple[str, int]:
    """The character `\\<char>` stands for in a replacement, and where the text goes on."""
    if char in _ESCAPES:
        return _ESCAPES[char], at
    if char in _RADIX:
        base, width, digits = _RADIX[char]
        end = at
        while end < len(text) and end - at < width and text[end] in digits:
            end += 1
        if end > at:
            return chr(int(text[at:end], base) & 0xFF), end
        return char, at
    if char == "c" and at < len(text):
        return chr(ord(text[at].upper()) ^ 0x40), at + 1
    return char, at


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    script = _Script(text)
    try:
        script.parse()
    except _Error as error:
        if _MAYBE_E.search(text):
            why = f"the sed script does not parse: {error}"
            return (Launch(api="sed", unknown=why, line=script.line),)
        return ()
    return tuple(script.found)
