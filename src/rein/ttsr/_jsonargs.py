"""Decode tool-call arguments as they stream in: JSON fragments in, the string values out, as they will
be written (real newlines and quotes, not `\\n` and `\\"`).

Rules see the concatenated string values of the arguments (keys and numbers are skipped), one `\\n`
between two values. A top-level file-path argument (`path`, `file_path`, `filePath`, ...) is reported as
soon as its string closes, so glob gates work before the content streams. Escapes and `\\uXXXX` pairs may
be split across fragments. Input that is not a JSON object or array (a free-form tool input) passes
through unchanged; JSON that turns invalid midway passes through unchanged from that point. Never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from rein.ttsr._rule import normalize_key

PATH_KEYS: Final = frozenset({"path", "filepath", "file", "filename", "notebookpath", "targetfile"})
"""Top-level argument keys read as file paths, compared lower-cased without `_` and `-`."""

_RUN = re.compile(r'[^"\\]+')
_WHITESPACE = frozenset(" \t\r\n")
_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERAL_END = frozenset(",}] \t\r\n")

# Parser states.
_DETECT, _RAW, _VALUE, _VALUE_OR_END, _KEY, _KEY_OR_END, _COLON, _AFTER, _STRING, _LITERAL, _DONE = range(11)


@dataclass(frozen=True, slots=True)
class Span:
    """Where one string value starts in the decoded text, and its top-level argument key."""

    offset: int
    key: str


class JsonArgsDecoder:
    """One tool call's argument decoder. Feed fragments in order; read `spans` and `paths` at any time."""

    __slots__ = (
        "_escape",
        "_high",
        "_in_key",
        "_key_parts",
        "_path_parts",
        "_stack",
        "_state",
        "_top_is_path",
        "_top_key",
        "_values",
        "length",
        "paths",
        "spans",
    )

    def __init__(self) -> None:
        self._state = _DETECT
        self._stack: list[str] = []
        self._in_key = False
        self._escape: str | None = None
        self._high: int | None = None
        self._key_parts: list[str] = []
        self._path_parts: list[str] | None = None
        self._top_key = ""
        self._top_is_path = False
        """`_top_key` is a file-path key (normalized once, when the key closes)."""
        self._values = 0
        self.length = 0
        """Characters of decoded text produced so far."""
        self.spans: list[Span] = []
        self.paths: list[str] = []

    def feed(self, fragment: str) -> tuple[str, list[str]]:
        """Decode the next fragment. Returns the new decoded text and any file paths completed in it."""
        out: list[str] = []
        paths_before = len(self.paths)
        i, n = 0, len(fragment)
        while i < n:
            state = self._state
            if state == _STRING:
                if self._escape is None and not self._in_key and self._high is None:
                    run = _RUN.match(fragment, i)
                    if run is not None:  # the common case: plain characters of a value, copied in bulk
                        text = run.group()
                        out.append(text)
                        self.length += len(text)
                        if self._path_parts is not None:
                            self._path_parts.append(text)
                        i = run.end()
                        continue
                i = self._string(fragment, i, out)
            elif state == _RAW:
                self._emit(fragment[i:], out)
                i = n
            elif state == _LITERAL:
                while i < n and fragment[i] not in _LITERAL_END:
                    i += 1
                if i < n:
                    self._state = _AFTER
            elif fragment[i] in _WHITESPACE:
                i += 1
            else:
                self._structure(fragment[i], out)
                i += 1 if self._state != _RAW else 0
        return "".join(out), self.paths[paths_before:] if len(self.paths) > paths_before else []

    def _structure(self, char: str, out: list[str]) -> None:
        state = self._state
        if state == _DETECT:
            if char in "{[":
                self._open(char)
            else:
                self._state = _RAW
                self.spans.append(Span(0, ""))
        elif state in (_VALUE, _VALUE_OR_END):
            if char == '"':
                self._start_string(key=False, out=out)
            elif char in "{[":
                self._open(char)
            elif char == "]" and state == _VALUE_OR_END and self._stack[-1:] == ["["]:
                self._close()
            elif char in "-0123456789tfn":
                self._state = _LITERAL
            else:
                self._broken()
        elif state in (_KEY, _KEY_OR_END):
            if char == '"':
                self._start_string(key=True, out=out)
            elif char == "}" and self._stack[-1:] == ["{"]:
                self._close()
            else:
                self._broken()
        elif state == _COLON:
            self._state = _VALUE if char == ":" else self._broken()
        elif state == _AFTER:
            if char == ",":
                self._state = _KEY if self._stack[-1:] == ["{"] else _VALUE
            elif char in "}]" and self._stack and self._stack[-1] == ("{" if char == "}" else "["):
                self._close()
            else:
                self._broken()
        # _DONE: trailing text after the arguments is ignored.

    def _open(self, char: str) -> None:
        self._stack.append(char)
        self._state = _KEY_OR_END if char == "{" else _VALUE_OR_END

    def _close(self) -> None:
        self._stack.pop()
        self._state = _AFTER if self._stack else _DONE

    def _broken(self) -> int:
        """Invalid JSON: pass the rest through as it is."""
        self._state = _RAW
        return _RAW

    def _start_string(self, *, key: bool, out: list[str]) -> None:
        self._state = _STRING
        self._in_key = key
        if key:
            self._key_parts = []
            return
        if self._values:
            out.append("\n")
            self.length += 1
        self._values += 1
        top_level_value = len(self._stack) == 1 and self._stack[0] == "{"
        key_name = self._top_key if self._stack and self._stack[0] == "{" else ""
        self.spans.append(Span(self.length, key_name))
        self._path_parts = [] if top_level_value and self._top_is_path else None

    def _string(self, fragment: str, i: int, out: list[str]) -> int:
        if self._escape is not None:
            return self._continue_escape(fragment, i, out)
        run = _RUN.match(fragment, i)
        if run is not None:
            self._emit(run.group(), out)
            return run.end()
        if fragment[i] == '"':
            self._end_string(out)
        else:
            self._escape = ""
        return i + 1

    def _continue_escape(self, fragment: str, i: int, out: list[str]) -> int:
        escape = self._escape or ""
        if not escape:
            char = fragment[i]
            if char == "u":
                self._escape = "u"
                return i + 1
            self._escape = None
            self._emit(_ESCAPES.get(char, char), out)
            return i + 1
        need = 5 - len(escape)
        piece = fragment[i : i + need]
        escape += piece
        if len(escape) < 5:
            self._escape = escape
            return i + len(piece)
        self._escape = None
        try:
            code = int(escape[1:], 16)
        except ValueError:
            self._emit("\ufffd", out)
            return i + len(piece)
        if 0xD800 <= code <= 0xDBFF:
            self._flush_high(out)
            self._high = code
        elif 0xDC00 <= code <= 0xDFFF and self._high is not None:
            pair = 0x10000 + ((self._high - 0xD800) << 10) + (code - 0xDC00)
            self._high = None
            self._emit(chr(pair), out)
        else:
            self._emit("\ufffd" if 0xDC00 <= code <= 0xDFFF else chr(code), out)
        return i + len(piece)

    def _flush_high(self, out: list[str]) -> None:
        if self._high is not None:
            self._high = None
            self._emit("\ufffd", out)

    def _emit(self, text: str, out: list[str]) -> None:
        if self._high is not None:
            self._flush_high(out)
        if self._state == _STRING and self._in_key:
            self._key_parts.append(text)
            return
        out.append(text)
        self.length += len(text)
        if self._path_parts is not None:
            self._path_parts.append(text)

    def _end_string(self, out: list[str]) -> None:
        self._flush_high(out)
        if self._in_key:
            if len(self._stack) == 1:
                self._top_key = "".join(self._key_parts)
                self._top_is_path = normalize_key(self._top_key) in PATH_KEYS
            self._state = _COLON
            return
        if self._path_parts is not None:
            path = "".join(self._path_parts).strip()
            if path:
                self.paths.append(path)
            self._path_parts = None
        self._state = _AFTER
