"""A llama.cpp grammar (GBNF) of every text that contains none of some strings: how the local provider
keeps a stream rule's retry from writing again what the rule cut (`StreamOptions.avoid`).

The grammar is the Aho-Corasick automaton of the strings with its matching states removed: one rule per
state that has not completed a string, each character leading to the state it moves to. A character no
string holds goes back to the start, a character that would complete a string has no alternative, and
every state may end the text. llama.cpp applies it character by character to every token it samples, so
the model cannot write a forbidden string in any split of tokens, and everything else stays open.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


def avoiding(texts: Sequence[str]) -> str | None:
    """The grammar, or None when there is nothing to avoid."""
    patterns = sorted({text for text in texts if text})
    if not patterns:
        return None
    goto: list[dict[str, int]] = [{}]
    done: list[bool] = [False]
    for pattern in patterns:
        state = 0
        for char in pattern:
            if char not in goto[state]:
                goto.append({})
                done.append(False)
                goto[state][char] = len(goto) - 1
            state = goto[state][char]
        done[state] = True
    alphabet = sorted({char for pattern in patterns for char in pattern})
    # Breadth-first, so a state's failure link is complete before its children need it.
    fail = [0] * len(goto)
    move: list[dict[str, int]] = [{} for _ in goto]
    queue = deque([0])
    while queue:
        state = queue.popleft()
        done[state] = done[state] or done[fail[state]]
        for char in alphabet:
            child = goto[state].get(char)
            if child is None:
                move[state][char] = move[fail[state]][char] if state else 0
            else:
                move[state][char] = child
                fail[child] = move[fail[state]][char] if state else 0
                queue.append(child)
    others = "[^" + "".join(_escape(char) for char in alphabet) + "]"
    rules = ["root ::= s0"]
    for state, ok in enumerate(done):
        if ok:
            continue
        steps = [f"{others} s0"]
        steps += [f'"{_escape(c)}" s{move[state][c]}' for c in alphabet if not done[move[state][c]]]
        rules.append(f"s{state} ::= ( {' | '.join(steps)} )?")
    return "\n".join(rules) + "\n"


def _escape(char: str) -> str:
    """A character as GBNF reads it in a string or a class: letters and digits as they are, every other
    character as a code point escape (no quote, bracket or caret can close or negate anything)."""
    if char.isascii() and char.isalnum():
        return char
    code = ord(char)
    return f"\\x{code:02X}" if code < 0x80 else f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"
