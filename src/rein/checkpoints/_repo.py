"""The shadow repository: a project's snapshots in a git repository of rein's own.

    <home>/.rein/checkpoints/<sha256 of the project path, 16 hex>/
        git/       a bare repository; its own `index` is the stat cache that makes a snapshot cheap
        project    the project's path, for a person looking at the directory
        lock       held while git runs, so two sessions of one project take turns
        tree       the last snapshot's tree id and the stat of the index it was written from: when
                   `git add` leaves the index as it was, the snapshot is that tree (no `write-tree`)
        exclude-*  the paths a host keeps out of its snapshots (`exclude=`: the server's database)

Every git call gets GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE set to these, the parent's other GIT_*
variables removed, and neither the global nor the system config: the user's repository (its history,
index, stash, config, hooks) is never read or written, and no filter or hook of theirs runs. The
project's own `.gitignore` files are honoured, so `node_modules/` or `build/` stay out; so are the
paths a host excludes, which never appear among a turn's changes either (so never restored), even when
an earlier snapshot without that exclusion took them.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from rein.checkpoints._changes import Change, FileChange, change_of
from rein.checkpoints.errors import CheckpointError, TooManyFiles

CHECKPOINTS_DIR = Path(".rein") / "checkpoints"
MAX_FILES = 50_000
"""Files outside .gitignore a snapshot may take: beyond it every turn would pay for the scan."""
TIMEOUT = 120.0
CONFIG = """\
[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tautocrlf = false
\tquotepath = false
\tuntrackedCache = true
\tsplitIndex = true
[gc]
\tauto = 0
"""
"""The shadow repository's whole config. `gc.auto = 0`: its snapshots are trees nothing references,
which a gc would prune. `splitIndex`: a snapshot rewrites a small index of the changed entries, not
the whole (with the `write-tree` skipped when nothing changed: a fifth less a turn on 10,000 files)."""
EXCLUDED = ".git\n"
_GLOB = re.compile(r"([\\*?\[\]])")


def store_dir(home: Path, project: Path) -> Path:
    """Where the snapshots of `project` live."""
    digest = hashlib.sha256(os.fsencode(project)).hexdigest()[:16]
    return home / CHECKPOINTS_DIR / digest


class ShadowRepo:
    """Snapshots of one project's files. Methods raise `CheckpointError` (git failed) and
    `TooManyFiles`; they never touch the project's own `.git`."""

    def __init__(
        self, project: Path, home: Path, *, max_files: int = MAX_FILES, exclude: Sequence[Path] = ()
    ) -> None:
        self.project = project
        self.home = home
        self.dir = store_dir(home, project)
        self.git_dir = self.dir / "git"
        self.max_files = max_files
        self.excluded = excluded_paths(project, exclude)
        """The excluded paths inside the project, relative, with `/`."""
        self._counted = False
        self._options: list[str] = []

    def env(self) -> dict[str, str]:
        """The environment git runs in: the parent's, without its GIT_* variables, plus ours."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_DIR=str(self.git_dir),
            GIT_WORK_TREE=str(self.project),
            GIT_INDEX_FILE=str(self.git_dir / "index"),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_LITERAL_PATHSPECS="1",
            GIT_TERMINAL_PROMPT="0",
            GIT_AUTHOR_NAME="rein",
            GIT_AUTHOR_EMAIL="rein@localhost",
            GIT_COMMITTER_NAME="rein",
            GIT_COMMITTER_EMAIL="rein@localhost",
        )
        return env

    def _git(self, args: Sequence[str], *, stdin: bytes = b"", env: Mapping[str, str] | None = None) -> bytes:
        try:
            done = subprocess.run(
                ["git", *self._options, *args],
                input=stdin,
                capture_output=True,
                env=dict(env or self.env()),
                cwd=self.project,
                timeout=TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as error:
            raise CheckpointError(f"{self.dir}: git {args[0]}: {error}") from None
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip().splitlines()
            raise CheckpointError(f"{self.dir}: git {args[0]}: {said[-1] if said else done.returncode}")
        return done.stdout

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self._ensure()
        if self.excluded and not self._options:
            self._options = ["-c", f"core.excludesFile={self._exclude_file()}"]
        try:
            lock = (self.dir / "lock").open("a")
        except OSError as error:
            raise CheckpointError(f"{self.dir}: {error}") from None
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def exists(self) -> bool:
        """Whether the project has a shadow repository yet (a snapshot was taken before)."""
        return (self.git_dir / "HEAD").exists()

    def _ensure(self) -> None:
        if self.exists():
            return
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            (self.dir / "project").write_text(f"{self.project}\n", encoding="utf-8")
        except OSError as error:
            raise CheckpointError(f"{self.dir}: {error}") from None
        env = {k: v for k, v in self.env().items() if k not in ("GIT_DIR", "GIT_WORK_TREE")}
        self._git(["init", "--quiet", "--bare", str(self.git_dir)], env=env)
        try:
            (self.git_dir / "config").write_text(CONFIG, encoding="utf-8")
            (self.git_dir / "info").mkdir(exist_ok=True)
            (self.git_dir / "info" / "exclude").write_text(EXCLUDED + self._rein_home(), encoding="utf-8")
        except OSError as error:
            raise CheckpointError(f"{self.dir}: {error}") from None

    def _rein_home(self) -> str:
        """The exclude line for rein's own directory (sessions, these snapshots) when the project
        holds it, as when rein runs in the home directory itself."""
        try:
            inside = (self.home / ".rein").resolve().relative_to(self.project)
        except ValueError:
            return ""
        return f"/{inside.as_posix()}/\n"

    def _exclude_file(self) -> Path:
        """The file of this repository object's exclusions (named by its content, so hosts with
        different exclusions share the store), as `core.excludesFile`: the global config is off."""
        lines = "".join(_pattern(path) for path in self.excluded)
        file = self.dir / f"exclude-{hashlib.sha256(lines.encode()).hexdigest()[:12]}"
        try:
            if not file.exists():
                file.write_text(lines, encoding="utf-8")
        except OSError as error:
            raise CheckpointError(f"{self.dir}: {error}") from None
        return file

    def is_excluded(self, path: str) -> bool:
        return any(path == p or path.startswith(f"{p}/") for p in self.excluded)

    def count_files(self) -> int:
        """The files a snapshot takes: tracked in our index, or new and not ignored."""
        listed = self._git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        return listed.count(b"\0")

    def indexed(self) -> int:
        """The files in our index, from the headers (no git run): the last snapshot's size. A split
        index holds the entries changed since its shared index, which git rewrites whole once they
        pass 20% of it: the larger of the two counts is within that of the size, never above it."""
        shared = sorted(self.git_dir.glob("sharedindex.*"), key=_mtime)
        return max(_entries(path) for path in [self.git_dir / "index", *shared[-1:]])

    def snapshot(self) -> str:
        """Take the project's files as they are now; returns the tree id. `TooManyFiles` past
        `max_files`: the first snapshot of each repository object counts the files before it takes
        them, and each snapshot checks what it took, so a tree that grows huge stops the next ones."""
        with self._locked():
            if not self._counted:
                self._refuse(self.count_files())
                self._counted = True
            self._git(["add", "--all", "--ignore-errors", "--", "."])
            tree = self._unchanged()
            if tree is None:
                tree = self._git(["write-tree"]).decode().strip()
                self._remember(tree)
            self._refuse(self.indexed())
            return tree

    def _index_stat(self) -> str:
        try:
            seen = (self.git_dir / "index").stat()
        except OSError:
            return ""
        return f"{seen.st_ino}:{seen.st_size}:{seen.st_mtime_ns}"

    def _unchanged(self) -> str | None:
        """The last snapshot's tree when the index is the one it was written from (`git add` writes
        the index only when a file changed; a rewrite gets a new inode, by its lock file's rename)."""
        try:
            said = (self.dir / "tree").read_text(encoding="utf-8").split()
        except OSError:
            return None
        stat = self._index_stat()
        return said[1] if len(said) == 2 and stat and said[0] == stat else None

    def _remember(self, tree: str) -> None:
        stat = self._index_stat()
        try:
            (self.dir / "tree").write_text(f"{stat} {tree}\n" if stat else "", encoding="utf-8")
        except OSError:
            return  # the next snapshot runs `write-tree` again

    def _refuse(self, count: int) -> None:
        if count > self.max_files:
            raise TooManyFiles(
                f"{self.project} holds {count} files outside .gitignore (more than {self.max_files}):"
                " checkpoints are off; ignore the big directories in .gitignore to turn them on"
            )

    def changes(self, before: str, after: str) -> tuple[FileChange, ...]:
        """The files that differ between two snapshots, by path."""
        if before == after:
            return ()
        with self._locked():
            return tuple(FileChange(path=p, change=c) for p, c in self._diff(before, after))

    def _diff(self, old: str, new: str) -> list[tuple[str, Change]]:
        out = self._git(["diff-tree", "-r", "-z", "--no-renames", "--name-status", old, new])
        fields = out.split(b"\0")
        found = [
            (os.fsdecode(fields[i + 1]), change_of(fields[i].decode())) for i in range(0, len(fields) - 1, 2)
        ]
        return [(p, c) for p, c in found if not self.is_excluded(p)] if self.excluded else found

    def restore(self, tree: str, paths: frozenset[str], current: str) -> list[tuple[str, Change]]:
        """Put each of `paths` back as it is in `tree`: its content and mode, deleted when `tree` has
        no such file. `current` is a snapshot taken just now. Returns the paths that differed, each
        with how `tree` differs from now (added: recreated, deleted: removed)."""
        with self._locked():
            differing = [(p, c) for p, c in self._diff(current, tree) if p in paths]
            if differing:
                listed = b"".join(os.fsencode(p) + b"\0" for p, _ in differing)
                args = ["restore", f"--source={tree}", "--worktree", "--no-overlay"]
                self._git([*args, "--pathspec-from-file=-", "--pathspec-file-nul"], stdin=listed)
            return differing

    def blobs(self, wanted: Sequence[tuple[str, str]], limit: int) -> list[bytes | int | None]:
        """The content of each `(tree, path)`: its bytes, its size when larger than `limit` (not
        read), None when the tree has no such file (or the name cannot be asked for, a newline in it)."""
        asked = [(t, p) for t, p in wanted if "\n" not in p]
        with self._locked():
            lines = b"".join(f"{t}:{p}\n".encode() for t, p in asked)
            said = self._git(
                ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"], stdin=lines
            )
            found: dict[tuple[str, str], bytes | int | None] = {}
            small: list[tuple[tuple[str, str], str]] = []
            for key, line in zip(asked, said.decode().splitlines(), strict=True):
                oid, kind, size = [*line.split(), "", ""][:3]
                if kind != "blob":
                    found[key] = None
                elif int(size) > limit:
                    found[key] = int(size)
                else:
                    small.append((key, oid))
            listed = b"".join(f"{oid}\n".encode() for _, oid in small)
            out = self._git(["cat-file", "--batch"], stdin=listed) if small else b""
        at = 0
        for key, _ in small:  # each: "<oid> blob <size>\n<content>\n"
            head = out.index(b"\n", at)
            length = int(out[at:head].split()[2])
            found[key] = out[head + 1 : head + 1 + length]
            at = head + 1 + length + 1
        return [found.get(key) for key in wanted]

    def differing(self, old: str, new: str, paths: frozenset[str]) -> list[str]:
        """Which of `paths` differ between two snapshots."""
        with self._locked():
            return [p for p, _ in self._diff(old, new) if p in paths]


def excluded_paths(project: Path, paths: Sequence[Path]) -> tuple[str, ...]:
    """`paths` inside `project`, relative with `/` (links resolved on both sides); others dropped."""
    root = project.resolve()
    out: list[str] = []
    for path in paths:
        try:
            inside = path.resolve().relative_to(root).as_posix()
        except (ValueError, OSError):
            continue
        if inside != "." and inside not in out:
            out.append(inside)
    return tuple(out)


def _pattern(path: str) -> str:
    """An exclude line matching exactly `path` (a file or a directory) from the project's root;
    a name with a newline cannot be written as one, and is filtered from the changes only."""
    if "\n" in path:
        return ""
    escaped = _GLOB.sub(r"\\\1", path)
    return "/" + (escaped[:-1] + "\\ " if escaped.endswith(" ") else escaped) + "\n"


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _entries(path: Path) -> int:
    """The entry count in an index file's header."""
    try:
        with path.open("rb") as index:
            header = index.read(12)
    except OSError:
        return 0
    return int.from_bytes(header[8:12], "big") if header[:4] == b"DIRC" else 0
