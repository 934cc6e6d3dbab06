"""`default-branch-delete`: a `git push` that deletes the remote's default branch: `--delete` (`-d`)
with it among the refs (`git push origin --delete main`), or an empty source pushed to it
(`git push origin :main`). A feature branch is fine.

rein cannot know statically which branch the remote calls its default, so it takes the usual names
(main, master, trunk, develop) and, where the host lets it ask git, the branch the remote's HEAD points
at (`refs/remotes/<remote>/HEAD`, set by clone and `git remote set-head`). The push is read with git's
own option table, so an option's value is not taken for a branch. A branch rein cannot read (`--delete
$(git branch --show-current)`) may be the default one: UNKNOWN, unless the literal text of the word
already rules every default name out (`feature-$N`).
"""

from __future__ import annotations

from rein.steering._args import Args, git_args
from rein.steering._rule import Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, CommandRef, Unknown, Word

DEFAULT_BRANCHES = frozenset({"main", "master", "trunk", "develop"})
"""The names a remote's default branch usually has."""
_HEADS = "refs/heads/"


def deletes_default_branch(ref: CommandRef, context: Context) -> Tri:
    sub, args = git_args(ref)
    if sub != "push" or _dry_run(args) or len(args.operands) < 2:
        return False
    remote, refspecs = args.operands[0], args.operands[1:]
    delete = args.has("--delete", "-d")
    heads = _Heads(ref, context, remote)
    found: Tri = False
    for word in refspecs:
        if delete:
            answer = _is_default(word, heads)
        elif not word.dynamic and word.value.startswith(":"):
            answer = heads.named(word.value[1:].removeprefix(_HEADS))
        else:
            continue
        if answer is True:
            return True
        found = answer if isinstance(answer, Unknown) else found
    return found


class _Heads:
    """The default branch names, the remote's HEAD among them once asked (only when needed)."""

    def __init__(self, ref: CommandRef, context: Context, remote: Word) -> None:
        self._ref, self._context, self._remote = ref, context, remote
        self._asked = False
        self._head: str | None = None

    def head(self) -> str | None:
        if not self._asked:
            self._asked = True
            self._head = _remote_head(self._ref, self._context, self._remote)
        return self._head

    def named(self, name: str) -> bool:
        return name in DEFAULT_BRANCHES or name == self.head()

    def may_start(self, prefix: str) -> bool:
        head = self.head()
        return any(name.startswith(prefix) for name in DEFAULT_BRANCHES) or (
            head is not None and head.startswith(prefix)
        )


def _is_default(word: Word, heads: _Heads) -> Tri:
    """Whether the branch `word` names is a default branch; UNKNOWN for one rein cannot read, unless
    its literal start rules every default name out (`feature-$N`, `refs/heads/wip-$N`)."""
    if not word.dynamic:
        return heads.named(word.value.removeprefix(_HEADS))
    first = word.parts[0] if word.parts else ""
    if not isinstance(first, str) or not first or _HEADS.startswith(first):
        return UNKNOWN
    return UNKNOWN if heads.may_start(first.removeprefix(_HEADS)) else False


def _remote_head(ref: CommandRef, context: Context, remote: Word) -> str | None:
    """The branch `refs/remotes/<remote>/HEAD` names, when git can be asked; else None."""
    cwd = ref.state.cwd
    if context.git is None or isinstance(cwd, Unknown) or remote.dynamic:
        return None
    name = remote.value
    result = context.git.run(("symbolic-ref", "--quiet", "--short", f"refs/remotes/{name}/HEAD"), cwd)
    text = result.stdout.strip()
    if result.code != 0 or not text.startswith(f"{name}/"):
        return None
    return text[len(name) + 1 :] or None


def _dry_run(args: Args) -> bool:
    """`--dry-run`/`-n`, the last of them and `--no-dry-run` winning, as git reads them."""
    state = False
    for option, _ in args.options:
        if option in ("--dry-run", "-n"):
            state = True
        elif option == "--no-dry-run":
            state = False
    return state
