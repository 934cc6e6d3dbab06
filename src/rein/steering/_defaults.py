"""rein's default rules: the commands that destroy work or hang the agent. Each can be disabled by name.

They are structured (command, subcommand, flags, targets), not regexes over the line, so
`git push -uf` and `git push origin +main` are caught while `git log -S "push --force"` and
`echo 'git push --force'` are not.
"""

from __future__ import annotations

import posixpath
from itertools import dropwhile, takewhile

from rein.steering._match import positionals
from rein.steering._rule import Matcher, Rule, Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, CommandRef, Unknown, Word
from rein.steering.bash._words import lookup

SOURCE = "defaults"


def _wild_args(ref: CommandRef) -> bool:
    return any(word.dynamic and not word.raw.startswith(("'", '"')) for word in ref.args)


def _force_push(ref: CommandRef, context: Context) -> Tri:
    flags = set(ref.flags())
    if flags & {"--force", "-f"}:
        return True
    refspecs = positionals(ref)[1:]
    if any(word.value.startswith("+") for word in refspecs):
        return True
    return UNKNOWN if _wild_args(ref) else False


def _target(word: Word, ref: CommandRef, context: Context) -> str | Unknown:
    """A path argument made absolute; a glob stays a pattern (`cd / && rm -rf *` targets `/*`).

    Variables are read as the shell expanded the command's words: with its own variables, not the
    command's prefix or wrapper ones (`D=/; env D=/tmp/x rm -rf "$D"/*` removes `/*`), and only those
    the command line left: one it unset is unknown, even if the context knew it before. The one
    fallback is bash's: `~` with HOME certainly unset is the user's home (from the user database)."""
    env = ref.state.expansion
    parts: list[str] = []
    for part in word.parts or (word.value,):
        if isinstance(part, str):
            parts.append(part)
            continue
        if part.kind == "glob":
            parts.append(part.raw)
            continue
        value = lookup(part, env)
        if isinstance(value, Unknown) and part.raw == "~" and "HOME" not in env:
            value = context.home
        if isinstance(value, Unknown):
            return UNKNOWN
        parts.append(value)
    value = "".join(parts)
    if not value.startswith("/"):
        if isinstance(ref.state.cwd, Unknown):
            # A plain relative path stays below the unknown cwd; `..` could climb to home or `/`.
            return UNKNOWN if ".." in value.split("/") else "relative"
        value = posixpath.join(ref.state.cwd, value)
    return posixpath.normpath(value).replace("//", "/")


def _is_root_or_home(path: str, home: str) -> bool:
    for suffix in ("/*", "/.*", "/."):
        if path.endswith(suffix):
            path = path[: -len(suffix)] or "/"
    home = posixpath.normpath(home)
    return path in {"/", home, posixpath.dirname(home)}


# Wrappers that append arguments at run time (`xargs rm -rf`, `find / -exec rm -rf {} +`).
_ARG_FEEDERS = frozenset({"xargs", "parallel", "find", "fd"})


def _root_targets(words: list[Word], ref: CommandRef, context: Context) -> Tri:
    unknown = False
    for word in words:
        target = _target(word, ref, context)
        if isinstance(target, Unknown) or word.value == "{}":
            unknown = True
        elif _is_root_or_home(target, context.home):
            return True
    return UNKNOWN if unknown else False


def _rm_root(ref: CommandRef, context: Context) -> Tri:
    if ref.name == "find":
        if "-delete" not in {word.value for word in ref.args}:
            return False
        args = list(dropwhile(lambda w: w.value in {"-H", "-L", "-P"}, ref.args))
        starts = list(takewhile(lambda w: not w.value.startswith(("-", "(", "!")), args))
        return _root_targets(starts, ref, context)
    if not set(ref.flags()) & {"-r", "-R", "--recursive"}:
        return False
    found = _root_targets(positionals(ref), ref, context)
    if found is False and any(w.split()[0] in _ARG_FEEDERS for w in ref.wrappers):
        return UNKNOWN
    return found


def _checkout_discard(ref: CommandRef, context: Context) -> Tri:
    values = [word.value for word in ref.args]
    if "--" in values:
        return len(values) > values.index("--") + 1
    rest = positionals(ref)[1:]
    return [word.value for word in rest] == ["."]


def _restore_worktree(ref: CommandRef, context: Context) -> Tri:
    flags = set(ref.flags())
    staged_only = bool(flags & {"--staged", "-S"}) and not flags & {"--worktree", "-W"}
    return not staged_only and len(positionals(ref)) > 1


def _branch_force_delete(ref: CommandRef, context: Context) -> Tri:
    flags = set(ref.flags())
    return "-D" in flags or bool(flags & {"-d", "--delete"} and flags & {"-f", "--force"})


# Long-running servers and watchers: they never exit, so the agent's shell hangs until its timeout.
_PACKAGE_SCRIPTS = frozenset({"dev", "start", "serve", "watch", "preview", "develop"})
_SERVERS: dict[str, tuple[str, ...] | None] = {
    # name: subcommands that serve (None: the command itself serves)
    "next": ("dev", "start"),
    "nuxt": ("dev",),
    "nuxi": ("dev",),
    "astro": ("dev",),
    "vite": ("", "dev", "serve", "preview"),
    "webpack-dev-server": None,
    "nodemon": None,
    "live-server": None,
    "http-server": None,
    "serve": None,
    "uvicorn": None,
    "gunicorn": None,
    "hypercorn": None,
    "watchexec": None,
    "ng": ("serve",),
    "react-scripts": ("start",),
    "gatsby": ("develop",),
    "flask": ("run",),
    "rails": ("s", "server"),
    "hugo": ("server", "serve"),
    "jekyll": ("serve", "s"),
}
_WATCH_FLAGS = frozenset({"--watch", "-w", "--watchAll"})
_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_PACKAGE_RUNNERS = frozenset({"npx", "bunx", "pnpx"})
_WATCHERS = frozenset({"tsc", "webpack", "jest", "rollup", "esbuild", "sass", "tailwindcss"})
_CONTAINERS = frozenset({"docker", "docker-compose", "podman"})
# Each name spelled out (not a prefix test) so the engine's per-command index of rules still works.
_PYTHONS = frozenset({"python", "python3", *(f"python3.{minor}" for minor in range(8, 15)), "pypy", "pypy3"})
_DEV_SERVER_COMMANDS = frozenset({
    *_PACKAGE_MANAGERS, *_PACKAGE_RUNNERS, *_WATCHERS, *_CONTAINERS, *_PYTHONS, *_SERVERS,
    "vitest", "cargo", "php",
})  # fmt: skip
"""Every command `_dev_server` can say yes to: the no-dev-server rule's command list."""


def _dev_server(ref: CommandRef, context: Context) -> Tri:
    name = ref.name
    words = [word.value for word in positionals(ref)]
    first = words[0] if words else ""
    flags = set(ref.flags())
    if name in _PACKAGE_MANAGERS:
        script = words[1] if first == "run" and len(words) > 1 else first
        return script in _PACKAGE_SCRIPTS
    if name in _PACKAGE_RUNNERS and words:
        name, words = posixpath.basename(first), words[1:]
        first = words[0] if words else ""
    if name in _SERVERS:
        subs = _SERVERS[name]
        return subs is None or first in subs
    if name in _WATCHERS:
        return bool(flags & _WATCH_FLAGS) or (name == "webpack" and first == "serve")
    if name == "vitest":
        return first not in {"run", "bench", "list"} and "--run" not in flags
    if name in _PYTHONS and ref.args:
        module = [word.value for word in ref.args[:2]]
        return module == ["-m", "http.server"] or (first.endswith("manage.py") and "runserver" in words)
    if name == "cargo":
        return first == "watch"
    if name in _CONTAINERS:
        up = words[:2] == ["compose", "up"] or (name == "docker-compose" and first == "up")
        return up and not flags & {"-d", "--detach"}
    if name == "php":
        return "-S" in flags or words[:2] == ["artisan", "serve"]
    return False


def _rule(name: str, reason: str, matcher: Matcher) -> Rule:
    return Rule(name=name, source=SOURCE, reason=reason, matcher=matcher, origin="rein defaults")


GIT = frozenset({"git"})

DEFAULT_RULES: tuple[Rule, ...] = (
    _rule(
        "no-force-push",
        "Force-pushing rewrites the remote branch and can destroy other people's commits. Push"
        " normally, or ask the user; if a rewrite is really needed, use --force-with-lease.",
        Matcher(command=GIT, subcommand=(("push",),), test=_force_push),
    ),
    _rule(
        "no-reset-hard",
        "git reset --hard (or --merge) throws away uncommitted work with no way back. Use"
        " `git stash` to set changes aside, or `git reset --soft`/`--mixed` to move HEAD only.",
        Matcher(command=GIT, subcommand=(("reset",),), flags=frozenset({"--hard", "--merge"})),
    ),
    _rule(
        "no-rm-root",
        "Recursive removal of /, the home directory or everything in them would destroy the"
        " machine's or the user's files. Remove the specific directory you mean (e.g. ./build).",
        Matcher(command=frozenset({"rm", "find"}), test=_rm_root),
    ),
    _rule(
        "no-git-clean-force",
        "git clean -f deletes untracked files, which git cannot bring back. Run `git clean -n`"
        " to see what it would remove and delete those paths explicitly, or ask the user.",
        Matcher(
            command=GIT,
            subcommand=(("clean",),),
            flags=frozenset({"-f", "--force"}),
            not_flags=frozenset({"-n", "--dry-run"}),
        ),
    ),
    _rule(
        "no-checkout-discard",
        "git checkout -- <paths> overwrites uncommitted changes in those files with no way back."
        " Use `git stash` or `git diff` first, or ask the user.",
        Matcher(command=GIT, subcommand=(("checkout",),), test=_checkout_discard),
    ),
    _rule(
        "no-restore-worktree",
        "git restore discards uncommitted changes in the working tree with no way back."
        " Use `git restore --staged` to unstage only, or `git stash`.",
        Matcher(command=GIT, subcommand=(("restore",),), test=_restore_worktree),
    ),
    _rule(
        "no-branch-force-delete",
        "git branch -D deletes a branch even when its commits are merged nowhere. Use"
        " `git branch -d`, which refuses to lose work, or ask the user.",
        Matcher(command=GIT, subcommand=(("branch",),), test=_branch_force_delete),
    ),
    _rule(
        "no-stash-drop",
        "Dropping or clearing stashes deletes saved work with no way back. Leave the stash, or ask the user.",
        Matcher(command=GIT, subcommand=(("stash", "drop"), ("stash", "clear"))),
    ),
    _rule(
        "no-dev-server",
        "This starts a long-running server or watcher that never exits, so the shell would hang"
        " until it times out. Ask the user to run it, or use a one-shot build or test command.",
        Matcher(command=_DEV_SERVER_COMMANDS, test=_dev_server),
    ),
)
