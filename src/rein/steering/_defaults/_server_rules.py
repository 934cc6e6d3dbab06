"""`no-dev-server` and `no-background-server`: a command that never exits, and where it runs.

A server, watcher or follower in the foreground holds the agent's shell until the host's time limit:
`no-dev-server` blocks it. One started in the background lets the turn go on, so the agent can start
what it builds, `curl` it and stop it: `cmd > log 2>&1 &`, `nohup cmd &`, `setsid -f`, a tmux window or
a detached screen session (the walk marks these refs `background`), `systemd-run` without `--scope`,
`--wait`, `--pty` or `--pipe`, `daemonize`, `start-stop-daemon --start --background`. The opt-in
`no-background-server` blocks exactly those. Neither blocks what a tool detaches and manages itself
(`docker run -d`, `compose up -d`, `pm2 start`, `redis-server --daemonize yes`, `mongod --fork`), nor
what runs under `timeout`.

Every command is read, by its entry in `_server_tables` when it has one. A tool rein does not know is
read by its options: `--watch`, `--reload`, `--serve`, `--hot`, `--livereload`, `--dev-server` or
`--follow` make it watch, serve or follow (`cdk deploy --watch`, `aws logs tail --follow`), except for
tools where they mean something else (`firewall-cmd --reload`, `http --follow`); and a listed server
among its arguments is checked as if run (`mprocs 'redis-server'`), as the walk does for the names the
command model knows.
"""

from __future__ import annotations

from functools import cache

from rein.steering._args import read
from rein.steering._defaults import _server_tables as t
from rein.steering._defaults._server_kit import FALSY
from rein.steering._defaults._server_launch import LAUNCHERS, MANAGED
from rein.steering._defaults._server_read import Words, any_of, argv
from rein.steering._defaults._servers import COMMANDS, key, serves
from rein.steering._rule import Tri
from rein.steering._types import Context
from rein.steering.bash import CommandRef, Word
from rein.steering.bash.commands import KNOWN, tool_spec


def dev_server(ref: CommandRef, context: Context) -> Tri:
    """`no-dev-server`: a command that never exits, run where the shell waits for it. A program named
    only at run time (`$X`, `subprocess.run([exe, ...])`) is not taken for a server: that a name rein
    cannot see serves is no finding (what else it may run the engine weighs by its arguments)."""
    return False if ref.name_dynamic else _never_exits(ref, background=False)


def background_server(ref: CommandRef, context: Context) -> Tri:
    """`no-background-server`: a command that never exits, started in the background or detached."""
    return False if ref.name_dynamic else _never_exits(ref, background=True)


def _never_exits(ref: CommandRef, background: bool) -> Tri:
    name = ref.name
    if (name not in COMMANDS and ref.kind != "unknown") or not ref.argv or _outer_reads(ref):
        return False  # `git status`, `ls`: the common case, at once
    name = key(ref.argv[0].value) if name == "dev" else name  # `bin/dev`
    for label in ref.wrappers:  # outermost first: `timeout 9 watch x` ends, `watch timeout 9 x` does not
        words = label.split() or [""]
        if words[0] in ("timeout", "gtimeout") or (words[0] in t.ENGINES and {"-d", "--detach"} & {*words}):
            return False
        if words[0] in t.REPEATERS:  # rerun forever, where the watcher left the verdict to this ref
            return ref.background == background and name in COMMANDS
    launch = LAUNCHERS[name](ref.args) if name in LAUNCHERS else None
    if launch is not None and (launch[0] or ref.background):
        command = launch[1]
        return background and bool(command) and serves(command[0], command[1:])
    if ref.background != background:
        return False
    if name in t.REPEATERS and _reruns_listed(ref):
        return False  # checked on the command it reruns, after the rules about that command
    if ref.via in _GUESSED:
        return _guessed(ref.argv[0], ref.args) if name in COMMANDS else False
    if ref.kind != "unknown":
        return serves(ref.argv[0], ref.args) if name in COMMANDS else False
    own = serves(ref.argv[0], ref.args) if name in COMMANDS else _unlisted(name, ref.args)
    return True if own is True else any_of([own, _inside(name, ref.args)])


_GUESSED = frozenset({"argv suffix", "string argument"})
"""Refs that are only a guess at what an unknown command runs: read by name, never by option."""


def _outer_reads(ref: CommandRef) -> bool:
    """An argv suffix of a command this rule reads itself: a launcher's program (`systemd-run --user
    npm run dev`, `pm2 start npm -- run dev`) or a subcommand named like a tool (`symfony serve -d`)."""
    if ref.via != "argv suffix" or not ref.wrappers:
        return False
    words = ref.wrappers[-1].split()
    outer = key(words[0]) if words else ""  # an unknown command named by an empty word (`' ' git`)
    return outer in LAUNCHERS or outer in MANAGED or key(ref.argv[0].value) in _subwords().get(outer, ())


def _reruns_listed(ref: CommandRef) -> bool:
    """Whether a watcher reruns a command on this rule's list that the walk gives a ref of its own, which
    the rule then reads (so `watch git push -f` is blocked as a force push, the rule before this one);
    else it reads the watcher."""
    name, args = key(ref.argv[0].value), ref.args
    if name == "nodemon":
        values = [word.value for word in args]
        command = next(
            (args[i + 1] for i, value in enumerate(values[:-1]) if value in ("--exec", "-x")), None
        )
    else:
        operands = read(argv(name, args), 1, tool_spec(name)).operands
        command = operands[0] if operands else None
    if command is None or command.dynamic or not command.value.split():
        return False
    listed = key(command.value.split()[0])
    return listed in COMMANDS and (ref.kind == "runner" or listed in KNOWN)


def _unlisted(name: str, args: Words) -> bool:
    """A tool rein does not know, told to watch, serve or follow (`--watch`, `--reload=true`)."""
    if name in _OTHER_MEANING:
        return False
    on = False
    for word in args:
        value = word.value
        if word.dynamic or not value.startswith("--"):
            continue
        if value in ("--help", "--version"):
            return False
        if value == "--":
            break
        option, eq, setting = value[2:].partition("=")
        if option.startswith("no-") and option[3:] in _GENERIC:
            on = False
        elif option in _GENERIC:
            on = not eq or setting.lower() not in FALSY
    return on


_GENERIC = frozenset({
    "watch", "watch-all", "watchAll", "reload", "serve", "hot", "hot-reload", "livereload", "live-reload",
    "dev-server", "devserver", "follow",
})  # fmt: skip
"""Options that make a tool rein does not know watch, serve or follow (not `--live`: `virsh migrate
--live` ends; not `--tail N`, a count of lines)."""
_OTHER_MEANING = frozenset({
    "firewall-cmd", "udevadm", "virsh", "argo", "gh", "glab", "http", "https", "httpie", "xh", "xhs",
    "gpgconf", "systemctl", "supervisorctl",
})  # fmt: skip
"""Tools whose `--reload`, `--watch` or `--follow` ends (`firewall-cmd --reload`, `gh pr checks --watch`
waits for the checks, `http --follow` follows redirects)."""
_MAX_SCANNED = 32
"""Arguments of an unknown command looked at for a listed server name (as many as the walk checks)."""


def _inside(name: str, args: Words) -> Tri:
    """A listed server among an unknown command's arguments, whose name the command model does not
    know (so the walk gives it no ref): its argv suffix, or a string argument's first word."""
    if name in LAUNCHERS or name in MANAGED:
        return False
    own = _subwords().get(name, frozenset())
    answers: list[Tri] = []
    for index, word in enumerate(args[:_MAX_SCANNED]):
        parts = word.value.split()
        if word.dynamic or not parts or key(parts[0]) not in _UNMODELLED or key(parts[0]) in own:
            continue
        rest = [Word.literal(part) for part in parts[1:]] if len(parts) > 1 else list(args[index + 1 :])
        answers.append(_guessed(Word.literal(parts[0]), rest))
    return any_of(answers)


def _guessed(word: Word, args: Words) -> Tri:
    """A server named in an unknown command's arguments is only a guess at what runs (`jj next`,
    `mpc next`, `jupytext --to notebook`): it counts when its own arguments make it serve, not when
    the tool serves by default (a hang it misses only costs the host's time limit)."""
    return False if serves(word, ()) is True else serves(word, args)


_UNMODELLED = COMMANDS - KNOWN
"""Listed names the walk does not check as an unknown command's argv suffix."""


@cache
def _subwords() -> dict[str, frozenset[str]]:
    """Each listed tool's subcommand words (`symfony serve`): in its argv they are no command."""
    found: dict[str, set[str]] = {}
    for entry, tool in t.TOOLS.items():
        head, _, sub = entry.partition(" ")
        names = (*tool.serves, *(tool.quiet or ()), *tool.stops, sub)
        found.setdefault(head, set()).update(name.split()[0] for name in names if name)
    return {head: frozenset(words) for head, words in found.items()}
