"""`StreamOptions.avoid` on the local provider: the grammar of every text that contains none of some
strings. The automaton is checked against `in` on generated strings (read back from the grammar text
llama.cpp is given); the model tests show llama.cpp parses it, escapes included, and that a greedy
reply which writes a string without it cannot write it with it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rein.ai import Context, Model, StreamOptions, UserMessage
from rein.ai.providers.local import LocalProvider
from rein.ai.providers.local_files import SYSTEM_PROMPT
from rein.ai.providers.local_grammar import avoiding
from tests.ai.helpers import check_contract, collect, run

MODEL = Model(provider="local", id="smollm2")
_RULE = re.compile(r"^s(\d+) ::= \( (.*) \)\?$")
_STEP = re.compile(r'"((?:[^"\\]|\\x[0-9A-F]{2}|\\u[0-9A-F]{4}|\\U[0-9A-F]{8})+)" s(\d+)')
_ESCAPE = re.compile(r"\\x([0-9A-F]{2})|\\u([0-9A-F]{4})|\\U([0-9A-F]{8})")


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(next(g for g in m.groups() if g), 16)), text)


def accepts(grammar: str, text: str) -> bool:
    """Walk `text` through the grammar's states as llama.cpp would: a quoted character moves to its
    state, any character outside the negated class goes back to s0, anything else is refused."""
    states: dict[int, tuple[dict[str, int], set[str]]] = {}
    for line in grammar.splitlines()[1:]:
        found = _RULE.match(line)
        assert found, line
        others, *steps = found.group(2).split(" | ")
        assert others.startswith("[^") and others.endswith("] s0")
        moves = {_unescape(m.group(1)): int(m.group(2)) for m in map(_STEP.fullmatch, steps) if m}
        assert len(moves) == len(steps), line
        states[int(found.group(1))] = moves, set(_unescape(others[2:-4]))
    state = 0
    for char in text:
        moves, alphabet = states[state]
        if char in moves:
            state = moves[char]
        elif char in alphabet:
            return False
        else:
            state = 0
    return True


def test_nothing_to_avoid_is_no_grammar() -> None:
    assert avoiding(()) is None and avoiding(("",)) is None


def test_the_grammar_of_one_string_refuses_exactly_the_texts_holding_it() -> None:
    grammar = avoiding(["console.log("])
    assert grammar is not None and grammar.startswith("root ::= s0\n")
    assert accepts(grammar, "console.info(x); console.log; log.info(1)")
    assert not accepts(grammar, "x; console.log(1)")
    assert not accepts(grammar, "cconsole.log(")  # a partial match that restarts inside itself
    assert accepts(grammar, "console.lo")  # a reply may end anywhere short of the string


@given(
    st.lists(st.text("abc", min_size=1, max_size=4), min_size=1, max_size=3),
    st.text("abcd", max_size=24),
)
def test_the_automaton_agrees_with_substring_search(patterns: list[str], text: str) -> None:
    grammar = avoiding(patterns)
    assert grammar is not None
    assert accepts(grammar, text) == (not any(p in text for p in patterns))


@given(st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=3), st.text(max_size=20))
def test_any_character_is_escaped_and_read_back(patterns: list[str], text: str) -> None:
    grammar = avoiding(patterns)
    assert grammar is not None
    assert accepts(grammar, text) == (not any(p in text for p in patterns))


PROMPT = Context(
    system_prompt=SYSTEM_PROMPT,
    messages=(UserMessage.of("Write JavaScript that prints hello to the console."),),
)


def reply(avoid: tuple[str, ...]) -> str:
    options = StreamOptions(temperature=0.0, max_tokens=40, avoid=avoid)
    events = run(collect(LocalProvider().stream(MODEL, PROMPT, options)), 60.0)
    message = check_contract(events)
    assert message.stop_reason in ("stop", "length"), message.error_message
    return message.text


@pytest.mark.local
def test_the_local_model_cannot_write_what_it_is_told_to_avoid() -> None:
    assert "console.log(" in reply(())  # greedy: without the grammar it writes it
    assert "console.log(" not in reply(("console.log(",))
    assert "console.log" not in reply(("console.log",))


@pytest.mark.local
def test_llama_cpp_parses_every_escape_rein_writes() -> None:
    # Quotes, brackets, a caret, a backslash, a dash and characters beyond ASCII and the BMP.
    text = reply(('say "hi"', "[^x]-\\", "\u00e9\U0001f600"))
    assert text and 'say "hi"' not in text
