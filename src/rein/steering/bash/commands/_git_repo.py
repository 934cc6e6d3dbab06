"""A git repository as git finds it on disk: its git directory, the configuration a command reads (with
its includes), the refs it has, and its hooks.

Read through the analysis's disk view (`call.disk`), so a read is bounded, logged, and says whose file
it was. git's own rules are followed where they decide what a command does: the repository is the
nearest `.git` up from where git runs (`GIT_DIR` wins; a `.git` file says `gitdir: ...`), configuration
is read system, global, local, worktree, in that order, `include.path` and `includeIf` (`gitdir:`,
`gitdir/i:`, `onbranch:`) are followed where they are read, and `GIT_CONFIG_NOSYSTEM`,
`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM` are honoured.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from rein.steering.bash._disk import DiskView
from rein.steering.bash.commands._git_config_file import parse_config
from rein.steering.bash.model import Unknown

_MAX_INCLUDES = 10
_HASH = re.compile(r"[0-9a-fA-F]{4,64}")
_REVISION = re.compile(r"[~^@{}:]|\.\.")


@dataclass(frozen=True, slots=True)
class Repo:
    """Where a repository's files are."""

    git_dir: str
    common: str
    """The common directory (`commondir` of a linked worktree): config, refs and hooks live there."""


@dataclass(frozen=True, slots=True)
class Value:
    """A configuration value from a file on disk: where it is set, and whether that file is the
    person's (read leniently) or one the agent wrote this session."""

    text: str
    where: str
    lenient: bool


def find_repo(disk: DiskView, cwd: str, env: Mapping[str, str | Unknown]) -> Repo | None:
    """The repository git uses when run in `cwd`."""
    given = env.get("GIT_DIR")
    if isinstance(given, Unknown):
        return None
    if given:
        git_dir = posixpath.normpath(posixpath.join(cwd, given))
        return Repo(git_dir, _common(disk, git_dir))
    directory = cwd
    for _ in range(64):
        dot = f"{directory.rstrip('/')}/.git"
        if disk.exists(dot):
            found = disk.read(dot)
            if found is not None and found.text is not None and found.text.startswith("gitdir:"):
                pointer = found.text.removeprefix("gitdir:").strip()
                git_dir = posixpath.normpath(posixpath.join(directory, pointer))
                return Repo(git_dir, _common(disk, git_dir))
            if found is None:
                return Repo(dot, dot)
            return None  # a `.git` file rein cannot read
        if directory == "/":
            return None
        directory = posixpath.dirname(directory)
    return None


def _common(disk: DiskView, git_dir: str) -> str:
    found = disk.read(f"{git_dir}/commondir")
    if found is None or found.text is None or not found.text.strip():
        return git_dir
    return posixpath.normpath(posixpath.join(git_dir, found.text.strip()))


def read_config(
    disk: DiskView,
    repo: Repo | None,
    home: str,
    env: Mapping[str, str | Unknown],
    branch: object = None,
) -> dict[str, Value]:
    """Every key the configuration files on disk set, the last setting winning as in git."""
    files: list[str] = []
    if not _set(env.get("GIT_CONFIG_NOSYSTEM")):
        system = env.get("GIT_CONFIG_SYSTEM")
        files.append(system if isinstance(system, str) and system else "/etc/gitconfig")
    glob = env.get("GIT_CONFIG_GLOBAL")
    if isinstance(glob, str) and glob:
        files.append(_home(glob, home))
    elif not isinstance(glob, Unknown):
        xdg = env.get("XDG_CONFIG_HOME")
        base = xdg if isinstance(xdg, str) and xdg else f"{home}/.config"
        files += [f"{base}/git/config", f"{home}/.gitconfig"]
    if repo is not None:
        files += [f"{repo.common}/config", f"{repo.git_dir}/config.worktree"]
    values: dict[str, Value] = {}
    reader = _Reader(disk, repo, home, branch, values)
    for path in files:
        reader.file(path, 0)
    return values


class _Reader:
    def __init__(
        self, disk: DiskView, repo: Repo | None, home: str, branch: object, values: dict[str, Value]
    ) -> None:
        self.disk, self.repo, self.home, self.branch, self.values = disk, repo, home, branch, values
        self.includes = 0

    def file(self, path: str, depth: int) -> None:
        found = self.disk.read(path)
        if found is None or found.text is None:
            return
        label = self.disk.label(path)
        for key, value, line in parse_config(found.text):
            if key == "include.path" or (key.startswith("includeif.") and key.endswith(".path")):
                if depth < _MAX_INCLUDES and self.includes < _MAX_INCLUDES * 4 and self._applies(key):
                    self.includes += 1
                    self.file(
                        posixpath.normpath(posixpath.join(posixpath.dirname(path), _home(value, self.home))),
                        depth + 1,
                    )
                continue
            self.values[key] = Value(value, f"{label}:{line}", not found.agent)

    def _applies(self, key: str) -> bool:
        """Whether an `includeIf.<condition>.path` applies (a condition rein cannot judge does)."""
        if key == "include.path":
            return True
        condition = key[len("includeif.") : -len(".path")]
        kind, _, pattern = condition.partition(":")
        if kind in ("gitdir", "gitdir/i"):
            if self.repo is None:
                return False
            pattern = _home(pattern, self.home)
            if not pattern.startswith(("/", "**")):
                pattern = f"**/{pattern}"
            if pattern.endswith("/"):
                pattern += "**"
            folded = kind == "gitdir/i"
            subject = self.repo.git_dir.lower() if folded else self.repo.git_dir
            return fnmatchcase(subject, pattern.lower() if folded else pattern)
        if kind == "onbranch":
            if not isinstance(self.branch, str):
                return True
            pattern = f"{pattern}**" if pattern.endswith("/") else pattern
            return fnmatchcase(self.branch, pattern)
        return True


def _home(path: str, home: str) -> str:
    return home + path[1:] if path == "~" or path.startswith("~/") else path


def _set(value: object) -> bool:
    return isinstance(value, str) and value.lower() not in ("", "0", "false", "no", "off")


def is_ref(disk: DiskView, repo: Repo, name: str, remotes: list[str]) -> bool:
    """Whether `name` names a commit the way `git checkout NAME` takes it: a branch, a tag, a
    remote-tracking branch it would create a branch from, HEAD, a commit id, a revision expression."""
    if (
        name in ("HEAD", "@", "-", "FETCH_HEAD", "ORIG_HEAD")
        or _REVISION.search(name)
        or _HASH.fullmatch(name)
    ):
        return True
    candidates = [f"refs/heads/{name}", f"refs/tags/{name}", name if name.startswith("refs/") else ""]
    candidates += [f"refs/remotes/{remote}/{name}" for remote in remotes]
    candidates += [f"refs/remotes/{name}"]
    if any(ref and disk.exists(f"{repo.common}/{ref}") for ref in candidates):
        return True
    packed = disk.read(f"{repo.common}/packed-refs")
    if packed is None or packed.text is None:
        return False
    listed = {line.partition(" ")[2] for line in packed.text.splitlines() if line[:1] not in ("#", "^")}
    return any(ref in listed for ref in candidates if ref) or any(
        ref.startswith("refs/remotes/") and ref.endswith(f"/{name}") for ref in listed
    )


def hooks_dir(repo: Repo, config: Mapping[str, Value]) -> str:
    """Where git looks for hooks: `core.hooksPath` (relative to the work tree's top), else `hooks`."""
    path = config.get("core.hookspath")
    if path is None or not path.text:
        return f"{repo.common}/hooks"
    top = posixpath.dirname(repo.git_dir) if repo.git_dir.endswith("/.git") else repo.git_dir
    return posixpath.normpath(posixpath.join(top, path.text))
