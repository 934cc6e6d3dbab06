"""Redirects: what their targets and heredoc bodies run, and where a command's stdin comes from."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rein.steering.bash._effects import resolve_path
from rein.steering.bash._frame import TEMP, Ctx, Frame
from rein.steering.bash._parse import parse
from rein.steering.bash._walk_api import G, Redirected, Walk
from rein.steering.bash._words import Sub, collect_subs, lookup, words
from rein.steering.bash.model import UNKNOWN, Bounded, Env, Stdin, Unknown, Word

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_DEPTH = 16
"""Backquoted commands in heredocs re-parsed at most this deep."""
_WRITES = frozenset({">", ">>", ">|", "&>", "&>>"})
_INERT = frozenset({"word", "number"})
"""Redirect targets that are plain text: nothing in them runs."""
_EXPANDS = re.compile(r"^~|[\\*?\[{]")
"""What the shell still changes in a plain word: a leading `~`, escapes, globs and braces."""
_HEREDOC_EXPANSION = re.compile(
    r"\\([$`\\\n])|\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})|\$[({\[0-9@*#?$!-]|`"
)
"""In an unquoted heredoc: an escape (`\\$`), a variable (`$D`, `${D}`), or any other expansion."""


def _herestring(found: list[Word], env: Env) -> str | Unknown:
    """The text a herestring gives: its words expanded, then a newline."""
    values = [_here_word(word, env) for word in found]
    known = [value for value in values if isinstance(value, str)]
    return " ".join(known) + "\n" if len(known) == len(values) else UNKNOWN


def _here_word(word: Word, env: Env) -> str | Unknown:
    """A herestring word's value: variables and `~` expanded, no globbing (bash does none there)."""
    out: list[str] = []
    for part in word.parts or (word.value,):
        value = part if isinstance(part, str) else part.raw if part.kind == "glob" else lookup(part, env)
        if isinstance(value, Unknown):
            return UNKNOWN
        out.append(value)
    return "".join(out)


def _heredoc_body(body: str, env: Env) -> str | Unknown:
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
            return UNKNOWN
        out.append(body[position : match.start()])
        out.append(value)
        position = match.end()
    out.append(body[position:])
    return "".join(out)


def redirects(walker: Walk, redirects: Sequence[Node], frame: Frame, g: G, ctx: Ctx) -> Redirected:
    """Walk what redirect targets and heredoc bodies run; returns where stdin comes from and the
    files the command's output goes to."""
    src = ctx.src
    stdin: Stdin | None = None
    written: list[tuple[Word, bool, bool]] = []
    subs: list[Sub] = []
    heredoc_subs: list[Sub] = []
    backquoted: list[Node] = []
    piped: Word | None = None
    pending = list(redirects)
    for redirect in pending:  # grows: a heredoc's own `> file` redirects come after it
        kind = redirect.type
        children = redirect.children
        descriptor = node_text(children[0], src) if children[0].type == "file_descriptor" else ""
        from_stdin = descriptor in ("", "0")
        if kind == "file_redirect":
            operator = ""
            targets: list[Node] = []
            for child in children:
                if not child.is_named:
                    operator = child.type
                elif child.type != "file_descriptor":
                    targets.append(child)
            del targets[1:]  # the rest are the command's arguments (see `trailing`)
            if operator == "<&" and from_stdin and targets:  # `<&3`: what 3 holds is not followed
                source = node_text(targets[0], src)
                stdin = Stdin("pipe", source) if source not in ("0", "-") else stdin
                continue
            if operator not in _WRITES and operator != "<":
                continue  # `2>&1`: no file is read or written
            texts = [node_text(target, src) for target in targets]
            if all(target.type in _INERT for target in targets) and not any(map(_EXPANDS.search, texts)):
                found = [Word.literal(text) for text in texts]
            else:
                found = words(targets, src, subs)
            if operator == "<" and from_stdin and found:
                stdin = _file(found[0], frame)
                piped = found[0] if _is_process(found[0]) else None
            elif operator in _WRITES and found:
                written.append(
                    (found[0], operator.endswith(">>"), descriptor in ("", "1") or operator[0] == "&")
                )
        elif kind == "herestring_redirect":
            operands = [child for child in children if child.is_named and child.type != "file_descriptor"]
            found = words(operands, src, subs)
            if from_stdin:
                text = " ".join(word.value for word in found) + "\n"
                stdin = Stdin("herestring", text, _herestring(found, frame.env))
        else:
            text, quoted = _heredoc(children, ctx, heredoc_subs, backquoted, pending)
            if from_stdin:
                stdin = Stdin("heredoc", text, text if quoted else _heredoc_body(text, frame.env))
    outputs = walker.run_subs(subs, frame, g, ctx, "redirect")
    if piped is not None and stdin is not None and stdin.text == piped.value:  # `< <(cmd)`: cmd's output
        stdin = Stdin("pipe", piped.raw, outputs.get(piped.raw, UNKNOWN))
    walker.run_subs(heredoc_subs, frame, g, ctx, "heredoc")
    for body in backquoted:
        _backquotes(walker, body, frame, g, ctx)
    return Redirected(stdin, tuple(written))


def trailing(redirects: Sequence[Node]) -> list[Node]:
    """Words tree-sitter hangs on a redirect after its target (`git push > /dev/null -f`, `printf x
    2>&1 >(sh)`): bash takes only the first word as the target, the rest are the command's arguments."""
    extra: list[Node] = []
    for redirect in redirects:
        if redirect.type == "file_redirect":
            targets = [
                child for child in redirect.children if child.is_named and child.type != "file_descriptor"
            ]
            extra.extend(target for target in targets[1:] if target.type != "ERROR")
    return extra


def _is_process(word: Word) -> bool:
    parts = word.parts
    return len(parts) == 1 and not isinstance(parts[0], str) and parts[0].kind == "process"


def _file(word: Word, frame: Frame) -> Stdin:
    """`< f`: what the command reads is what this line wrote to f, if it did."""
    path = resolve_path(word, frame.cwd, frame.env)
    key = TEMP if isinstance(path, Bounded) and path.kind == "temp" else path
    content = frame.files.get(key, UNKNOWN) if isinstance(key, str) else UNKNOWN
    return Stdin("file", word.value, content)


def _heredoc(
    children: list[Node], ctx: Ctx, subs: list[Sub], later: list[Node], redirects: list[Node]
) -> tuple[str, bool]:
    """The body of a heredoc and whether its marker is quoted (nothing in it is expanded then); its
    own `> file` redirects (tree-sitter nests them in it: `cat <<EOF > f`) join `redirects`.

    In an unquoted heredoc, `$(...)` runs (tree-sitter parses it) and so do backquotes (it does
    not: they are found in the text here).
    """
    src = ctx.src
    quoted = strip = False
    body = ""
    # tree-sitter reads a first line that starts with `\` as words of the redirect: the body then
    # starts on the line after the marker's.
    after, lost = -1, None
    for child in children:
        kind = child.type
        if kind not in ("heredoc_body", "heredoc_end") and lost is None and after >= 0:
            line_end = src.find(b"\n", after)
            lost = line_end + 1 if 0 <= line_end < child.end_byte else None
        if kind == "<<-":
            strip = True
        elif kind == "heredoc_start":
            quoted = any(mark in node_text(child, src) for mark in "'\"\\")
            after = child.end_byte
        elif kind == "heredoc_end" and lost is not None and not body:
            body = src[lost : child.start_byte].decode("utf-8", "replace")
        elif kind == "heredoc_body":
            start = child.start_byte if lost is None else lost
            body = src[start : child.end_byte].decode("utf-8", "replace")
            if not quoted:
                collect_subs(child, subs)
                if "`" in body or _missed(child, body):
                    later.append(child)
        elif kind == "file_redirect":
            redirects.append(child)
    if strip:
        body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
    return body, quoted


def _missed(body: Node, text: str) -> bool:
    """Whether the body holds a `$(` tree-sitter did not parse (it misses one after leading blanks)."""
    found = text.count("$(") - text.count("$((")
    parsed = sum(1 for child in body.children if child.type == "command_substitution")
    return found > parsed


def _backquotes(walker: Walk, body: Node, frame: Frame, g: G, ctx: Ctx) -> None:
    """Read the body again as a double-quoted string, whose expansions are the heredoc's, and walk
    what runs in it: tree-sitter leaves backquotes in a heredoc unparsed, and misses a `$(...)` after
    leading blanks. What it did parse was walked already, so it is blanked out."""
    src = ctx.src
    text = bytearray(src[body.start_byte : body.end_byte])
    for child in body.children:
        if child.type != "heredoc_content":
            start, end = child.start_byte - body.start_byte, child.end_byte - body.start_byte
            text[start:end] = b" " * (end - start)
    if ctx.depth >= MAX_DEPTH:
        walker.exhaust(f"commands nest more than {MAX_DEPTH} levels deep")
        return
    quoted = b': "' + as_double_quoted(bytes(text)) + b'"'
    subs: list[Sub] = []
    for node in parse(quoted).named_children:  # the one `:` command: collect in its string only
        for argument in node.children_by_field_name("argument"):
            collect_subs(argument, subs)
    where = f" in a heredoc{ctx.where}"
    walker.run_subs(subs, frame, g, ctx._replace(src=quoted, depth=ctx.depth + 1, where=where), "heredoc")


def as_double_quoted(body: bytes) -> bytes:
    """A heredoc body written inside double quotes with the same meaning: a backslash escapes only
    `$`, backquote, backslash and newline in both, but `"` must be escaped in quotes, and a backslash
    before anything else stays a backslash."""
    out = bytearray()
    index, count = 0, len(body)
    while index < count:
        char = body[index : index + 1]
        if char == b"\\" and index + 1 < count and body[index + 1 : index + 2] in (b"$", b"`", b"\\", b"\n"):
            out += body[index : index + 2]
            index += 2
            continue
        out += b"\\\\" if char == b"\\" else b'\\"' if char == b'"' else char
        index += 1
    return bytes(out)


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
