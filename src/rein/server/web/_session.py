"""`ServerSession`: the store of a run on the server. An in-memory `Session` loaded from the
service's view of the session, whose `flush` appends what the service lacks, as `rein --server` would
send it: entries in pi's dialect (`encode_entry(entry, PI_KEYS)`), the ones read from the service kept
in their exact wire form, so both writers hash the same bytes.
"""

from __future__ import annotations

from rein.server._service import SessionService
from rein.server._view import SessionView
from rein.session import (
    PI_KEYS,
    Entry,
    Session,
    SessionHeader,
    SessionTree,
    decode_or_unknown,
    encode_entry,
    timestamp,
)


class ServerSession(Session):
    """A session of `service` (owner, id), loaded from `view`; `flush` writes new entries back."""

    def __init__(self, service: SessionService, owner: str, view: SessionView, cwd: str) -> None:
        header = SessionHeader(id=view.row.session_id, timestamp=timestamp(), cwd=cwd)
        super().__init__(header=header, tree=SessionTree(), path=None, keys=PI_KEYS)
        self.service = service
        self.owner = owner
        self.revision = view.row.revision
        """The service's revision this store last matched (loaded or flushed)."""
        self._wire: dict[str, dict[str, object]] = {}
        for raw in view.entries:
            self._tree.load(decode_or_unknown(raw, PI_KEYS))
            self._wire[str(raw.get("id"))] = raw
        leaf = view.row.leaf_id
        self._tree.move_leaf(leaf if leaf in self._tree else None)
        self._leaf_sent = self._tree.leaf_id

    def wire(self, entry: Entry) -> dict[str, object]:
        """`entry` in the service's form: as read from it, or as `rein --server` encodes it."""
        raw = self._wire.get(entry.id)
        return raw if raw is not None else encode_entry(entry, PI_KEYS)

    def wire_branch(self) -> list[dict[str, object]]:
        return [self.wire(entry) for entry in self._tree.active_path()]

    async def flush(self) -> None:
        """Append the entries the service has not got, in append order, and move its leaf here.
        Raises the service's `ProtocolError` or `StoreError` (the run then reports it)."""
        fresh: list[Entry] = [entry for entry in self._tree if entry.id not in self._wire]
        leaf = self._tree.leaf_id
        if not fresh and leaf == self._leaf_sent:
            return
        wire = [encode_entry(entry, PI_KEYS) for entry in fresh]
        view = await self.service.append(self.owner, self.id, wire, leaf)
        self._wire.update((entry.id, raw) for entry, raw in zip(fresh, wire, strict=True))
        self._leaf_sent = leaf
        self.revision = view.row.revision
