"""`git checkout NAME` as the repository decides it: a branch switch when NAME is a ref, a discard of
NAME's changes when it is a path and no ref (git's own order: git-checkout(1), "ARGUMENT
DISAMBIGUATION").

Without the repository rein can only guess from the spelling (`deps/python-3.12.x` looks like a path,
`lib` like a branch); with it, the argv is written out the way git reads it: `git checkout NAME --`
for a ref, `git checkout -- NAME` for a path, so the rules read the meaning.
"""

from __future__ import annotations

import posixpath

from rein.steering.bash.commands._git_config import Config
from rein.steering.bash.commands._git_options import git_spec
from rein.steering.bash.commands._git_repo import is_ref
from rein.steering.bash.commands._inner import Argv, Call
from rein.steering.bash.commands._options import Options, parse
from rein.steering.bash.model import Word

_DASHDASH = Word.literal("--")


def disambiguate(call: Call, config: Config, argv: Argv, index: int) -> tuple[Argv, str]:
    """`git checkout NAME` (one operand, no `--`, no `-b`) as git reads it in this repository, and
    why; the argv unchanged when rein cannot ask the repository."""
    disk, repo, cwd = call.disk, config.repo, call.state.cwd
    if disk is None or repo is None or not isinstance(cwd, str):
        return argv, ""
    parsed = parse(argv, index + 1, git_spec("checkout") or Options())
    words = [word.value for word in argv[index + 1 :]]
    if len(parsed.operands) != 1 or "--" in words or parsed.has("-b", "-B", "--orphan", "--detach"):
        return argv, ""
    name = parsed.operands[0]
    if name.dynamic:
        return argv, ""
    remotes = sorted(
        {key.split(".")[1] for key in config.disk if key.startswith("remote.") and key.count(".") >= 2}
    )
    if is_ref(disk, repo, name.value, remotes):
        return (*argv, _DASHDASH), f"'{name.value}' is a ref of this repository, so git checks it out"
    if disk.exists(posixpath.normpath(posixpath.join(cwd, name.value))):
        at = argv.index(name)
        rewritten = (*argv[:at], _DASHDASH, *argv[at:])
        return rewritten, f"'{name.value}' is a path and no ref of this repository: git discards its changes"
    return argv, ""
