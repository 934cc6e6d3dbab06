"""Tree hashes and the static context hash: SHA-256 over `js_json` of the value, key order as sent, as
pi's `hashPiServerTreeEntry` takes them. A tree's hash chains its entries' hashes in append order, so
one append costs one hash and a prefix of the tree has the hash the peer holds for it."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Final

from rein.protocol._json import js_json

EMPTY_TREE_HASH: Final = hashlib.sha256(b"pi-tree-v1").hexdigest()
"""The hash of a tree without entries: where every chain starts."""


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def entry_hash(entry: Mapping[str, object]) -> str:
    """The hash of one wire entry (pi's `hashPiServerTreeEntry`)."""
    return sha256_hex(js_json(entry))


def next_tree_hash(previous: str, entry: Mapping[str, object]) -> str:
    """The tree hash after appending `entry` to a tree whose hash is `previous`: O(1) per append."""
    return chain_hash(previous, js_json(entry))


def chain_hash(previous: str, text: str) -> str:
    """`next_tree_hash` of an entry already encoded as `js_json` gives `text`."""
    return sha256_hex(f"{previous}:{sha256_hex(text)}")


def prefix_hashes(entries: Sequence[Mapping[str, object]]) -> list[str]:
    """`[hash of the first 0 entries, of the first 1, ..., of all]`: the hash of every prefix."""
    hashes = [EMPTY_TREE_HASH]
    for entry in entries:
        hashes.append(next_tree_hash(hashes[-1], entry))
    return hashes


def tree_hash(entries: Sequence[Mapping[str, object]]) -> str:
    return prefix_hashes(entries)[-1]


def static_context_hash(system_prompt: str | None, tools: Sequence[Mapping[str, object]] | None) -> str:
    """SHA-256 over canonical `{systemPrompt, tools: [{name, description, parameters}]}`; a field the
    client left out stays out, as `JSON.stringify` drops undefined."""
    canonical: dict[str, object] = {}
    if system_prompt is not None:
        canonical["systemPrompt"] = system_prompt
    if tools is not None:
        canonical["tools"] = [_tool(tool) for tool in tools]
    return sha256_hex(js_json(canonical))


def _tool(tool: Mapping[str, object]) -> dict[str, object]:
    return {key: tool[key] for key in ("name", "description", "parameters") if key in tool}
