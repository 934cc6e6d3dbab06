"""`fork_session`: a new session file holding one branch of another (`/fork`).

The new file is an ordinary rein session of the same directory whose header names the old file as
`parent_session`. The active path's entries are copied unchanged (ids, parent links, timestamps,
compaction and label entries), so its context is the old branch's context; entries of other branches
are not copied. A pi file forks into a rein file: entries are rewritten in rein's dialect.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rein.session._entries import Entry, LabelEntry, UnknownEntry
from rein.session._session import Session


def fork_session(store: Session, *, home: Path) -> Session:
    """A new session under `home` with `store`'s active path, durable (fsync'd) when this returns.

    Entries rein cannot write (`UnknownEntry`: a newer writer's kinds, which the context ignores) are
    left out and the next entry hangs off the one before. Labels the old file gives to copied entries
    from other branches are carried as label entries at the end, so the fork shows the same labels.
    Raises `SessionWriteError` if the new file cannot be written.
    """
    parent = str(store.path) if store.path is not None else None
    fork = Session.create(store.header.cwd, home=home, parent_session=parent)
    previous: str | None = None
    copied: set[str] = set()
    for entry in store.tree.active_path():
        if isinstance(entry, UnknownEntry):
            continue
        if isinstance(entry, LabelEntry) and entry.target_id not in copied:
            continue  # a label of an entry on another branch
        fork.append(_hung_off(entry, previous))
        copied.add(entry.id)
        previous = entry.id
    for target, label in store.tree.labels.items():
        if target in copied and fork.tree.labels.get(target) != label:
            fork.append_label(target, label)
    fork.sync()
    return fork


def _hung_off(entry: Entry, parent: str | None) -> Entry:
    """`entry` with `parent` as its parent: the same entry, unless an entry was left out before it or
    it was an orphan (its parent missing from the old file)."""
    if entry.parent_id == parent:
        return entry
    return dataclasses.replace(entry, parent_id=parent)
