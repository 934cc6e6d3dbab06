"""Rewriting one heredoc line once its bodies are read (see `_heredocs`): each command's heredoc that
gives stdin moved to the end of its words, the others made `N<"..."` stand-ins, and each body put
after its own line, with `;` a line break and `&` or a later heredoc's command behind `{ }`."""

from __future__ import annotations

from dataclasses import dataclass, field

from rein.steering.bash._redirects import as_double_quoted

_KEYWORDS = frozenset({b"if", b"then", b"else", b"elif", b"do", b"while", b"until", b"!", b"time", b"{"})
"""Words before a command that are no part of it (`then cmd <<EOF &`)."""
_CLOSERS = (b"}", b"done", b"fi", b"esac", b")", b"(")
"""What a command wrapped in `{ }` cannot start with: the redirects there belong to a compound."""


class GiveUp(Exception):
    """A heredoc line rein does not rewrite: the original parse (and its errors) stands."""


@dataclass(slots=True)
class Frame:
    """One level of nesting: commands (the line, `$(...)`, backquotes), `"..."`, `${...}`, `$((...))`."""

    mode: int
    closer: int = 0
    """What ends a commands frame: 0 the end, 41 `)`, 96 a backquote."""
    parens: int = 0
    start: int = 0
    """Where the current command's text starts: after the last control operator."""
    compound: bool = False
    """A `)` closed a subshell: the redirects that follow are its own."""


@dataclass(slots=True)
class Doc:
    """A heredoc on the line being read, and what the scan learned of its command."""

    start: int
    """Where the redirect starts (its file descriptor, or `<<`)."""
    end: int
    """Where its marker word ends."""
    marker: bytes
    quoted: bool
    strip: bool
    """`<<-`: leading tabs are stripped from the body and the marker line."""
    descriptor: bytes
    frame: Frame
    parens: int
    command: int
    """Where its command's text starts."""
    compound: bool
    """Its redirects follow a subshell's `)`."""
    stop: int = -1
    """Where its command ends: the control operator, comment or newline after it."""
    operator: bytes = b""
    """The control operator at `stop`; empty for the line's end."""
    taken: bool = False
    """A later `<` on its command takes stdin from it."""
    block: bytes = b""
    """Its body lines and marker line as written."""
    lines: list[bytes] = field(default_factory=list)


Edit = tuple[int, int, int, bytes]
"""(start, order among edits at the same start, end, replacement)."""


def rewrite(src: bytes, pending: list[Doc], edits: list[Edit]) -> bytes:
    """Add the edits of one line's heredocs to `edits`; what goes right after the line (a last body)."""
    commands: dict[tuple[int, int], list[Doc]] = {}
    for doc in pending:
        commands.setdefault((id(doc.frame), doc.command), []).append(doc)
    after = b""
    groups = list(commands.values())
    for number, docs in enumerate(groups):
        kept = next((doc for doc in reversed(docs) if doc.descriptor in (b"", b"0")), docs[-1])
        if kept.taken:
            raise GiveUp
        for doc in docs:
            edits.append((doc.start, 1, doc.end, b"" if doc is kept else _stand_in(doc)))
        moved = b" " + src[kept.start : kept.end] + b" "
        edits.append((kept.stop, 2, kept.stop, moved))
        last = number == len(groups) - 1
        if not kept.operator or (last and kept.operator in (b"|", b"|&", b"&&", b"||")):
            after += kept.block
        elif kept.operator == b";":
            edits.append((kept.stop, 3, kept.stop + 1, b"\n" + kept.block))
        elif kept.operator in (b";;", b";&", b";;&"):
            edits.append((kept.stop, 3, kept.stop, b"\n" + kept.block))
        else:
            at = _wrap(src, kept, docs[0])
            edits.append((at, 0, at, b"{ "))
            edits.append((kept.stop, 3, kept.stop, b"\n" + kept.block + b"} "))
    return after


def _wrap(src: bytes, kept: Doc, first: Doc) -> int:
    """Where `{` goes before the command: after the words that are no part of it."""
    index = kept.command
    while True:
        while index < first.start and src[index] in b" \t\n":
            index += 1
        end = index
        while end < first.start and src[end] not in b" \t\n;&|<>()":
            end += 1
        if src[index:end] not in _KEYWORDS or end == index:
            break
        index = end
    if kept.compound or src[index : first.start].startswith(_CLOSERS):
        raise GiveUp
    return index


def _stand_in(doc: Doc) -> bytes:
    """A heredoc that gives no stdin as a `N<"..."` redirect, for what its body expands to run."""
    body = b"\n".join(doc.lines)
    if doc.quoted or (b"$" not in body and b"`" not in body):
        return b""
    return doc.descriptor + b'<"' + as_double_quoted(body) + b'"'
