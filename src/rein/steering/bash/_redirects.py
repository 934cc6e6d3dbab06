"""Redirects: what their targets and heredoc bodies run, and where a command's stdin comes from."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rein.steering.bash._frame import Ctx, Frame
from rein.steering.bash._words import Sub, collect_subs, lookup, words
from rein.steering.bash.model import UNKNOWN, Env, Unknown, Word

if TYPE_CHECKING:
    from tree_sitter import Node

    from rein.steering.bash._walker import G, Walker

MAX_DEPTH = 16
"""Wrappers and re-parsed strings (`sudo bash -c "eval '...'"`) followed at most this deep."""
_INERT = frozenset({"word", "number"})
"""Redirect targets that are plain text: nothing in them runs."""
_BACKQUOTED = re.compile(r"`((?:[^`\\]|\\.)*)`", re.S)
_BACKQUOTE_ESCAPE = re.compile(r"\\([`$\\])")
_HEREDOC_EXPANSION = re.compile(
    r"\\([$`\\\n])|\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})|\$[({\[0-9@*#?$!-]|`"
)
"""In an unquoted heredoc: an escape (`\\$`), a variable (`$D`, `${D}`), or any other expansion."""


@dataclass(frozen=True, slots=True)
class Stdin:
    """Where a command's standard input comes from, when a shell or interpreter might read code there."""

    kind: str
    """"heredoc", "herestring", "file" or "pipe"."""
    text: str = ""
    """The heredoc body or the herestring's words as written, before the expansions below."""
    env: Env | None = None
    """For an unquoted heredoc or a herestring: the variables of the shell that expands it before
    the command reads it (not the command's own: `D=x bash <<EOF` reads the shell's `$D`)."""
    words: tuple[Word, ...] = ()
    """For a herestring: its words, expanded with `env`."""


def expanded(stdin: Stdin) -> str | None:
    """The text the command reads: `text` after the expansions the shell makes first; None when
    one of them is not known (`$(date)`, a variable the walk does not know)."""
    env = stdin.env
    if env is None:
        return stdin.text
    if stdin.kind == "herestring":
        values = [_here_word(word, env) for word in stdin.words]
        known = [value for value in values if isinstance(value, str)]
        return " ".join(known) + "\n" if len(known) == len(values) else None
    return _heredoc_body(stdin.text, env)


def _here_word(word: Word, env: Env) -> str | Unknown:
    """A herestring word's value: variables and `~` expanded, no globbing (bash does none there)."""
    out: list[str] = []
    for part in word.parts or (word.value,):
        value = part if isinstance(part, str) else part.raw if part.kind == "glob" else lookup(part, env)
        if isinstance(value, Unknown):
            return UNKNOWN
        out.append(value)
    return "".join(out)


def _heredoc_body(body: str, env: Env) -> str | None:
    """An unquoted heredoc body as the command reads it: `$D` and `${D}` replaced by their values,
    the escapes `\\$`, `\\``, `\\\\` and `\\<newline>` resolved; None if any expansion is unknown."""
    if "$" not in body and "`" not in body and "\\" not in body:
        return body
    out: list[str] = []
    position = 0
    for match in _HEREDOC_EXPANSION.finditer(body):
        escaped, name = match[1], match[2] or match[3]
        if escaped is not None:
            value: str | Unknown = "" if escaped == "\n" else escaped
        elif name is not None:
            value = env.get(name, UNKNOWN)
        else:
            value = UNKNOWN
        if isinstance(value, Unknown):
            return None
        out.append(body[position : match.start()])
        out.append(value)
        position = match.end()
    out.append(body[position:])
    return "".join(out)


def redirects(walker: Walker, redirects: Sequence[Node], frame: Frame, g: G, ctx: Ctx) -> Stdin | None:
    """Walk what redirect targets and heredoc bodies run; returns where stdin comes from."""
    src = ctx.src
    stdin: Stdin | None = None
    subs: list[Sub] = []
    heredoc_subs: list[Sub] = []
    backquoted: list[Node] = []
    for redirect in redirects:
        kind = redirect.type
        children = redirect.children
        from_stdin = children[0].type != "file_descriptor" or node_text(children[0], src) == "0"
        if kind == "file_redirect":
            operator = ""
            targets: list[Node] = []
            for child in children:
                if not child.is_named:
                    operator = child.type
                elif child.type != "file_descriptor":
                    targets.append(child)
            if operator != "<" and all(target.type in _INERT for target in targets):
                continue  # `2>&1`, `> out`: nothing runs, stdin is untouched
            found = words(targets, src, subs)
            if operator == "<" and from_stdin and found:
                stdin = Stdin("file", found[0].value)
        elif kind == "herestring_redirect":
            operands = [child for child in children if child.is_named and child.type != "file_descriptor"]
            found = words(operands, src, subs)
            if from_stdin:
                text = " ".join(word.value for word in found) + "\n"
                stdin = Stdin("herestring", text, frame.env, tuple(found))
        else:
            text, quoted = _heredoc(walker, children, frame, g, ctx, heredoc_subs, backquoted)
            if from_stdin:
                stdin = Stdin("heredoc", text, None if quoted else frame.env)
    walker.run_subs(subs, frame, g, ctx, "redirect")
    walker.run_subs(heredoc_subs, frame, g, ctx, "heredoc")
    for body in backquoted:
        _backquotes(walker, body, frame, g, ctx)
    return stdin


def _heredoc(
    walker: Walker, children: list[Node], frame: Frame, g: G, ctx: Ctx, subs: list[Sub], later: list[Node]
) -> tuple[str, bool]:
    """The body of a heredoc and whether its marker is quoted (nothing in it is expanded then); its
    own `> file` redirects are walked, the chained commands are not.

    In an unquoted heredoc, `$(...)` runs (tree-sitter parses it) and so do backquotes (it does
    not: they are found in the text here).
    """
    src = ctx.src
    quoted = strip = False
    body = ""
    inner: list[Node] = []
    for child in children:
        kind = child.type
        if kind == "<<-":
            strip = True
        elif kind == "heredoc_start":
            quoted = any(mark in node_text(child, src) for mark in "'\"\\")
        elif kind == "heredoc_body":
            body = node_text(child, src)
            if not quoted:
                collect_subs(child, subs)
                if "`" in body:
                    later.append(child)
        elif kind == "file_redirect":
            inner.append(child)
    if inner:
        redirects(walker, inner, frame, g, ctx)
    if strip:
        body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
    return body, quoted


def _backquotes(walker: Walker, body: Node, frame: Frame, g: G, ctx: Ctx) -> None:
    src = ctx.src
    text = bytearray(src[body.start_byte : body.end_byte])
    for child in body.children:  # `$(...)` was parsed already: blank it out
        if child.type == "command_substitution":
            start, end = child.start_byte - body.start_byte, child.end_byte - body.start_byte
            text[start:end] = b" " * (end - start)
    for match in _BACKQUOTED.finditer(text.decode("utf-8", "replace")):
        script = _BACKQUOTE_ESCAPE.sub(r"\1", match[1])
        if ctx.depth >= MAX_DEPTH:
            walker.problems.append(f"wrappers nest deeper than {MAX_DEPTH} levels; the rest is not analysed")
            return
        apart = frame.copy()
        where = f" in a backquoted command of a heredoc{ctx.where}"
        inner = Ctx(script.encode("utf-8", "surrogatepass"), ctx.wrappers, "heredoc", ctx.depth + 1, where)
        walker.source(apart, g, inner)
        frame.absorb(apart, exact=False)


def raw(node: Node, redirects: Sequence[Node], src: bytes) -> str:
    """The command's text with its redirects, up to the heredoc marker (not the heredoc body)."""
    end = node.end_byte
    for redirect in redirects:
        if redirect.type == "heredoc_redirect":
            marker = next((child for child in redirect.children if child.type == "heredoc_start"), redirect)
            end = max(end, marker.end_byte)
        else:
            end = max(end, redirect.end_byte)
    return src[node.start_byte : end].decode("utf-8", "replace")


def node_text(node: Node, src: bytes) -> str:
    """The source text of `node`."""
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")
