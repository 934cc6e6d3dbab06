"""Heredoc lines tree-sitter-bash misreads, rewritten in an equivalent shape it reads.

tree-sitter-bash reads the rest of a heredoc's line in a few shapes only: `cmd <<EOF`, `cmd 2>&1 <<EOF
| next`, `cmd <<EOF > f && next`. Bash accepts any: `python3 - <<EOF 2>&1 | tail -5`, `cmd <<EOF >
f; next`, `cmd <<EOF &`, words after the marker (`bash <<EOF x.sh`, which tree-sitter does not give
the command), two heredocs on one line or on one command. For such a source every heredoc line is
rewritten, keeping what bash does:

- the heredoc moves to the end of its command's words and redirects (`cmd 2>&1 <<EOF | tail`), unless
  a later `<` takes the command's stdin (then the rewrite gives up);
- on one command, only the heredoc that gives stdin stays one; the others become a `N<"..."` redirect
  of the same text, so what their bodies expand still runs (a quoted body expands nothing and goes);
- each heredoc's body follows its own line: a `;` after the command becomes that line break, a command
  that ends in `&` (or is followed by another heredoc's command) is put in `{ ...; }`, which bash runs
  the same way.

The walker reads the rewritten source when it parses; when it does not, the original errors stand.
The scan follows bash's quoting far enough to find the `<<` operators bash sees (not in quotes, `$((
))`, `${ }` or comments) and where their bodies start: after the next newline outside quotes, one body
after another, each up to its marker line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rein.steering.bash._heredoc_lines import Doc, Edit, Frame, GiveUp, rewrite

if TYPE_CHECKING:
    from tree_sitter import Node

_BLANK = b" \t"
_ENDS_MARKER = frozenset(b" \t\n;&|<>()")
_STARTS_WORD = frozenset(b" \t\n;&|<>()`")
_LITERALS = frozenset({
    "word", "string", "raw_string", "concatenation", "simple_expansion", "expansion", "number",
    "command_substitution", "ansi_c_string", "translated_string", "process_substitution",
    "arithmetic_expansion",
})  # fmt: skip
"""Nodes tree-sitter puts in a heredoc redirect for words after its marker: arguments it loses."""
_CONTROL = (b";;&", b";;", b";&", b"||", b"|&", b"&&", b"|", b"&", b";")
COMMANDS, QUOTES, PARAMETER, ARITHMETIC = range(4)


def misread(root: Node) -> bool:
    """Whether tree-sitter failed on the source, or gave a heredoc words it takes from the command."""
    if root.has_error:
        return True
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type != "heredoc_redirect":
            stack.extend(node.children)
            continue
        after = False  # `<<EOF && next`: what follows `&&` is a statement, no argument
        for child in node.children:
            after = after or child.type in ("&&", "||", "pipeline")
            if not after and child.type in _LITERALS:
                return True
            if after:
                stack.append(child)
    return False


def lift(src: bytes) -> bytes | None:
    """`src` with its heredoc lines in shapes tree-sitter reads; None when it has none, or one rein
    does not rewrite (no line ends its body, a heredoc inside parentheses on one line, ...)."""
    try:
        edits = _Scan(src).run()
    except GiveUp:
        return None
    if not edits:
        return None
    out = bytearray()
    position = 0
    for start, _, end, text in sorted(edits):
        out += src[position:start] + text
        position = end
    return bytes(out + src[position:])


class _Scan:
    def __init__(self, src: bytes) -> None:
        self.src = src
        self.stack = [Frame(COMMANDS)]
        self.pending: list[Doc] = []
        self.edits: list[Edit] = []

    def run(self) -> list[Edit]:
        src, index = self.src, 0
        while index < len(src):
            frame = self.stack[-1]
            char = src[index]
            if char == 92:  # a backslash escapes the next byte, a newline too
                index += 2
            elif frame.mode == COMMANDS:
                index = self._commands(index, frame)
            elif frame.mode == QUOTES:
                index = self._quotes(index)
            else:
                if char == 10 and self.pending:
                    raise GiveUp
                index = self._expansion(index, frame)
        if self.pending:
            raise GiveUp
        return self.edits

    def _commands(self, index: int, frame: Frame) -> int:
        src = self.src
        char = src[index]
        if char == 10:
            self._ends(frame, index, b"")
            index = self._line(index + 1) if self.pending else index + 1
            frame.start, frame.compound = index, False
            return index
        if char == 35 and (index == 0 or src[index - 1] in _STARTS_WORD):  # a comment
            self._ends(frame, index, b"")
            end = src.find(b"\n", index)
            return len(src) if end < 0 else end
        if char == 39:
            end = src.find(b"'", index + 1)
            if end < 0:
                raise GiveUp
            return end + 1
        if src.startswith(b"$'", index):
            return _ansi_end(src, index + 2)
        opened = self._opens(index, frame)
        if opened is not None:
            return opened
        if (char == 96 and frame.closer == 96) or (char == 41 and not frame.parens and frame.closer == 41):
            self._close()
            return index + 1
        if char == 40:
            frame.parens += 1
            frame.start, frame.compound = index + 1, False
        elif char == 41:
            if any(
                doc.frame is frame and doc.stop < 0 and doc.parens == frame.parens for doc in self.pending
            ):
                raise GiveUp  # `(cmd <<EOF)`: not rewritten
            frame.parens = max(frame.parens - 1, 0)
            frame.start, frame.compound = index + 1, True
        elif src.startswith(b"<<<", index):
            self._takes(frame, index)
            return index + 3
        elif src.startswith(b"<<", index):
            return self._operator(index, frame)
        elif char == 60 and src[index + 1 : index + 2] != b"(":
            self._takes(frame, index)
        elif (
            char in (38, 59, 124)
            and src[index - 1 : index] not in (b">", b"<")
            and src[index : index + 2] != b"&>"
        ):
            operator = next(op for op in _CONTROL if src.startswith(op, index))
            self._ends(frame, index, operator)
            frame.start, frame.compound = index + len(operator), False
            return index + len(operator)
        return index + 1

    def _opens(self, index: int, frame: Frame) -> int | None:
        """`$((`, `((`, `$(`, `<(`, `>(`, `${`, `"` and a backquote open a frame: the index after."""
        src = self.src
        if src.startswith(b"$((", index) or (src.startswith(b"((", index) and frame.mode == COMMANDS):
            self.stack.append(Frame(ARITHMETIC))
            return index + (3 if src[index] == 36 else 2)
        if src.startswith((b"$(", b"<(", b">("), index):
            self.stack.append(Frame(COMMANDS, 41, start=index + 2))
            return index + 2
        if src.startswith(b"${", index):
            self.stack.append(Frame(PARAMETER))
            return index + 2
        if src[index] == 34 and frame.mode != QUOTES:
            self.stack.append(Frame(QUOTES))
            return index + 1
        if src[index] == 96 and frame.closer != 96:
            self.stack.append(Frame(COMMANDS, 96, start=index + 1))
            return index + 1
        return None

    def _close(self) -> None:
        frame = self.stack.pop()
        if any(doc.frame is frame for doc in self.pending):
            raise GiveUp  # `$(cat <<EOF)`: not rewritten
        if not self.stack:
            raise GiveUp

    def _quotes(self, index: int) -> int:
        if self.src[index] == 34:
            self._close()
            return index + 1
        opened = self._opens(index, self.stack[-1])
        return index + 1 if opened is None else opened

    def _expansion(self, index: int, frame: Frame) -> int:
        """Inside `${...}` (up to its `}`) or `$((...))` (up to the `))` that closes it)."""
        src = self.src
        char = src[index]
        if frame.mode == PARAMETER and char == 39:
            end = src.find(b"'", index + 1)
            return len(src) if end < 0 else end + 1
        opened = self._opens(index, frame) if char in (34, 36, 96) else None
        if opened is not None:
            return opened
        if frame.mode == PARAMETER and char == 125 and not frame.parens:
            self._close()
        elif frame.mode == ARITHMETIC and src.startswith(b"))", index) and not frame.parens:
            self._close()
            return index + 2
        elif char in (40, 123):
            frame.parens += 1
        elif char in (41, 125) and frame.parens:
            frame.parens -= 1
        return index + 1

    def _takes(self, frame: Frame, index: int) -> None:
        """A `<` at `index` (`< f`, `<&3`, `<<< x`) on fd 0 takes stdin from the heredocs before it."""
        if _descriptor(self.src, index) in (b"", b"0"):
            for doc in self.pending:
                if doc.frame is frame and doc.stop < 0 and doc.descriptor in (b"", b"0"):
                    doc.taken = True

    def _ends(self, frame: Frame, index: int, operator: bytes) -> None:
        """The commands of pending heredocs in `frame` end at `index`."""
        for doc in self.pending:
            if doc.stop < 0 and doc.frame is frame and doc.parens == frame.parens:
                doc.stop, doc.operator = index, operator
            elif doc.stop < 0 and not operator:
                raise GiveUp  # the line ends inside a nested frame

    def _operator(self, index: int, frame: Frame) -> int:
        """`<<WORD` or `<<-WORD` at `index`: the marker, its quotes removed."""
        src = self.src
        descriptor = _descriptor(src, index)
        start = index - len(descriptor)
        index += 2
        strip = src.startswith(b"-", index)
        index += strip
        while index < len(src) and src[index] in _BLANK:
            index += 1
        marker = bytearray()
        quoted = False
        while index < len(src) and src[index] not in _ENDS_MARKER:
            char = src[index]
            if char == 92 and index + 1 < len(src):
                marker.append(src[index + 1])
                quoted, index = True, index + 2
            elif char in (39, 34):
                end = src.find(bytes((char,)), index + 1)
                if end < 0:
                    raise GiveUp
                marker += src[index + 1 : end]
                quoted, index = True, end + 1
            else:
                marker.append(char)
                index += 1
        if not marker:
            raise GiveUp
        doc = Doc(
            start, index, bytes(marker), quoted, strip, descriptor, frame, frame.parens, frame.start,
            frame.compound,
        )  # fmt: skip
        self.pending.append(doc)
        return index

    def _line(self, index: int) -> int:
        """Read the bodies of the pending heredocs from `index` and rewrite their line; the index
        after the last marker line."""
        src = self.src
        start = index
        for doc in self.pending:
            begin = index
            while True:
                if index >= len(src):
                    raise GiveUp  # bash reads to the end with a warning; rein does not guess
                end = src.find(b"\n", index)
                end = len(src) if end < 0 else end
                line = src[index:end]
                index = min(end + 1, len(src))
                if (line.lstrip(b"\t") if doc.strip else line) == doc.marker:
                    break
                doc.lines.append(line.lstrip(b"\t") if doc.strip else line)
            doc.block = src[begin:index] if src[index - 1 : index] == b"\n" else src[begin:index] + b"\n"
        after = rewrite(src, self.pending, self.edits)
        self.edits.append((start, 0, index, after))
        self.pending = []
        return index


def _descriptor(src: bytes, index: int) -> bytes:
    """The file descriptor digits right before a redirect operator at `index` (`2>`, `3<<`)."""
    start = index
    while start > 0 and 48 <= src[start - 1] <= 57:
        start -= 1
    if start == index or (start > 0 and src[start - 1] not in _STARTS_WORD):
        return b""
    return src[start:index]


def _ansi_end(src: bytes, index: int) -> int:
    while index < len(src):
        if src[index] == 92:
            index += 2
        elif src[index] == 39:
            return index + 1
        else:
            index += 1
    raise GiveUp
