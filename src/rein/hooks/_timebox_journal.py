"""A Claude Code session's timebox journal: one JSON object a line, appended under an exclusive flock.

    ~/.rein/sessions/hooks/claude/timebox/<session id>.jsonl   (beside the hooks' own session file)
    {"seq": 1, "type": "timebox-active", "data": {"timeLimitMs": 900000, ...}}   set, or spent
    {"seq": 2, "type": "timebox-turn"}      a prompt went to Claude (counted once a timebox exists)
    {"seq": 3, "type": "timebox-off", "data": {"disabledAt": 1700000000000}}

A hook holds the lock from its read to its last append, so parallel hooks decide one after the other:
a nudge is sent once, a stop fires once and its command runs once. A line that does not parse (torn
by a crash) is skipped. I/O failures raise `OSError`; the hook answers that fail-closed.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, cast

from rein.hooks._store import session_path

TURN = "timebox-turn"


def journal_path(home: Path, session_id: str) -> Path:
    beside = session_path(home, "claude", session_id)
    return beside.parent / "timebox" / beside.name


@dataclass(frozen=True, slots=True, kw_only=True)
class Line:
    seq: int
    type: str
    data: Mapping[str, object] = field(default_factory=dict)


def _parse(text: bytes) -> list[Line]:
    lines: list[Line] = []
    for raw in text.splitlines():
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(item, dict):
            continue
        seq, kind, data = item.get("seq"), item.get("type"), item.get("data", {})
        if isinstance(seq, int) and isinstance(kind, str) and isinstance(data, dict):
            lines.append(Line(seq=seq, type=kind, data=cast(dict[str, object], data)))
    return lines


class Journal:
    """The lines as read under the lock, plus what this call appends."""

    def __init__(self, file: BinaryIO, lines: list[Line]) -> None:
        self._file = file
        self.lines = lines

    def append(self, kind: str, data: Mapping[str, object] | None = None) -> None:
        seq = max((line.seq for line in self.lines), default=0) + 1
        item: dict[str, object] = {"seq": seq, "type": kind}
        if data is not None:
            item["data"] = dict(data)
        self._file.write(json.dumps(item).encode() + b"\n")
        self._file.flush()
        self.lines.append(Line(seq=seq, type=kind, data=dict(data or {})))


@contextmanager
def open_journal(path: Path) -> Iterator[Journal]:
    """The journal, created if needed, exclusively locked until the block ends."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a+b") as file:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX)
        file.seek(0)
        yield Journal(file, _parse(file.read()))
