"""A command text split into words the way a shell quotes them, by a program that runs the words
itself without a shell (Julia's `` `git push $b` ``, babashka's `(shell "git push")`): quotes and
backslashes are removed, operators are plain characters, and an interpolated part (`\\x00`) is
built at run time; a word that is only one is any number of words."""

from __future__ import annotations

from rein.steering.bash.launch._folding import RUNTIME_VALUE, SPREAD, Value, argv_launch, literal
from rein.steering.bash.launch._launch import Launch


def split_words(text: str) -> list[Value]:
    words: list[Value] = []
    current: Value | None = None
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if not quote and char in " \t\n":
            if current is not None:
                words.append(current)
            current = None
            continue
        current = current if current is not None else Value()
        if char == "\0":
            current = current + (SPREAD if not quote and _alone(text, index) else RUNTIME_VALUE)
        elif quote == "'" and char != "'":
            current = current + literal(char)
        elif char == quote:
            quote = ""
        elif not quote and char in "'\"":
            quote = char
        elif char == "\\" and index < len(text) and (not quote or text[index] in '"\\$`'):
            current = current + literal(text[index])
            index += 1
        else:
            current = current + literal(char)
    if current is not None:
        words.append(current)
    return words


def _alone(text: str, after: int) -> bool:
    """Whether the interpolation just read is a whole word."""
    before = after - 2
    return (before < 0 or text[before] in " \t\n") and (after >= len(text) or text[after] in " \t\n")


def command_words(api: str, text: str, line: int) -> Launch:
    return argv_launch(api, split_words(text), line)
