"""The editor's history file, `~/.rein/history` (prompt_toolkit's format: each entry is a comment
line with its time, then its lines prefixed with `+`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from prompt_toolkit.history import FileHistory


class HistoryFile(FileHistory):
    """`~/.rein/history`. A file that cannot be read or written leaves the history in memory only:
    losing the history is no reason to stop a session."""

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path

    def load_history_strings(self) -> Iterator[str]:
        try:
            yield from super().load_history_strings()
        except OSError:
            return

    def store_string(self, string: str) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            super().store_string(string)
        except OSError:
            pass
