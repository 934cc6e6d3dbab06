"""What an AppleScript program (`osascript -e`) launches: `do shell script EXPR` runs a shell line,
Terminal's `do script EXPR` types one into a terminal, `run script EXPR` runs more AppleScript, and
`keystroke` may type a command into any app. EXPR is strings joined with `&`, with `space`, `tab`,
`return`, `linefeed` and `quote` as their characters and `quoted form of "s"` as `s` quoted; a
variable or any other expression is built at run time.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from rein.steering.bash.launch._folding import (
    MAX_DEPTH,
    RUNTIME_VALUE,
    Value,
    at_line,
    literal,
    shell_launch,
    too_deep,
    unknown_launch,
)
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.lexical._lex import Syntax, Token, tokenize

_SYNTAX = Syntax(
    line_comments=("--", "#"), block_comments=(("(*", "*)"),), nested=True, quotes='"', name=r"[A-Za-z_]\w*"
)
_MENTIONS = re.compile(r"\b(?:script|keystroke|key\s+code|sysoexec)\b", re.IGNORECASE)
_COMMANDS = {
    ("do", "shell", "script"): "do shell script",
    ("do", "script"): "do script",
    ("run", "script"): "run script",
    ("keystroke",): "keystroke",
    ("key", "code"): "key code",
}
_STOPS = frozenset({"with", "without", "administrator", "user", "password", "altering", "in", "as", "then"})
_CONSTANTS = {"space": " ", "tab": "\t", "return": "\r", "linefeed": "\n", "quote": '"'}


def read(text: str, env: Mapping[str, str], depth: int = 0) -> tuple[Launch, ...]:
    if not _MENTIONS.search(text):
        return ()
    tokens = tokenize(text.replace("\u00ac\n", " ").replace("\u00ac\r\n", " "), _SYNTAX)
    found: list[Launch] = []
    if "sysoexec" in text.lower():  # `«event sysoexec»`: do shell script in raw event syntax
        found.append(
            unknown_launch("«event sysoexec»", "the program runs a shell command in raw event syntax", 1)
        )
    index = 0
    while index < len(tokens):
        matched = _command(tokens, index)
        if matched is None:
            index += 1
            continue
        api, index = matched
        line = tokens[index - 1].line
        value, index = _expression(tokens, index)
        if api in ("keystroke", "key code"):
            found.append(unknown_launch(api, f"{api} types into another app, which may be a terminal", line))
        elif api == "run script":
            found.extend(_run_script(value, env, depth, line))
        else:
            found.append(shell_launch(api, value, line))
    return tuple(dict.fromkeys(found))


def _command(tokens: list[Token], index: int) -> tuple[str, int] | None:
    for words, api in _COMMANDS.items():
        end = index + len(words)
        if end <= len(tokens) and all(
            token.kind == "name" and token.text.lower() == word
            for token, word in zip(tokens[index:end], words, strict=False)
        ):
            return api, end
    return None


def _expression(tokens: list[Token], index: int) -> tuple[Value, int]:
    value = Value()
    depth = 0
    while index < len(tokens):
        token = tokens[index]
        word = token.text.lower() if token.kind == "name" else ""
        if token.kind == "end" or (depth == 0 and (word in _STOPS or token.kind == "close")):
            break
        index += 1
        if token.kind in ("open", "close"):
            depth += 1 if token.kind == "open" else -1
        elif token.kind == "string":
            value = value + literal(token.text)
        elif word in _CONSTANTS:
            value = value + literal(_CONSTANTS[word])
        elif word == "quoted" and _quoted_form(tokens, index) is not None:
            quoted, index = _quoted_form(tokens, index) or ("", index)
            value = value + (literal(quoted) if quoted else RUNTIME_VALUE)
        elif not (token.kind == "op" and token.text == "&"):
            value = value + RUNTIME_VALUE
    return value, index


def _quoted_form(tokens: list[Token], index: int) -> tuple[str, int] | None:
    """`quoted form of "s"`: the string quoted for a shell; "" when `of` names no literal string."""
    if (
        index + 1 >= len(tokens)
        or tokens[index].text.lower() != "form"
        or tokens[index + 1].text.lower() != "of"
    ):
        return None
    target = tokens[index + 2] if index + 2 < len(tokens) else None
    if target is not None and target.kind == "string":
        return shlex.quote(target.text), index + 3
    return "", index + 2


def _run_script(value: Value, env: Mapping[str, str], depth: int, line: int) -> tuple[Launch, ...]:
    code = value.text
    if code is None:
        return (unknown_launch("run script", "run script runs code built at run time", line),)
    if depth >= MAX_DEPTH:
        return (too_deep("applescript", line),)
    return at_line(read(code, env, depth + 1), line)


__all__ = ["read"]
