"""The session server's wire protocol, spoken by `rein --server` (the client) and `rein serve` (the
server, its stores and its web page): the JSON encoding every hash is taken over, tree hashes, the chunk
envelope, error codes and failure phases, as the pi-server fork defines them (so either side talks to
the other's peer).

It imports nothing of rein's: it is the contract between the two sides, not either side's code. The
entries themselves travel as JSON objects in pi's dialect (camelCase keys); turning them into session
entries is the session store's codec (`rein.session.decode_entry`, `rein.session.PI_KEYS`).

    js_json(value)                         JavaScript's `JSON.stringify`: the bytes every hash is over
    next_tree_hash(previous, entry)        the tree hash after one append; `tree_hash(entries)` at once
    EMPTY_TREE_HASH, prefix_hashes(...)    the empty tree's hash; the hash of every prefix
    static_context_hash(prompt, tools)     the hash of the system prompt and tool schemas
    CHUNK_ENDPOINT, chunk_checksum(chunk)  a body over the size limit, in checksummed chunks
    ErrorCode, DIVERGENCE_CODES, ...       the codes a server answers with, grouped by what they ask
    Phase                                  where a client's call failed
"""

from __future__ import annotations

from rein.protocol._chunks import CHUNK_ENDPOINT, CHUNK_TARGETS, chunk_checksum
from rein.protocol._codes import DIVERGENCE_CODES, LOST_CODES, MISSING_STATE_CODES, ErrorCode, Phase
from rein.protocol._hash import (
    EMPTY_TREE_HASH,
    chain_hash,
    entry_hash,
    next_tree_hash,
    prefix_hashes,
    sha256_hex,
    static_context_hash,
    tree_hash,
)
from rein.protocol._json import js_json, js_surrogates

__all__ = [
    "CHUNK_ENDPOINT",
    "CHUNK_TARGETS",
    "DIVERGENCE_CODES",
    "EMPTY_TREE_HASH",
    "LOST_CODES",
    "MISSING_STATE_CODES",
    "ErrorCode",
    "Phase",
    "chain_hash",
    "chunk_checksum",
    "entry_hash",
    "js_json",
    "js_surrogates",
    "next_tree_hash",
    "prefix_hashes",
    "sha256_hex",
    "static_context_hash",
    "tree_hash",
]
