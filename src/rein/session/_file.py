"""Session files on disk: JSONL reading with torn-line recovery, line-by-line appends. All of the
store's file I/O is here; nothing in this module knows what an entry means.

One writer per session file is assumed (the agent that owns the session); appends are not locked.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

WarningKind = Literal["torn", "corrupt", "no_id", "malformed", "orphan", "duplicate", "bad_leaf"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadWarning:
    """Damage the loader stepped over. Never fatal; `str()` is a line a host can show.

    kind: "torn" (the last line is cut, e.g. by a crash mid-write), "corrupt" (a line that is not a JSON
    object), "no_id" (an entry without a usable id: skipped), "malformed" (a known kind with bad fields:
    kept as an `UnknownEntry`), "orphan" (its parent is not in the file: kept as a root), "duplicate"
    (an id seen before with different content: the first one is kept), "bad_leaf" (a leaf record naming
    no entry: ignored).
    """

    path: str
    line: int
    kind: WarningKind
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True, slots=True, kw_only=True)
class RawFile:
    """A session file as JSON objects in file order, header included; `lines[i]` is the 1-based line
    number of `records[i]`."""

    records: list[dict[str, object]]
    lines: Sequence[int]
    warnings: list[LoadWarning]


def read_records(path: Path) -> RawFile:
    """Every line of `path` that is a JSON object; the others become warnings. Raises `OSError`."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    fast = _parse_all(text)
    if fast is not None:
        return RawFile(records=fast, lines=range(1, len(fast) + 1), warnings=[])
    lines = text.split("\n")
    torn_tail = lines[-1] != ""  # written lines always end in "\n"; a crash can cut the last one
    records: list[dict[str, object]] = []
    numbers: list[int] = []
    warnings: list[LoadWarning] = []
    last = len(lines)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        if isinstance(value, dict):
            records.append(value)
            numbers.append(number)
        elif number == last and torn_tail:
            message = f"the last line is cut short ({len(line)} characters), probably a crash mid-write"
            warnings.append(LoadWarning(path=str(path), line=number, kind="torn", message=message))
        else:
            message = "not a JSON object; line skipped"
            warnings.append(LoadWarning(path=str(path), line=number, kind="corrupt", message=message))
    return RawFile(records=records, lines=numbers, warnings=warnings)


def _parse_all(text: str) -> list[dict[str, object]] | None:
    """Every line in one `json.loads` of `[line,line,...]` (the newlines become commas; much faster
    than a call a line), or None unless each line is exactly one JSON object: then the caller parses
    line by line to say which is not. JSON strings hold no raw newline, so every newline ends a line;
    a blank line makes `,,` and fails; a line cut short cannot be closed by the lines after it, and
    whatever else merged or split lines would change the count."""
    if not text.endswith("}\n") or text[0] != "{":
        return None
    try:
        values = json.loads("[" + text[:-1].replace("\n", ",") + "]")
    except ValueError:
        return None
    if not isinstance(values, list) or len(values) != text.count("\n"):
        return None
    return values if all(type(value) is dict for value in values) else None


def newest_first(directory: Path, pattern: str) -> list[Path]:
    """Files in `directory` matching `pattern`, most recently modified first (ties: later name first).
    A missing directory, or a file that vanishes meanwhile, yields nothing."""
    found: list[tuple[int, str, Path]] = []
    for path in directory.glob(pattern):
        try:
            found.append((path.stat().st_mtime_ns, path.name, path))
        except OSError:
            continue
    return [path for _, _, path in sorted(found, reverse=True)]


def read_first_record(path: Path, limit: int = 1 << 16) -> dict[str, object] | None:
    """The JSON object on the first line of `path`, or None (unreadable, empty, not an object)."""
    try:
        with path.open("rb") as handle:
            line = handle.readline(limit)
        value = json.loads(line)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def dump_line(record: Mapping[str, object]) -> str:
    """One compact JSON line (no trailing newline). Raises `ValueError`/`TypeError` for non-JSON."""
    return json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


Write = Callable[[int, bytes], int]
"""`os.write`'s shape: the one call that puts bytes in a session file (tests pass a failing one)."""


def create_file(path: Path, first_line: str, *, fsync: bool, write: Write = os.write) -> None:
    """Create `path` (and its directories) holding `first_line`; fails if it exists (`FileExistsError`).

    Raises `OSError`; then no file is left behind (a half-written one is removed).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        _write_all(fd, first_line.encode("utf-8") + b"\n", write)
        if fsync:
            os.fsync(fd)
    except OSError:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
    os.close(fd)
    if fsync:
        sync_directory(path.parent)


def append_line(path: Path, line: str, *, fsync: bool, write: Write = os.write) -> None:
    """Append `line` and a newline to `path` in one write, fsync'd if asked, before returning.

    If the file does not end in a newline (a torn last line) the line starts on a fresh one, so the
    damage stays confined to the torn line. Raises `OSError`; then the file is cut back to the length
    it had, so a failed append never leaves part of a line behind.
    """
    data = line.encode("utf-8") + b"\n"
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
    try:
        end = os.fstat(fd).st_size
        if end > 0 and os.pread(fd, 1, end - 1) != b"\n":
            data = b"\n" + data
        try:
            _write_all(fd, data, write)
            if fsync:
                os.fsync(fd)
        except OSError:
            _cut_back(fd, end)
            raise
    finally:
        os.close(fd)


def sync_file(path: Path, *, directory: bool = False) -> None:
    """fsync `path` (and, with `directory`, the directory holding its name). Raises `OSError`."""
    _fsync(path)
    if directory:
        sync_directory(path.parent)


def sync_directory(directory: Path) -> None:
    """fsync a directory, so a new name in it survives a crash."""
    _fsync(directory)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes, write: Write) -> None:
    """One write of the whole line; a short write (the disk filled up part-way) goes on with the rest,
    which then fails with the real error (or, if the rest is refused with no error, as ENOSPC)."""
    done = write(fd, data)
    while done < len(data):
        more = write(fd, data[done:])
        if more <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        done += more


def _cut_back(fd: int, length: int) -> None:
    """Truncate to `length` after a failed append. Best effort: if even that fails (the file system
    went read-only), the loader reports the torn last line and keeps every whole line before it."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, length)
