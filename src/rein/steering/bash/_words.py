"""Canonical words from tree-sitter literals: quotes removed, escapes resolved, dynamic parts marked.

Building a word also records, in order, the substitutions inside it (`$(...)`, backticks, `<(...)`,
`$((...))`) so the walker can visit the commands they run before the command that uses the word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeAlias

from rein.steering.bash import _braces
from rein.steering.bash._ansi import decode_ansi_c
from rein.steering.bash.model import UNKNOWN, Env, Expansion, Unknown, Word

if TYPE_CHECKING:
    from tree_sitter import Node

Sub: TypeAlias = "tuple[str, Node]"
"""A substitution met while building words: its kind (`$()`, `` ` ``, `<()`, `>()`, `arith`, or `stmt`
for a statement found where a word was expected) and node."""

STATEMENT_NODES = frozenset({
    "command", "list", "pipeline", "redirected_statement", "subshell", "compound_statement",
    "if_statement", "case_statement", "for_statement", "c_style_for_statement", "while_statement",
    "function_definition", "negated_command", "test_command", "declaration_command", "unset_command",
    "variable_assignment", "variable_assignments",
})  # fmt: skip

Segment = tuple[str, bool] | Expansion
"""Literal text with its quoted flag, or a dynamic part."""

_SLOW = re.compile(rb"[\\*?\[{]")
_DQ_ESCAPE = re.compile(r"\\([$`\"\\\n])")
_MISSED = re.compile(r"(?<!\\)\$[A-Za-z_{(@*#?!$0-9-]")
"""A `$` that starts an expansion, inside what tree-sitter parsed as a plain word."""
_SUB_KIND = {"$(": "$()", "`": "`", "$`": "`", "<(": "<()", ">(": ">()"}
_TILDE = {"~": "HOME", "~+": "PWD", "~-": "OLDPWD"}
_LITERAL = frozenset({
    "number", "extglob_pattern", "regex", "test_operator", "variable_name", "special_variable_name",
    "brace_expression", "file_descriptor", "heredoc_start",
})  # fmt: skip
_CONTINUATIONS = (b"\\\r\n", b"\\\n")


def words(nodes: Sequence[Node], src: bytes, subs: list[Sub]) -> list[Word]:
    """The words of a run of literal nodes. Nodes bash reads as one word (adjacent, or split only by a
    backslash-newline, which tree-sitter treats as a separator) are joined; brace expansion may turn
    one node into several words."""
    out: list[Word] = []
    index, count = 0, len(nodes)
    while index < count:
        node = nodes[index]
        start, stop = node.start_byte, node.end_byte
        end = index + 1
        while end < count:
            following = nodes[end]
            begin = following.start_byte
            if begin != stop and (src[stop] != 92 or not _continued(src[stop:begin])):  # 92 is a backslash
                break
            stop = following.end_byte
            end += 1
        if end == index + 1:
            kind = node.type
            chunk = src[start:stop]
            if kind == "word" and not _SLOW.search(chunk) and chunk[:1] != b"~":
                text = chunk.decode("utf-8", "replace")
                out.append(Word(value=text, raw=text))
                index = end
                continue
            if kind == "raw_string":
                raw = chunk.decode("utf-8", "replace")
                out.append(Word(value=raw[1:-1], raw=raw))
                index = end
                continue
        segments: list[Segment] = []
        for part in _pieces(nodes[index:end]):
            _segments(part, src, segments, subs)
        out.extend(finish(segments, src[start:stop].decode("utf-8", "replace")))
        index = end
    return out


def finish(segments: list[Segment], raw: str) -> list[Word]:
    """Apply brace, tilde and glob rules to unquoted text and build the canonical words."""
    unquoted = [seg[0] for seg in segments if isinstance(seg, tuple) and not seg[1]]
    if not unquoted:  # fully quoted and expansions: nothing to expand statically
        return [_build(segments, raw)]
    segments = [
        Expansion(kind="other", raw=seg[0])
        if isinstance(seg, tuple) and not seg[1] and _MISSED.search(seg[0])
        else seg
        for seg in _merge(segments)
    ]  # `rm$IFS-rf$IFS/`: tree-sitter splits `$` from `IFS/`, an expansion rein cannot read then
    variants = [segments]
    if any("{" in text for text in unquoted):
        try:
            variants = [_merge(items) for items in _braces.expand(_braces.atoms(segments))]
        except _braces.TooManyError:
            variants = [[Expansion(kind="other", raw=raw)]]
    return [_build(_globs(_tilde(variant)), raw) for variant in variants]


def resolve(word: Word, env: Env) -> str | Unknown:
    """The word's value with variables substituted from `env`; UNKNOWN when any part is not known."""
    if not word.parts:
        return word.value
    if len(word.parts) == 1 and isinstance(word.parts[0], Expansion):  # keeps what is known of it
        return lookup(word.parts[0], env)
    out: list[str] = []
    for part in word.parts:
        value = part if isinstance(part, str) else lookup(part, env)
        if isinstance(value, Unknown):
            return UNKNOWN
        out.append(value)
    return "".join(out)


def lookup(part: Expansion, env: Env) -> str | Unknown:
    """A variable's value from `env` (a missing one is unknown), or what the walker worked out of any
    other expansion (`$(pwd)`); UNKNOWN when nothing is known."""
    if part.value is not None and part.kind != "process":  # a `<( )` word is a path, not its output
        return part.value
    if part.kind != "var" or not part.name or part.index is not None:
        return UNKNOWN
    if part.name == "IFS":  # bash never takes IFS from the environment: unset, it is the default
        return env.get("IFS", " \t\n")
    return env.get(part.name, UNKNOWN)


def assigned(name: str, value: Word | None, append: bool, env: Env) -> str | Unknown:
    """What `NAME=value` (or `NAME+=value`) sets NAME to, resolved in `env`; UNKNOWN when not known
    (`value` None: an array, a subscript or anything else not a plain string)."""
    new = UNKNOWN if value is None else resolve(value, env)
    if not append:
        return new
    old = env.get(name, UNKNOWN)
    return old + new if isinstance(old, str) and isinstance(new, str) else UNKNOWN


def split_assignment(word: Word) -> tuple[str, Word, bool] | None:
    """`NAME=value` (or `NAME+=value`) as name, value word and whether it appends; None otherwise."""
    head = word.parts[0] if word.parts else word.value
    if not isinstance(head, str) or "=" not in head:
        return None
    name, _, rest = head.partition("=")
    append = name.endswith("+")
    name = name[:-1] if append else name
    if not (name.isidentifier() and name.isascii()):
        return None
    if not word.parts:
        return name, Word(value=rest, raw=word.raw), append
    parts = ((rest,) if rest else ()) + word.parts[1:]
    value = "".join(part if isinstance(part, str) else part.raw for part in parts)
    return name, Word(value=value, raw=word.raw, parts=parts), append


def tail(word: Word, cut: int) -> Word:
    """The word without its first `cut` characters (`-uroot` gives `root`, `--directory=$D` gives `$D`)."""
    if not word.parts:
        return Word(value=word.value[cut:], raw=word.raw)
    head = word.parts[0]
    if isinstance(head, str) and len(head) >= cut:
        parts = ((head[cut:],) if len(head) > cut else ()) + word.parts[1:]
        value = "".join(part if isinstance(part, str) else part.raw for part in parts)
        return Word(value=value, raw=word.raw, parts=parts)
    return Word(value=word.value[cut:], raw=word.raw, parts=(Expansion(kind="other", raw=word.raw),))


def collect_subs(node: Node, subs: list[Sub]) -> None:
    """Record the substitutions anywhere under `node` (outermost first, in source order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in ("command_substitution", "process_substitution"):
            subs.append((_sub_kind(current), current))
            continue
        if kind in STATEMENT_NODES:  # a statement where tree-sitter expected a word still runs
            subs.append(("stmt", current))
            continue
        if kind == "arithmetic_expansion":
            subs.append(("arith", current))
        stack.extend(reversed(current.children))


def _continued(gap: bytes) -> bool:
    """Whether the bytes between two nodes are only line continuations (`r\\<newline>m` is `rm`)."""
    for continuation in _CONTINUATIONS:
        gap = gap.replace(continuation, b"")
    return not gap


def _segments(node: Node, src: bytes, out: list[Segment], subs: list[Sub]) -> None:
    kind = node.type
    text = src[node.start_byte : node.end_byte].decode("utf-8", "replace")
    if kind == "word":
        _unquoted(text, out)
    elif kind == "raw_string":
        out.append((text[1:-1], True))
    elif kind == "string":
        _double_quoted(node, src, out, subs)
    elif kind == "ansi_c_string":
        out.append((decode_ansi_c(text[2:-1]), True))
    elif kind in ("concatenation", "translated_string"):
        for child in _pieces(node.children):
            _segments(child, src, out, subs)
    elif kind == "simple_expansion":
        out.append(Expansion(kind="var", raw=text, name=text[1:]))
    elif kind == "expansion":
        children = node.children
        plain = len(children) == 3 and children[1].type == "variable_name"
        element = _element(children, src)
        if element is not None:
            out.append(Expansion(kind="var", raw=text, name=element[0], index=element[1]))
            return
        sliced = _SLICE.fullmatch(text)
        if sliced is not None:  # `${@:2}`, `${a[@]:1:2}`: some of the elements, one word each
            name, index = (sliced[1], None) if sliced[1] in ("@", "*") else (sliced[2], sliced[3])
            span = (int(sliced[4]), int(sliced[5]) if sliced[5] is not None else None)
            out.append(Expansion(kind="var", raw=text, name=name, index=index, span=span))
            return
        out.append(Expansion(kind="var", raw=text, name=text[2:-1] if plain else None))
        if not plain:
            collect_subs(node, subs)
    elif kind in ("command_substitution", "process_substitution"):
        subs.append((_sub_kind(node), node))
        out.append(Expansion(kind="command" if kind[0] == "c" else "process", raw=text))
    elif kind == "arithmetic_expansion":
        collect_subs(node, subs)
        out.append(Expansion(kind="arith", raw=text))
    elif kind == "``":
        out.append(("", True))
    elif kind in _LITERAL or not node.is_named:
        out.append((text, False))
    else:
        collect_subs(node, subs)
        out.append(Expansion(kind="other", raw=text))


_SLICE = re.compile(r"\$\{(@|\*|([A-Za-z_]\w*)\[([@*])\]):(-?\d+)(?::(\d+))?\}")


def _element(children: Sequence[Node], src: bytes) -> tuple[str, str] | None:
    """`${a[0]}`, `${a[@]}`: the array name and the subscript, when that is all the expansion does."""
    if len(children) != 3 or children[1].type != "subscript":
        return None
    parts = children[1].children
    if len(parts) != 4 or parts[0].type != "variable_name" or parts[2].type not in ("word", "number"):
        return None
    name, index = (
        src[part.start_byte : part.end_byte].decode("utf-8", "replace") for part in (parts[0], parts[2])
    )
    return name, index


def _pieces(nodes: Sequence[Node]) -> list[Node]:
    """The parts of one word; tree-sitter reads `$"..."` (a translated string) as `$` then a string."""
    return [
        node
        for at, node in enumerate(nodes)
        if not (node.type == "$" and at + 1 < len(nodes) and nodes[at + 1].type == "string")
    ]


def _unquoted(text: str, out: list[Segment]) -> None:
    """An unquoted word: a backslash quotes the next character (`r\\m` is `rm`)."""
    start = 0
    while True:
        slash = text.find("\\", start)
        if slash < 0 or slash + 1 == len(text):
            if start < len(text):
                out.append((text[start:], False))
            return
        if slash > start:
            out.append((text[start:slash], False))
        if text[slash + 1] != "\n":
            out.append((text[slash + 1], True))
        start = slash + 2


def _double_quoted(node: Node, src: bytes, out: list[Segment], subs: list[Sub]) -> None:
    position = node.start_byte + 1
    for child in node.children:
        kind = child.type
        if kind == '"':
            continue
        if child.start_byte > position:
            out.append((_dq_unescape(src[position : child.start_byte].decode("utf-8", "replace")), True))
        if kind == "string_content":
            text = src[child.start_byte : child.end_byte].decode("utf-8", "replace")
            out.append((_dq_unescape(text), True))
        elif kind == "$":
            out.append(("$", True))
        else:
            start = len(out)
            _segments(child, src, out, subs)
            out[start:] = [
                replace(seg, quoted=True) if isinstance(seg, Expansion) else seg for seg in out[start:]
            ]
        position = child.end_byte
    end = node.end_byte - 1
    if end > position:
        out.append((_dq_unescape(src[position:end].decode("utf-8", "replace")), True))


def _dq_unescape(text: str) -> str:
    if "\\" not in text:
        return text
    return _DQ_ESCAPE.sub(lambda match: "" if match[1] == "\n" else match[1], text)


def _sub_kind(node: Node) -> str:
    first = node.children[0].type if node.child_count else ""
    return _SUB_KIND.get(first, "$()")


def _merge(items: list[Segment]) -> list[Segment]:
    """Join adjacent texts with the same quoting (`a` `[` `bc` `]` is the glob `a[bc]`)."""
    out: list[Segment] = []
    for item in items:
        last = out[-1] if out else None
        if isinstance(item, tuple) and isinstance(last, tuple) and last[1] == item[1]:
            out[-1] = (last[0] + item[0], item[1])
        else:
            out.append(item)
    return out


def _tilde(segments: list[Segment]) -> list[Segment]:
    """A leading unquoted `~`, `~+`, `~-` becomes the variable bash reads it from; `~user` is unknown."""
    first = segments[0] if segments else None
    if not isinstance(first, tuple) or first[1] or not first[0].startswith("~"):
        return segments
    text = first[0]
    slash = text.find("/")
    if slash < 0 and len(segments) > 1:
        return segments
    prefix = text if slash < 0 else text[:slash]
    name = _TILDE.get(prefix)
    part = Expansion(kind="var", raw=prefix, name=name) if name else Expansion(kind="other", raw=prefix)
    rest = text[len(prefix) :]
    return [part, *([(rest, False)] if rest else []), *segments[1:]]


def _globs(segments: list[Segment]) -> list[Segment]:
    out: list[Segment] = []
    for seg in segments:
        if isinstance(seg, tuple) and not seg[1] and _is_glob(seg[0]):
            out.append(Expansion(kind="glob", raw=seg[0]))
        else:
            out.append(seg)
    return out


def _is_glob(text: str) -> bool:
    if "*" in text or "?" in text:
        return True
    bracket = text.find("[")
    return bracket >= 0 and text.find("]", bracket + 1) > 0


def _build(segments: list[Segment], raw: str) -> Word:
    if all(isinstance(seg, tuple) for seg in segments):
        return Word(value="".join(seg[0] for seg in segments if isinstance(seg, tuple)), raw=raw)
    parts: list[str | Expansion] = []
    for seg in segments:
        if isinstance(seg, Expansion):
            parts.append(seg)
        elif parts and isinstance(parts[-1], str):
            parts[-1] += seg[0]
        elif seg[0]:
            parts.append(seg[0])
    value = "".join(part if isinstance(part, str) else part.raw for part in parts)
    return Word(value=value, raw=raw, parts=tuple(parts))
