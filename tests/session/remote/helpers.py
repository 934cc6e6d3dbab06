"""Shared pieces of the client tests: sessions with many entries, and the server's view of a tree."""

from __future__ import annotations

from rein.protocol import tree_hash
from rein.session.remote import RemoteSession, ServerTransport


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def reply(text: str) -> dict[str, object]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "provider": "faux",
        "model": "faux-1",
        "usage": {"input": 1, "output": 1, "cache_read": 0, "cache_write": 0},
        "stop_reason": "stop",
        "error_message": None,
        "response_id": None,
        "timestamp": 2,
    }


def fill(session: RemoteSession, turns: int, size: int = 40) -> None:
    for turn in range(turns):
        session.append_message(user(f"question {turn} " + "q" * size))
        session.append_message(reply(f"answer {turn} " + "a" * size))


async def server_tree(
    transport: ServerTransport, session_id: str
) -> tuple[list[tuple[object, object]], object, str]:
    """(id, parentId) of every entry in the server's order, its leaf, and the tree hash it reports."""
    body = await transport.get_json(f"/api/session/{session_id}/history")
    entries = body["entries"]
    assert isinstance(entries, list)
    return [(e["id"], e["parentId"]) for e in entries], body["leafId"], str(body["treeHash"])


def local_tree(session: RemoteSession) -> tuple[list[tuple[object, object]], object, str]:
    entries = session.wire_entries()
    return [(e["id"], e["parentId"]) for e in entries], session.leaf_id, tree_hash(entries)
