"""The hooks a git command runs, and the programs an unknown subcommand names (githooks(5), git(1)).

A hook is an executable file in the hooks directory (`core.hooksPath`, else `.git/hooks`); git runs it
at fixed points of the commands below. Each one that exists is an inner command, run by its path, so
the walker reads it as any script on disk (`executable`): the person's leniently, one the agent wrote
strictly. A subcommand that is no git command and no alias runs `git-<name>` from git's exec path or
PATH, as git does.
"""

from __future__ import annotations

import posixpath

from rein.steering.bash.commands._git_config import Config
from rein.steering.bash.commands._git_repo import Repo, hooks_dir
from rein.steering.bash.commands._inner import Argv, Call, Inner
from rein.steering.bash.model import Word

_COMMIT = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")
_REFS = ("reference-transaction",)
_INDEX = ("post-index-change",)
HOOKS: dict[str, tuple[str, ...]] = {
    "commit": (*_COMMIT, *_REFS, *_INDEX, "post-rewrite"),
    "merge": ("pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge", *_REFS, *_INDEX),
    "pull": ("pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge", "pre-rebase",
             "post-rewrite", "post-checkout", *_REFS, *_INDEX),
    "push": ("pre-push", *_REFS),
    "checkout": ("post-checkout", *_REFS, *_INDEX),
    "switch": ("post-checkout", *_REFS, *_INDEX),
    "rebase": ("pre-rebase", "post-rewrite", "post-checkout", "prepare-commit-msg", *_REFS, *_INDEX),
    "am": ("applypatch-msg", "pre-applypatch", "post-applypatch", *_REFS, *_INDEX),
    "cherry-pick": ("prepare-commit-msg", "commit-msg", *_REFS, *_INDEX),
    "revert": ("prepare-commit-msg", "commit-msg", *_REFS, *_INDEX),
    "worktree": ("post-checkout", *_REFS),
    "gc": ("pre-auto-gc",),
    "maintenance": ("pre-auto-gc",),
    "fetch": _REFS,
    "reset": (*_REFS, *_INDEX),
    "branch": _REFS,
    "tag": _REFS,
    "update-ref": _REFS,
    "stash": (*_REFS, *_INDEX),
    "add": _INDEX,
    "restore": _INDEX,
    "rm": _INDEX,
    "mv": _INDEX,
    "status": _INDEX,
    "apply": _INDEX,
    "send-email": ("sendemail-validate",),
}  # fmt: skip
"""The hooks each subcommand may run (including ones it runs only in some modes: rein cannot always
tell which, and a hook that does not run only costs a read)."""
_SKIPPED = frozenset(
    {"pre-commit", "commit-msg", "pre-merge-commit", "pre-push", "applypatch-msg", "pre-applypatch"}
)
"""Hooks `--no-verify` (`-n` for commit) skips."""
_EXEC_PATHS = ("/usr/lib/git-core", "/usr/libexec/git-core", "/usr/local/libexec/git-core")


def hooks(call: Call, repo: Repo, config: Config, sub: str, rest: Argv) -> list[Inner]:
    """The hooks `git <sub> rest...` runs that exist and are executable."""
    names = list(HOOKS.get(sub, ()))
    if sub == "hook" and len(rest) >= 2 and rest[0].value == "run" and not rest[1].dynamic:
        names = [rest[1].value]  # `git hook run NAME`
    if not names or call.disk is None:
        return []
    given = {word.value for word in rest}
    if "--no-verify" in given or (sub == "commit" and "-n" in given):
        names = [name for name in names if name not in _SKIPPED]
    directory = hooks_dir(repo, config.disk)
    inners: list[Inner] = []
    for name in names:
        path = f"{directory}/{name}"
        found = call.disk.read(path)
        if found is None or not found.executable:
            continue
        why = f"git {sub} runs its {name} hook, {call.disk.label(path)}"
        inners.append(Inner(f"git hook {name}", "child", argv=(Word.literal(path),), why=why))
    return inners


def external(call: Call, sub: str, rest: Argv) -> Inner | None:
    """`git NAME` for a NAME that is no git command and no alias: the `git-NAME` program git runs."""
    if call.disk is None or "/" in sub or not sub:
        return None
    found = next(
        (f"{base}/git-{sub}" for base in _EXEC_PATHS if call.disk.exists(f"{base}/git-{sub}")), None
    ) or call.disk.which(f"git-{sub}")
    if found is None:
        return None
    why = f"git {sub} runs the program {found}"
    return Inner(f"git {sub}", "child", argv=(Word.literal(found), *rest), why=why)


def exec_path_program(path: str) -> bool:
    """Whether `path` is in one of git's usual exec paths (`/usr/lib/git-core/git-push`)."""
    return posixpath.dirname(path) in _EXEC_PATHS
