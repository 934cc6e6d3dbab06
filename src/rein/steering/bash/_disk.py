"""The files on disk a command line will run, as one analysis reads them: bounded, and with where each
came from.

Steering sees one line, but the line runs files: `bash x.sh`, `npm run build`, `make clean`, a git
alias or hook. A host gives the analysis a `Disk` (the engine adds which files the agent wrote); this
view reads through it within a budget and logs every read, so the command that read a file knows
whether all it ran came from the person's own files (read leniently: only a definite finding blocks)
or from one the agent wrote or changed this session (read like text the line wrote: what cannot be
read is unknown and blocks).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Protocol

MAX_READS = 64
"""Files one analysis reads at most; past that a read is refused (what it would run is not read)."""
MAX_BYTES = 2_000_000
"""Bytes of file text one analysis reads at most."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DiskRead:
    """A file as the analysis may use it."""

    text: str | None
    """Its text; None when it exists but cannot be read within rein's bounds (too big, not text,
    unreadable, past the analysis's budget)."""
    agent: bool = False
    """The agent wrote or changed it this session: read strictly, like text the line wrote."""
    executable: bool = False


class Disk(Protocol):
    """The files a command will run, read at check time. Implemented by the engine over a host's port;
    none of these may raise."""

    def read(self, path: str) -> DiskRead | None:
        """The regular file at absolute `path`; None when there is none."""
        ...

    def exists(self, path: str) -> bool:
        """Whether anything (a file, a directory) is at absolute `path`."""
        ...

    def which(self, name: str) -> str | None:
        """The absolute path of the program `name` on the host's PATH, or None."""
        ...


@dataclass(frozen=True, slots=True)
class Read:
    """One read in the log: which file, how a person finds it, whether it was the person's, and the
    text read (None when it could not be read)."""

    path: str
    label: str
    lenient: bool
    text: str | None


class DiskView:
    """One analysis's reads: a budget over the host's `Disk`, and a log of what was read."""

    def __init__(self, disk: Disk, cwd: str | None) -> None:
        self.disk = disk
        self.cwd = cwd
        self.log: list[Read] = []
        self.memo: dict[object, object] = {}
        """What readers worked out from files, kept for the rest of the analysis (git's config)."""
        self._reads = 0
        self._bytes = 0

    def read(self, path: str) -> DiskRead | None:
        """The file at `path`, logged; past the budget its text is not read (`text` None)."""
        found = self.disk.read(path)
        if found is None:
            return None
        self._reads += 1
        size = len(found.text) if found.text is not None else 0
        if self._reads > MAX_READS or self._bytes + size > MAX_BYTES:
            found = DiskRead(text=None, agent=found.agent, executable=found.executable)
        else:
            self._bytes += size
        self.log.append(Read(path, self.label(path), not found.agent, found.text))
        return found

    def exists(self, path: str) -> bool:
        return self.disk.exists(path)

    def which(self, name: str) -> str | None:
        return self.disk.which(name)

    def label(self, path: str) -> str:
        """`path` as a person finds it: relative to where the line starts when below it."""
        if self.cwd is not None and path.startswith(self.cwd.rstrip("/") + "/"):
            return posixpath.relpath(path, self.cwd)
        return path

    def of(self, text: str) -> Read | None:
        """The latest read whose text is `text` (a script run whole), or None."""
        return next((read for read in reversed(self.log) if read.text is text), None)
