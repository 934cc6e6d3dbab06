"""Benchmark checkpoints: `python -m bench.checkpoints`.

Generates a project of 10,000 small files in nested directories, plus a `node_modules/` of 5,000 files
its `.gitignore` leaves out, then times a checkpoint for a turn that changed 10 files (5 modified, 3
added, 2 deleted) two ways, and the undo of that turn:

- shadow git (what rein uses): `git add -A` + `write-tree` in a repository of rein's own with its own
  (split) index, whose stat cache makes a snapshot of an unchanged tree cheap (and `write-tree` is
  skipped when `git add` left the index as it was); a turn costs the snapshot at its start, the one
  after it, and the `diff-tree` between them. CPU time is given too: on shared cores, wall time
  measures the wait for a core as much as the work.
- file copies: a full mirror of the project, an mtime/size scan at each turn's end to find what changed,
  and a copy of each changed file's old version out of the mirror before the mirror takes the new one.
  (A copy only of the files found changed cannot work alone: by the time a scan sees a change, the old
  content is gone, so the mirror is the price of catching bash's writes.)
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from bench._common import percentile
from rein.checkpoints import Checkpoint, ShadowRepo, undo

FILES = 10_000
IGNORED = 5_000
TURNS = 15
PAUSE = 1.1
"""Seconds between a turn's end and the next turn's start (the person reads and types): git stamps its
index to the second, and a file changed in the second the index was written is re-read at the next
snapshot ("racily clean"), which back-to-back turns would pay every time and real turns seldom do."""
T = TypeVar("T")


def generate(root: Path) -> list[Path]:
    """FILES files of a few hundred bytes, 10 per directory, three levels deep; a .gitignore'd tree."""
    made: list[Path] = []
    for n in range(FILES):
        path = root / f"pkg{n // 1000}" / f"mod{n // 100 % 10}" / f"sub{n // 10 % 10}" / f"f{n}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# file {n}\n" + "value = 1\n" * 30)
        made.append(path)
    for n in range(IGNORED):
        path = root / "node_modules" / f"dep{n // 100}" / f"i{n}.js"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("module.exports = 1\n")
    (root / ".gitignore").write_text("node_modules/\n")
    return made


def change(files: list[Path], turn: int) -> None:
    """A turn's 10 changed files: 5 modified, 3 added, 2 deleted."""
    base = turn * 10
    for path in files[base : base + 5]:
        path.write_text(path.read_text() + f"# turn {turn}\n")
    for k in range(3):
        (files[base].parent / f"new_{turn}_{k}.py").write_text(f"# new in turn {turn}\n")
    for path in files[base + 5 : base + 7]:
        path.unlink()


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def cpu() -> float:
    """CPU ms (user + system) of this process and its finished children: under load, wall time
    measures the queue for the cores as much as the work; this measures the work."""
    mine, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return (mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime) * 1000


# -- file copies ----------------------------------------------------------------------------------


def scan(root: Path) -> dict[str, tuple[int, int]]:
    """Every file's (mtime, size), the ignored directory skipped."""
    out: dict[str, tuple[int, int]] = {}
    stack = [root]
    while stack:
        directory = stack.pop()
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in ("node_modules", ".git"):
                        stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    stat = entry.stat(follow_symlinks=False)
                    out[os.path.relpath(entry.path, root)] = (stat.st_mtime_ns, stat.st_size)
    return out


class Copies:
    def __init__(self, root: Path, store: Path) -> None:
        self.root, self.mirror, self.versions = root, store / "mirror", store / "versions"
        self.seen = scan(root)
        for rel in self.seen:
            target = self.mirror / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / rel, target)
        self.turns: list[dict[str, bool]] = []

    def checkpoint(self) -> dict[str, bool]:
        """Scan; keep each changed file's old version (False: it did not exist) and update the mirror."""
        now = scan(self.root)
        changed = {p for p in now.keys() | self.seen.keys() if now.get(p) != self.seen.get(p)}
        kept = self.versions / str(len(self.turns))
        turn: dict[str, bool] = {}
        for rel in changed:
            turn[rel] = (self.mirror / rel).exists()
            if turn[rel]:
                (kept / rel).parent.mkdir(parents=True, exist_ok=True)
                (self.mirror / rel).replace(kept / rel)
            if rel in now:
                (self.mirror / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(self.root / rel, self.mirror / rel)
        self.seen = now
        self.turns.append(turn)
        return turn

    def undo(self) -> None:
        kept = self.versions / str(len(self.turns) - 1)
        for rel, existed in self.turns.pop().items():
            if existed:
                shutil.copy2(kept / rel, self.root / rel)
            else:
                (self.root / rel).unlink(missing_ok=True)
        self.seen = scan(self.root)


# -- the runs -------------------------------------------------------------------------------------


def clocked(action: Callable[[], T], spent: list[float] | None = None) -> tuple[T, float]:
    """The action's value and wall ms; its CPU ms appended to `spent`."""
    start, used = time.perf_counter(), cpu()
    value = action()
    if spent is not None:
        spent.append(cpu() - used)
    return value, (time.perf_counter() - start) * 1000


def shadow_git(root: Path, home: Path, files: list[Path]) -> Iterator[tuple[str, float]]:
    repo = ShadowRepo(root, home)
    yield "first snapshot (cold, once per project)", timed(repo.snapshot)
    starts: list[float] = []
    ends: list[float] = []
    cpus: list[float] = []
    last: Checkpoint | None = None
    for turn in range(TURNS):
        time.sleep(PAUSE)
        spent: list[float] = []
        before, started = clocked(repo.snapshot, spent)
        change(files, turn)

        def end(before: str = before) -> Checkpoint:
            after = repo.snapshot()
            return Checkpoint(id="t", before=before, after=after, files=repo.changes(before, after))

        last, ended = clocked(end, spent)
        starts.append(started)
        ends.append(ended)
        cpus.append(sum(spent))
    yield from summary("snapshot at a turn's start (nothing changed yet)", starts)
    yield from summary("snapshot after the turn + diff (10 files)", ends)
    yield from summary("a whole turn's checkpoint", [s + e for s, e in zip(starts, ends, strict=True)])
    yield from summary("a whole turn's checkpoint, CPU time", cpus)
    assert last is not None and len(last.files) == 10, last
    checkpoint = last
    yield "undo of the last turn (10 files)", timed(lambda: undo(repo, [checkpoint]))


def copies(root: Path, store: Path, files: list[Path]) -> Iterator[tuple[str, float]]:
    holder: list[Copies] = []
    yield "full mirror copy (cold, once per project)", timed(lambda: holder.append(Copies(root, store)))
    mirror, ends = holder[0], []
    for turn in range(TURNS):
        change(files, TURNS + turn)
        ends.append(timed(mirror.checkpoint))
    assert len(mirror.turns[-1]) == 10, mirror.turns[-1]
    yield from summary("scan + copies after the turn (10 files)", ends)
    yield "undo of the last turn (10 files)", timed(mirror.undo)


def summary(label: str, samples: list[float]) -> Iterator[tuple[str, float]]:
    yield f"{label}, median", statistics.median(samples)
    yield f"{label}, p90", percentile(samples, 0.9)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="rein-bench-checkpoints-") as tmp:
        root, home = Path(tmp) / "project", Path(tmp) / "home"
        files = generate(root)
        print(f"checkpoints: {FILES} files + {IGNORED} ignored, {TURNS} turns of 10 changed files each")
        print(f"{'':<58} {'ms':>9}")
        print("shadow git repository")
        for label, ms in shadow_git(root, home, files):
            print(f"  {label:<56} {ms:9.1f}")
        print("file copies (mtime/size scan)")
        for label, ms in copies(root, Path(tmp) / "copies", files):
            print(f"  {label:<56} {ms:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
