"""The git tests of the default rules. Each reads the subcommand's arguments as git does (the command
model already wrote out aliases, abbreviations and configuration), and answers UNKNOWN where a word
rein cannot read may be the flag or path that decides."""

from __future__ import annotations

import re

from rein.steering._args import Args, git_args, may_be_flag, may_split, unreadable
from rein.steering._rule import Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, Bounded, CommandRef, Expansion, Word

_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}\Z")


def _unknown_if(args: Args) -> Tri:
    return UNKNOWN if args.wild else False


def _last(args: Args, on: tuple[str, ...], off: tuple[str, ...]) -> bool:
    """Whether the last of the options `on` and `off` is one of `on` (git reads options in order:
    `--dry-run --no-dry-run` does run)."""
    state = False
    for name, _ in args.options:
        if name in on:
            state = True
        elif name in off:
            state = False
    return state


def _dry_run(args: Args) -> bool:
    return _last(args, ("--dry-run", "-n"), ("--no-dry-run",))


def _company(args: Args) -> Tri:
    """UNKNOWN when a word rein cannot read may be a flag that matters: not the only operand (`git
    branch "$OPT" old`), or one that may split into several (`xargs git branch`, `$ARGS`); a lone
    quoted word only names the branch (`git switch "$BR"`): as a flag it would leave none."""
    if not args.wild:
        return False
    flags = [word for word in args.operands if may_be_flag(word)]
    named = len(args.operands) > len(flags)
    return UNKNOWN if named or len(flags) != 1 or may_split(flags[0]) else False


def force_push(ref: CommandRef, context: Context) -> Tri:
    """`--force`, `-f`, `--mirror` or a `+refspec`; not with `--dry-run`, not `--force-with-lease`."""
    sub, args = git_args(ref)
    if _dry_run(args):
        return False
    force = _last(args, ("--force", "-f", "--mirror"), ("--no-force",))
    if sub == "send-pack":  # `git send-pack [--force] <remote> <refs>`: every operand after the remote
        return True if force or any(_plus(word) for word in args.operands[1:]) else _unknown_if(args)
    refspecs = args.operands[1:]
    if force or any(_plus(word) for word in refspecs):
        return True
    if any(unreadable(word) for word in refspecs):  # may start with `+`
        return UNKNOWN
    return _unknown_if(args)


def reset_hard(ref: CommandRef, context: Context) -> Tri:
    _, args = git_args(ref)
    return True if args.has("--hard", "--merge") else _unknown_if(args)


def _plus(word: Word) -> bool:
    """A refspec written with a leading `+` (`+main`, `+$(git branch --show-current)`)."""
    first = word.parts[0] if word.parts else word.value
    return isinstance(first, str) and first.startswith("+")


def clean_force(ref: CommandRef, context: Context) -> Tri:
    _, args = git_args(ref)
    if _dry_run(args):
        return False
    return True if args.has("--force", "-f") else _unknown_if(args)


def checkout_discard(ref: CommandRef, context: Context) -> Tri:
    """`git checkout` that overwrites work: paths after `--`, a tree-ish and paths, a path alone
    (`.`, `./x`, `:/`, a glob, `file.py`), `-f`; `git switch --discard-changes`/`-f`; and the plumbing
    that does the same (`git checkout-index -f`, `git read-tree -u --reset`)."""
    sub, args = git_args(ref)
    if sub == "checkout-index":
        return True if args.has("-f", "--force") else _unknown_if(args)
    if sub == "read-tree":
        return True if args.has("-u") and args.has("--reset") else _unknown_if(args)
    if args.has("--force", "-f", "--discard-changes"):
        return True
    if sub == "switch" or args.has("--patch", "-p"):
        return _company(args)
    if any(_below(word) for word in args.operands):  # `git checkout $(git ls-files -m)`: paths
        return True
    if args.has("--pathspec-from-file") or args.after_dashdash:
        return True
    operands = args.operands
    if args.after_dashdash is not None and len(operands) == 1:  # `git checkout NAME --`: NAME is a ref
        return _unknown_if(args)
    if args.has("-b", "-B", "--orphan", "--detach") or not operands:
        return _unknown_if(args)
    if len(operands) >= 2 or looks_like_path(operands[0].value):
        return True
    return UNKNOWN if unreadable(operands[0]) else _unknown_if(args)


def looks_like_path(value: str) -> bool:
    """A checkout operand git would read as a path rather than a branch: `.`, `./x`, `/x`, `:/`
    (pathspec magic), a glob, a trailing `/`, or a name with a file extension (`app.py`)."""
    if value in (".", "..") or value.startswith(("./", "../", "/", ":", "~")) or value.endswith("/"):
        return True
    return any(char in value for char in "*?[") or _EXTENSION.search(value) is not None


def restore_worktree(ref: CommandRef, context: Context) -> Tri:
    _, args = git_args(ref)
    staged_only = args.has("--staged", "-S") and not args.has("--worktree", "-W")
    if staged_only or args.has("--patch", "-p"):
        return False
    if args.operands or args.has("--pathspec-from-file"):
        return True
    return _unknown_if(args)


def branch_force_delete(ref: CommandRef, context: Context) -> Tri:
    """`-D`, or `-d`/`--delete` with `--force`; a word rein cannot read may be either (`_company`).
    `git update-ref -d refs/heads/x` deletes a branch too, merged or not."""
    sub, args = git_args(ref)
    if sub == "update-ref":
        return _deletes_ref(args, "refs/heads/")
    if args.has("-D") or (args.has("-d", "--delete") and args.has("-f", "--force")):
        return True
    return _company(args)


def stash_drop(ref: CommandRef, context: Context) -> Tri:
    """`git stash drop`/`clear`, and the plumbing that drops stashes: `git update-ref -d refs/stash`,
    `git reflog delete`/`expire` of the stash's entries."""
    sub, args = git_args(ref)
    if sub == "stash":
        return True
    if sub == "update-ref":
        return _deletes_ref(args, "refs/stash")
    words = [word.value for word in args.operands]
    if words[:1] in (["delete"], ["expire"]):
        return True if any("stash" in word for word in words[1:]) or args.has("--all") else _unknown_if(args)
    return False


def _deletes_ref(args: Args, prefix: str) -> Tri:
    """`git update-ref -d <ref>` for a ref under `prefix`."""
    if not args.has("-d"):
        return _unknown_if(args)
    if any(word.value.startswith(prefix) for word in args.operands if not word.dynamic):
        return True
    return UNKNOWN if any(word.dynamic for word in args.operands) else False


def _below(word: Word) -> bool:
    """A word whose value rein bounds to paths (what `git ls-files` or `find` prints)."""
    return any(
        isinstance(part, Expansion) and isinstance(part.value, Bounded) and part.value.kind == "below"
        for part in word.parts
    )
