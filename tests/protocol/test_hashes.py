"""The wire protocol's hashes are byte-compatible with the pi-server fork's: `js_json` is JavaScript's
`JSON.stringify`, checked against node itself on generated values, and the tree hash is the fork's
chain (sha256 of "pi-tree-v1", then `sha256(previous + ":" + sha256(entry))`)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.protocol import (
    EMPTY_TREE_HASH,
    chunk_checksum,
    entry_hash,
    js_json,
    next_tree_hash,
    prefix_hashes,
    static_context_hash,
    tree_hash,
)

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def node_stringify(values: list[object]) -> list[str]:
    """Each value through node's JSON.parse then JSON.stringify (lone surrogates are left out)."""
    assert NODE is not None
    script = (
        "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{"
        "process.stdout.write(JSON.stringify(JSON.parse(s).map(v=>JSON.stringify(v))))})"
    )
    done = subprocess.run(
        [NODE, "-e", script], input=json.dumps(values), capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout)
    assert isinstance(result, list)
    return [str(item) for item in result]


@needs_node
@settings(max_examples=25, deadline=None)
@given(st.lists(json_values.filter(lambda v: "\\ud8" not in json.dumps(v)), min_size=1, max_size=20))
@pytest.mark.slow
def test_js_json_is_json_stringify(values: list[object]) -> None:
    assert [js_json(v) for v in values] == node_stringify(values)


@needs_node
@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.text(st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010, exclude_categories=())), max_size=20
    )
)
@pytest.mark.slow
def test_lone_surrogates_are_written_as_json_stringify_writes_them(values: list[object]) -> None:
    """Half an emoji (what a client that cuts a string inside one stores) is kept, escaped as node
    escapes it, so the hash is the client's and the text encodes as UTF-8."""
    values = [*values, "x\ud83d", "\ude00y", ["\ud83d", "\ud83d\ude00", "\udfff\ud800"]]
    assert [js_json(v) for v in values] == node_stringify(values)
    assert js_json("\ud83d" + "\ude00") == '"\U0001f600"'  # two halves that meet are one character
    js_json(values).encode("utf-8")


@needs_node
def test_floats_are_written_as_javascript_writes_them() -> None:
    values: list[object] = [1.0, -0.0, 1e21, 1e-7, 123456789012345680000.0, 0.1, 5e-324, 1.5e300, 2**53]
    assert [js_json(v) for v in values] == node_stringify(values)


def test_non_finite_numbers_are_refused() -> None:
    with pytest.raises(ValueError, match="not a JSON number"):
        js_json({"x": float("nan")})


def test_tree_hash_is_the_forks_chain() -> None:
    entries: list[dict[str, object]] = [
        {"type": "message", "id": "a1", "parentId": None, "message": {"role": "user", "content": "hi"}},
        {"type": "message", "id": "b2", "parentId": "a1", "message": {"role": "assistant", "content": []}},
    ]
    assert hashlib.sha256(b"pi-tree-v1").hexdigest() == EMPTY_TREE_HASH
    first = hashlib.sha256(f"{EMPTY_TREE_HASH}:{entry_hash(entries[0])}".encode()).hexdigest()
    assert prefix_hashes(entries)[1] == first == next_tree_hash(EMPTY_TREE_HASH, entries[0])
    assert tree_hash(entries) == next_tree_hash(first, entries[1])
    assert tree_hash([]) == EMPTY_TREE_HASH
    # key order is part of the bytes: the same fields in another order are another entry
    swapped = {"id": "a1", "type": "message", "parentId": None, "message": entries[0]["message"]}
    assert entry_hash(swapped) != entry_hash(entries[0])


@needs_node
def test_static_context_hash_matches_node() -> None:
    tools = [{"name": "bash", "description": "Run", "parameters": {"type": "object"}, "extra": 1}]
    canonical = {"systemPrompt": "Be brief.", "tools": [{k: v for k, v in tools[0].items() if k != "extra"}]}
    expected = hashlib.sha256(node_stringify([canonical])[0].encode()).hexdigest()
    assert static_context_hash("Be brief.", tools) == expected
    assert static_context_hash(None, None) == hashlib.sha256(b"{}").hexdigest()


def test_chunk_checksum_is_of_the_chunk_text() -> None:
    assert chunk_checksum("eyJhIjoxfQ==") == hashlib.sha256(b"eyJhIjoxfQ==").hexdigest()


@needs_node
def test_js_json_orders_array_index_keys_first_as_javascript_does() -> None:
    """Hypothesis found `{"": null, "0": null}`: JavaScript lists integer-like keys first, ascending."""
    value = {"b": 1, "10": 2, "": 3, "2": 4, "01": 5, "4294967295": 6, "4294967294": 7, "-1": 8}
    assert js_json(value) == node_stringify([value])[0]
    assert js_json(value).startswith('{"2":4,"10":2,"4294967294":7,"b":1')
