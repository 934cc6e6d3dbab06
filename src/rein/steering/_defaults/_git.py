"""The git tests of the default rules. Each reads the subcommand's arguments as git does (the command
model already wrote out aliases, abbreviations and configuration), and answers UNKNOWN where a word
rein cannot read may be the flag or path that decides."""

from __future__ import annotations

import re

from rein.steering._args import Args, git_args, may_be_flag, may_split, unreadable
from rein.steering._rule import Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, CommandRef

_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}\Z")


def _unknown_if(args: Args) -> Tri:
    return UNKNOWN if args.wild else False


def force_push(ref: CommandRef, context: Context) -> Tri:
    """`--force`, `-f`, `--mirror` or a `+refspec`; not with `--dry-run`, not `--force-with-lease`."""
    _, args = git_args(ref)
    if args.has("--dry-run", "-n"):
        return False
    force = False
    for name, _ in args.options:
        if name in ("--force", "-f", "--mirror"):
            force = True
        elif name == "--no-force":
            force = False
    refspecs = args.operands[1:]
    if force or any(word.value.startswith("+") and not word.dynamic for word in refspecs):
        return True
    if any(unreadable(word) for word in refspecs):  # may start with `+`
        return UNKNOWN
    return _unknown_if(args)


def reset_hard(ref: CommandRef, context: Context) -> Tri:
    _, args = git_args(ref)
    return True if args.has("--hard", "--merge") else _unknown_if(args)


def clean_force(ref: CommandRef, context: Context) -> Tri:
    _, args = git_args(ref)
    if args.has("--dry-run", "-n"):
        return False
    return True if args.has("--force", "-f") else _unknown_if(args)


def checkout_discard(ref: CommandRef, context: Context) -> Tri:
    """`git checkout` that overwrites work: paths after `--`, a tree-ish and paths, a path alone
    (`.`, `./x`, `:/`, a glob, `file.py`), `-f`; and `git switch --discard-changes`/`-f`."""
    sub, args = git_args(ref)
    if args.has("--force", "-f", "--discard-changes"):
        return True
    if sub == "switch" or args.has("--patch", "-p"):
        return _unknown_if(args)
    if args.has("--pathspec-from-file") or args.after_dashdash:
        return True
    operands = args.operands
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
    """`-D`, or `-d`/`--delete` with `--force`. A word rein cannot read may be `-D` (or `-f`) when it is
    not the only operand (`git branch "$OPT" old`) or may split into several (`xargs git branch`); a
    lone quoted one only names the branch (`git branch "$NAME"`, `git branch -d "$MERGED"`): as a
    flag it would leave no branch to delete."""
    _, args = git_args(ref)
    if args.has("-D") or (args.has("-d", "--delete") and args.has("-f", "--force")):
        return True
    if not args.wild:
        return False
    flags = [word for word in args.operands if may_be_flag(word)]
    named = len(args.operands) > len(flags)
    if named or not flags or any(may_split(word) for word in flags):
        return UNKNOWN
    return False
