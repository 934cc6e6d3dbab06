"""What `rein check` and `rein explain` share: the policy for a directory, the context, a git port."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from rein.gitio import host_context
from rein.steering import Context, Steering, Verdict, load_policy


def command_text(words: Sequence[str]) -> str:
    """One argument is taken as written (`rein check -- 'a && b'`); several are re-quoted."""
    return words[0] if len(words) == 1 else shlex.join(words)


class Checker:
    """Builds contexts and caches one `Steering` per working directory."""

    def __init__(self, home: Path | None = None) -> None:
        self.home = home or Path.home()
        self._engines: dict[Path, Steering] = {}
        self.warnings: list[str] = []

    def engine(self, cwd: Path) -> Steering:
        if cwd not in self._engines:
            built = load_policy(cwd, self.home)
            self.warnings.extend(built.warnings)
            self._engines[cwd] = Steering(built.policy)
        return self._engines[cwd]

    def context(self, cwd: Path, branch: str | None) -> Context:
        oldpwd = os.environ.get("OLDPWD")  # `cd -` in a checked command goes where the user came from
        return host_context(
            str(cwd), str(self.home), branch=branch, env={"OLDPWD": oldpwd} if oldpwd is not None else None
        )


def decision(verdict: Verdict) -> str:
    """`allow`, `block`, or `ask` (a pack rule that asks the person; blocked where nobody answers)."""
    return "allow" if verdict.allow else "ask" if verdict.ask else "block"
