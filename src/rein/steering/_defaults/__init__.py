"""rein's default rules: the commands that destroy work or hang the agent. Each can be disabled by name.

They are structured (command, subcommand, options read as the tool reads them, targets), not regexes
over the line, so `git push -uf`, `git push --forc` and `git push origin +main` are caught while
`git log -S "push --force"` and `echo 'git push --force'` are not. Each test answers UNKNOWN where a
word rein cannot read may decide (`git push "$X"`), and the rule then blocks with a reason saying so.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rein.steering._defaults._git import (
    branch_force_delete,
    checkout_discard,
    clean_force,
    force_push,
    reset_hard,
    restore_worktree,
    stash_drop,
)
from rein.steering._defaults._rm import rm_root
from rein.steering._defaults._server_rules import background_server, dev_server
from rein.steering._defaults._servers import COMMANDS
from rein.steering._rule import Matcher, Rule

SOURCE = "defaults"


def _rule(name: str, reason: str, matcher: Matcher) -> Rule:
    return Rule(name=name, source=SOURCE, reason=reason, matcher=matcher, origin="rein defaults")


GIT = frozenset({"git"})

DEFAULT_RULES: tuple[Rule, ...] = (
    _rule(
        "no-force-push",
        "Force-pushing rewrites the remote branch and can destroy other people's commits. Push"
        " normally, or ask the user; if a rewrite is really needed, use --force-with-lease.",
        Matcher(command=GIT, subcommand=(("push",), ("send-pack",)), test=force_push),
    ),
    _rule(
        "no-reset-hard",
        "git reset --hard (or --merge) throws away uncommitted work with no way back. Use"
        " `git stash` to set changes aside, or `git reset --soft`/`--mixed` to move HEAD only.",
        Matcher(command=GIT, subcommand=(("reset",),), test=reset_hard),
    ),
    _rule(
        "no-rm-root",
        "Recursive removal of /, a top-level directory, the home directory or everything in them would"
        " destroy the machine's or the user's files. Remove the specific directory you mean (e.g. ./build).",
        Matcher(command=frozenset({"rm", "find"}), test=rm_root),
    ),
    _rule(
        "no-git-clean-force",
        "git clean -f deletes untracked files, which git cannot bring back. Run `git clean -n`"
        " to see what it would remove and delete those paths explicitly, or ask the user.",
        Matcher(command=GIT, subcommand=(("clean",),), test=clean_force),
    ),
    _rule(
        "no-checkout-discard",
        "git checkout -- <paths> (or a path, or -f; git switch --discard-changes) overwrites uncommitted"
        " changes with no way back. Use `git stash` or `git diff` first, or ask the user.",
        Matcher(
            command=GIT,
            subcommand=(("checkout",), ("switch",), ("checkout-index",), ("read-tree",)),
            test=checkout_discard,
        ),
    ),
    _rule(
        "no-restore-worktree",
        "git restore discards uncommitted changes in the working tree with no way back."
        " Use `git restore --staged` to unstage only, or `git stash`.",
        Matcher(command=GIT, subcommand=(("restore",),), test=restore_worktree),
    ),
    _rule(
        "no-branch-force-delete",
        "git branch -D deletes a branch even when its commits are merged nowhere. Use"
        " `git branch -d`, which refuses to lose work, or ask the user.",
        Matcher(command=GIT, subcommand=(("branch",), ("update-ref",)), test=branch_force_delete),
    ),
    _rule(
        "no-stash-drop",
        "Dropping or clearing stashes deletes saved work with no way back. Leave the stash, or ask the user.",
        Matcher(
            command=GIT,
            subcommand=(("stash", "drop"), ("stash", "clear"), ("update-ref",), ("reflog",)),
            test=stash_drop,
        ),
    ),
    _rule(
        "no-dev-server",
        "This starts a server, watcher or log follower that never exits, so the shell would wait for it"
        " until the tool call times out. Start it in the background with its output in a file, e.g."
        " `npm run dev > /tmp/server.log 2>&1 & echo $! > /tmp/server.pid`, then poll it (`curl"
        " localhost:PORT`, `tail /tmp/server.log`) and stop it with `kill $(cat /tmp/server.pid)`; or"
        " run a one-shot build or test command instead (`vite build`, `vitest run`, `tail -n 100 FILE`).",
        Matcher(test=dev_server, tests_any_name=True, tried_on=COMMANDS),
    ),
)

OPTIONAL_RULES: Mapping[str, Rule] = MappingProxyType({
    "no-background-server": _rule(
        "no-background-server",
        "This leaves a server, watcher or log follower running in the background after the command"
        " returns, and this project does not allow that: nothing stops it when the agent's turn ends."
        " Run a one-shot build or test command instead, bound a smoke test with `timeout 60 ...`, or ask"
        " the user to start it.",
        Matcher(test=background_server, tests_any_name=True, tried_on=COMMANDS),
    ),
})  # fmt: skip
"""rein's opt-in rules by name, off unless a config file lists them in `enable_rules`."""
