"""What hosts give steering to read the files a command will run: `HostFiles`, the `FilesPort` over
this machine's file system.

Reads are cached by path, modification time and size for the life of the process, so the hook daemon
(one warm process per user) reads a project's package.json, makefile or git config once and then
only `stat`s it. A file over `MAX_FILE` bytes, or one that is not UTF-8 text, is given without text:
steering reads the person's such files as no finding and the agent's as unknown.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from collections import OrderedDict
from pathlib import Path

from rein.steering import FileRead

MAX_FILE = 256 * 1024
"""Bytes of one file steering reads at most."""
CACHED = 512
"""Files kept in the cache (least recently used go first)."""

_cache: OrderedDict[str, tuple[tuple[int, int], FileRead]] = OrderedDict()


class HostFiles:
    """The `FilesPort` over the local file system. Never raises: what cannot be read is absent or
    has no text."""

    def read(self, path: str) -> FileRead | None:
        try:
            info = Path(path).stat()
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        key = (info.st_mtime_ns, info.st_size)
        cached = _cache.get(path)
        if cached is not None and cached[0] == key:
            _cache.move_to_end(path)
            return cached[1]
        found = FileRead(
            text=_text(path, info.st_size),
            mtime=info.st_mtime,
            executable=bool(info.st_mode & 0o111),
        )
        _cache[path] = (key, found)
        if len(_cache) > CACHED:
            _cache.popitem(last=False)
        return found

    def exists(self, path: str) -> bool:
        try:
            return os.path.lexists(path)
        except ValueError:
            return False

    def which(self, name: str) -> str | None:
        if "/" in name or not name:
            return None
        return shutil.which(name)

    def now(self) -> float:
        return time.time()


def _text(path: str, size: int) -> str | None:
    if size > MAX_FILE:
        return None
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(MAX_FILE + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def signature(path: Path) -> tuple[object, ...]:
    """What changes when a file is written, moved or removed: a config read once is read again only
    when its signature differs (the hook daemon's and the proxy's steering policies)."""
    try:
        info = path.stat()
    except OSError:
        return (str(path), None)
    return (str(path), info.st_mtime_ns, info.st_size, info.st_ino)
