"""The incremental decoder of tool-call arguments."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rein.ttsr import JsonArgsDecoder
from rein.ttsr._jsonargs import Span


def decode(text: str, size: int) -> tuple[str, list[str], JsonArgsDecoder]:
    decoder = JsonArgsDecoder()
    out, paths = [], []
    for start in range(0, len(text), size):
        piece, found = decoder.feed(text[start : start + size])
        out.append(piece)
        paths.extend(found)
    return "".join(out), paths, decoder


def test_values_are_decoded_as_written() -> None:
    text = r'{"path": "a.py", "content": "x = \"q\"\n\ty\\z\/"}'
    for size in range(1, len(text) + 1):
        decoded, paths, _ = decode(text, size)
        assert decoded == 'a.py\nx = "q"\n\ty\\z/'
        assert paths == ["a.py"]


def test_unicode_escapes_and_surrogate_pairs_split_anywhere() -> None:
    text = json.dumps({"content": "é 😀 ok"})  # ensure_ascii: \u00e9 and a \ud83d\ude00 pair
    assert "\\ud83d" in text
    for size in range(1, len(text) + 1):
        assert decode(text, size)[0] == "é 😀 ok"


def test_lone_surrogates_and_bad_escapes_become_replacement_characters() -> None:
    assert decode(r'{"a": "\ud83d x"}', 3)[0] == "\ufffd x"
    assert decode(r'{"a": "\ude00"}', 3)[0] == "\ufffd"
    assert decode(r'{"a": "\uzzzz!"}', 100)[0] == "\ufffd!"
    assert decode(r'{"a": "\ud83d"}', 100)[0] == "\ufffd"
    assert decode(r'{"a": "\q"}', 100)[0] == "q"


def test_path_is_known_as_soon_as_its_string_closes() -> None:
    decoder = JsonArgsDecoder()
    assert decoder.feed('{"file_path": "src/a') == ("src/a", [])
    assert decoder.feed('.py", "content": "import os') == (".py\nimport os", ["src/a.py"])
    assert decoder.paths == ["src/a.py"]


def test_path_keys() -> None:
    for key in ("path", "file_path", "filePath", "filename", "notebook_path", "target_file", "file"):
        assert decode(json.dumps({key: "p.py"}), 2)[1] == ["p.py"], key
    assert decode(json.dumps({"paths": "p.py", "nested": {"path": "q.py"}}), 2)[1] == []
    assert decode(json.dumps({"path": "  "}), 2)[1] == []


def test_each_top_level_key_decides_for_its_own_value() -> None:
    arguments = {"File-Path": "a.py", "content": "b.py", "target_file": ["c.py"], "file": "d.py"}
    assert decode(json.dumps(arguments), 3)[1] == ["a.py", "d.py"]


def test_keys_numbers_and_literals_are_skipped_nested_values_kept() -> None:
    text = json.dumps({"n": -1.5e3, "ok": True, "none": None, "edits": [{"old": "a", "new": "b"}], "s": "c"})
    decoded, _, decoder = decode(text, 4)
    assert decoded == "a\nb\nc"
    assert decoder.spans == [Span(0, "edits"), Span(2, "edits"), Span(4, "s")]
    assert decoder.length == len(decoded)


def test_empty_and_array_arguments() -> None:
    assert decode("{}", 1)[0] == ""
    assert decode('["a", ["b"], []]', 1)[0] == "a\nb"
    assert decode('  {"a": "x"}  trailing', 3)[0] == "x"


def test_free_form_input_passes_through() -> None:
    decoded, paths, decoder = decode("*** Begin Patch\n+x = 1\n", 5)
    assert decoded == "*** Begin Patch\n+x = 1\n"
    assert paths == [] and decoder.spans == [Span(0, "")]


def test_invalid_json_passes_the_rest_through() -> None:
    assert decode('{"a": "x", oops "y"}', 3)[0] == 'xoops "y"}'
    assert decode('{"a" "x"}', 3)[0] == '"x"}'
    assert decode('{"a": @}', 3)[0] == "@}"
    assert decode('{"a": "x" "b"}', 100)[0] == 'x"b"}'
    assert decode("{1}", 100)[0] == "1}"


_values = st.recursive(
    st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


@settings(max_examples=150, deadline=None)
@given(
    arguments=st.dictionaries(st.text(max_size=8), _values, max_size=4),
    size=st.integers(min_value=1, max_value=9),
    ascii_only=st.booleans(),
)
def test_any_arguments_any_chunking(arguments: dict[str, object], size: int, ascii_only: bool) -> None:
    text = json.dumps(arguments, ensure_ascii=ascii_only)
    decoded, _, _ = decode(text, size)
    expected = "\n".join(_strings(arguments))
    assert decoded == expected
