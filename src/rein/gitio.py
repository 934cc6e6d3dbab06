"""What hosts give the steering engine: the branch from `.git/HEAD`, a `GitPort` that runs git, and
the `Context` built from them.

Hosts (the CLI, hook adapters, the agent session) use these; the steering engine only sees the port.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from rein.diskio import HostFiles
from rein.steering import Context, EntryStore, GitResult, MemoryEntries


class SubprocessGit:
    """The `GitPort` for the CLI: runs git, never raises (a failure is a non-zero code)."""

    def run(self, args: Sequence[str], cwd: str) -> GitResult:
        try:
            done = subprocess.run(
                ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return GitResult(code=127)
        return GitResult(code=done.returncode, stdout=done.stdout)


def current_branch(cwd: Path) -> str | None:
    """The branch checked out at `cwd`, read from `.git/HEAD` without starting git (hooks run often)."""
    for directory in (cwd, *cwd.parents):
        dot_git = directory / ".git"
        try:
            if dot_git.is_file():
                pointer = dot_git.read_text(encoding="utf-8").strip()
                if not pointer.startswith("gitdir:"):
                    return None
                dot_git = (directory / pointer.removeprefix("gitdir:").strip()).resolve()
            if dot_git.is_dir():
                head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
                return head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else None
        except OSError:
            return None
    return None


def host_context(
    cwd: str,
    home: str,
    *,
    branch: str | None = None,
    agent_loop: int = 0,
    entries: EntryStore | None = None,
    env: Mapping[str, str] | None = None,
) -> Context:
    """A host's steering `Context`: HOME (plus `env`) in the environment, the branch read from
    `.git/HEAD` unless given, git run as a subprocess, the files a command runs read from disk."""
    return Context(
        cwd=cwd,
        home=home,
        env={"HOME": home, **(env or {})},
        branch=branch if branch is not None else current_branch(Path(cwd)),
        agent_loop=agent_loop,
        entries=entries if entries is not None else MemoryEntries(),
        git=SubprocessGit(),
        files=HostFiles(),
    )
