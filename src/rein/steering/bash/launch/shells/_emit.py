"""Statements of a foreign shell written as the bash that runs the same commands: each word quoted
as bash quotes it (an unquoted `*` stays a glob, the home directory stays `$HOME`, a part built at
run time becomes a variable rein never sets), redirections as bash's, pipes and `&&` kept."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from rein.steering.bash.launch._launch import RUNTIME
from rein.steering.bash.launch.shells._lex import Mark, Token, Word

_GLOB = re.compile(r"([*?])")


@dataclass(slots=True)
class Statement:
    """One simple command: its words, its redirections (bash's, with their targets) and the operator
    after it (`|`, `&&`, `||`, `&`, or a newline)."""

    words: list[Word]
    redirects: list[str]
    after: str


def statements(tokens: Sequence[Token], redirects: dict[str, str]) -> list[Statement]:
    found: list[Statement] = []
    current = Statement([], [], "\n")
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token.kind == "word" and token.word is not None:
            current.words.append(token.word)
        elif token.kind == "op" and token.text in ("(", ")"):  # csh's parentheses: read by its rules
            current.words.append(Word(((token.text, False),)))
        elif token.kind == "redirect":
            target = tokens[index].word if index < len(tokens) and tokens[index].kind == "word" else None
            index += target is not None
            bash = redirects.get(token.text, "")
            if bash and (target is not None or bash.endswith("&1")):
                current.redirects.append(f"{bash} {word(target)}" if target is not None else bash)
        else:
            current.after = "\n" if token.kind == "sep" else token.text
            found.append(current)
            current = Statement([], [], "\n")
    found.append(current)
    return found


def word(value: Word) -> str:
    """One word as bash would read it to the same value."""
    out: list[str] = []
    for part in value.parts:
        if part is Mark.HOME:
            out.append('"$HOME"')
        elif part is Mark.SPREAD:
            out.append(RUNTIME)
        elif isinstance(part, Mark):
            out.append(f'"{RUNTIME}"')
        elif part[1]:
            out.append(shlex.quote(part[0]))
        else:
            out.extend(
                piece if _GLOB.fullmatch(piece) else shlex.quote(piece)
                for piece in _GLOB.split(part[0])
                if piece
            )
    return "".join(out) or "''"


def line(words: Sequence[Word], redirects: Sequence[str] = ()) -> str:
    return " ".join([*(word(each) for each in words), *redirects])


def join(commands: Sequence[tuple[str, str]]) -> str:
    """Commands and the operators after them as one script: an operator after an empty command, or
    at the end, is dropped."""
    out: list[str] = []
    for command, after in commands:
        if not command.strip():
            continue
        out.extend([command, after if after in ("|", "&&", "||", "&") else "\n"])
    while out and out[-1] in ("|", "&&", "||", "\n"):
        out.pop()
    return " ".join(out).replace(" \n ", "\n")
