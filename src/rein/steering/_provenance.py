"""Which files the agent wrote or changed this session, so a file a command runs is read as strictly as
its author deserves.

A file the agent wrote (a write or edit call, a bash line that wrote it, or anything modified after a
bash line wrote files rein could not name) is read like text the line wrote: what cannot be read in it
is unknown and blocks. Any other file is the person's: only a definite finding in it blocks. That
closes the two-call bypass (write a script in one call, run it in the next) without blocking every
project script that builds a command at run time.

The record is steering's own session entries, type `steering-wrote`, so it lives wherever the host
keeps steering's entries (rein's session, a hook's per-session file) and survives a resume:

    {"paths": ["/project/x.sh"]}     files the agent wrote, by absolute path
    {"since": 1764384000.5}          files modified from then on may be the agent's
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from rein.steering._types import Context, FilesPort, ToolCall
from rein.steering.bash import Analysis
from rein.steering.bash._disk import DiskRead

ENTRY = "steering-wrote"
SLACK = 2.0
"""Seconds by which a file system may round a modification time down (FAT keeps two-second times),
so a file written just after a call started still counts as written after it."""


class SessionDisk:
    """The host's files with the agent's provenance: the `Disk` the analysis reads through."""

    def __init__(self, files: FilesPort, context: Context) -> None:
        self.files = files
        self.context = context
        self._wrote: frozenset[str] | None = None
        self._since: float | None = None

    def _load(self) -> frozenset[str]:
        if self._wrote is None:
            paths: set[str] = set()
            for entry in self.context.entries.find(ENTRY):
                paths.update(_paths(entry.data.get("paths")))
                since = entry.data.get("since")
                if isinstance(since, int | float) and (self._since is None or since < self._since):
                    self._since = float(since)
            self._wrote = frozenset(paths)
        return self._wrote

    def read(self, path: str) -> DiskRead | None:
        found = self.files.read(path)
        if found is None:
            return None
        wrote = self._load()
        agent = path in wrote or (self._since is not None and found.mtime >= self._since)
        return DiskRead(text=found.text, agent=agent, executable=found.executable)

    def exists(self, path: str) -> bool:
        return self.files.exists(path)

    def which(self, name: str) -> str | None:
        return self.files.which(name)


def record(call: ToolCall, analysis: Analysis | None, context: Context) -> None:
    """Note what an allowed call will write: its paths, and from when on files it cannot name may be
    the agent's. Written before the call runs: a call that then fails only makes rein stricter."""
    if context.files is None:
        return
    if call.tool in ("write", "edit") and call.path:
        _note(context, [posixpath.normpath(posixpath.join(context.cwd, call.path))])
    elif analysis is not None:
        _note(context, analysis.writes)
        if analysis.writes_unnamed and not any("since" in e.data for e in context.entries.find(ENTRY)):
            context.entries.append(ENTRY, {"since": context.files.now() - SLACK}, context.agent_loop)


def _note(context: Context, paths: Iterable[str]) -> None:
    wanted = list(dict.fromkeys(paths))
    if not wanted:
        return
    known = {path for entry in context.entries.find(ENTRY) for path in _paths(entry.data.get("paths"))}
    new = [path for path in wanted if path not in known]
    if new:
        context.entries.append(ENTRY, {"paths": new}, context.agent_loop)


def _paths(value: object) -> list[str]:
    return [path for path in value if isinstance(path, str)] if isinstance(value, list | tuple) else []
