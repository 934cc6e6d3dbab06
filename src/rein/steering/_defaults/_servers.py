"""How `no-dev-server` reads one command: whether it never exits (a dev server, a watcher, a follower),
by its entry in `_server_tables`.

Runners are already unwrapped (`npx vite`, `pnpm dlx vite`, `python -m http.server` each give the inner
command its own ref), so this reads one command at a time: a tool whose subcommand or options serve,
watch or follow as that tool reads them (`vite`, `flask run`, `tsc -w`, `tail -f`; not `jest -w 4` nor
`--watch=false`); a package manager's script, found with the manager's own options (`npm run -w web
dev` runs `dev`) and read by its name (`dev:web`, not `build:dev`) or as the tool it is named after
(`pnpm vite`, `npm run tauri dev`); a script an interpreter runs (`python manage.py runserver`); what a
launcher starts in the foreground (`stack exec -- yesod devel`, `systemd-run --scope`). `--help` and
`--version` exit. A script name rein cannot read (`npm run "$S"`) may serve: UNKNOWN.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Callable

from rein.steering._args import read
from rein.steering._defaults import _server_tables as t
from rein.steering._defaults._server_daemons import DAEMONS
from rein.steering._defaults._server_launch import LAUNCHERS
from rein.steering._defaults._server_read import Words, any_of, argv, flag, readings, scripted, tool_serves
from rein.steering._defaults._server_scripts import MANAGERS, RUNNERS
from rein.steering._defaults._server_tables import NONE, TOOLS
from rein.steering._rule import Tri
from rein.steering.bash import UNKNOWN, Word
from rein.steering.bash.commands import Options, tool_spec


def serves(word: Word, args: Words) -> Tri:
    """Whether the command named by `word`, given `args`, never exits when run in the foreground."""
    name = key(word.value)
    named = _NAMED_ONLY.get(name)
    if named is not None and not any(arg.dynamic or arg.value in named for arg in args):
        return False  # `git push -f`: none of git's serving subcommands named (the common case, fast)
    if _info(name, args):
        return False
    launch = LAUNCHERS[name](args) if name in LAUNCHERS else None
    if launch is not None:  # `stack exec -- yesod devel`; a detached one does not hold the shell
        detached, command = launch
        return False if detached or not command else serves(command[0], command[1:])
    if name in MANAGERS:
        return MANAGERS[name](args, _script)
    test = RUNNERS.get(name) or _SPECIAL.get(name) or DAEMONS.get(name)
    test = test or (_python if name in _PYTHONS else None)
    if test is not None:
        return test(name, args)
    for index in dict.fromkeys(found[0] for found in readings(args) if found):  # `kubectl logs -f`
        sub = TOOLS.get(f"{name} {args[index].value}")
        if sub is not None:
            return tool_serves(sub, args[index + 1 :])
    if name not in TOOLS:
        return False
    if name not in t.RUNS_COMMANDS:
        return tool_serves(TOOLS[name], args)
    operands = read(argv(name, args), 1, tool_spec(name)).operands  # `watch -n1 grep -q x`: not watch's -q
    own = args[: len(args) - len(operands)]
    if own and own[-1].value == "--" and not own[-1].dynamic:  # `rerun -- rackup`: the command follows
        args, own = (*own[:-1], *operands), own[:-1]
    return tool_serves(TOOLS[name], args, own)


def key(path: str) -> str:
    """The name a command is listed by: its basename (`bin/dev` by its last two parts)."""
    name = posixpath.basename(path)
    return "bin/dev" if name == "dev" and path.endswith("bin/dev") else name


def _info(name: str, args: Words) -> bool:
    """`--help` or `--version` (before the command a runner runs), or a lone `-h`, `-v` or `-V`."""
    if len(args) == 1 and args[0].value in [f"-{letter}" for letter in t.SHORT_INFO.get(name, "hvV")]:
        return True
    for word in args:
        if word.value in ("--help", "--version"):
            return True
        if word.value == "--" or (name in t.RUNS_COMMANDS and not word.value.startswith("-")):
            return False
    return False


def _script(word: Word, args: Words) -> Tri:
    """A package script and the words passed to it: one named after a tool is that tool (`pnpm vite`,
    `npm run tauri dev`; bare, also a script by its name, `npm run storybook`), any other serves by its
    name or watches by a flag passed to it (`npm test -- --watch`)."""
    if word.dynamic:
        return UNKNOWN
    args = args[1:] if args[:1] and args[0].value == "--" else args
    if any(arg.value in ("--help", "--version") for arg in args):
        return False  # the script prints its help
    if _is_tool(word.value):
        return any_of([serves(word, args), not args and scripted(word.value)])
    return scripted(word.value) or bool(flag(args, t.GENERIC_WATCH))


def _is_tool(name: str) -> bool:
    return name in TOOLS or name in _READERS


def _concurrently(name: str, args: Words) -> Tri:
    """`concurrently "npm:dev:*" "vite"`: each command, or a package script by its shortcut."""
    answers: list[Tri] = []
    for word in (args[index] for index in readings(args)[0]):
        prefix = next((p for p in t.CONCURRENTLY_SHORTCUTS if word.value.startswith(p)), "")
        parts = [Word.literal(part) for part in word.value[len(prefix) :].split()]
        if parts and not word.dynamic:
            answers.append((_script if prefix else serves)(parts[0], parts[1:]))
    return any_of(answers)


def _interpreter(options: Options, code: tuple[str, ...]) -> Callable[[str, Words], Tri]:
    """An interpreter running a script named after a tool, read as that tool: `python manage.py
    runserver`, `php artisan serve`, `node node_modules/.bin/vite` (not `-c`/`-e` code)."""

    def test(name: str, args: Words) -> Tri:
        found = read(argv(name, args), 1, options)
        if found.has(*code) or not found.operands or found.operands[0].dynamic:
            return False
        path = found.operands[0].value
        base = posixpath.basename(path)
        base = re.sub(r"\.[cm]?js$", "", base) if "node_modules/" in path else base
        if not _is_tool(base) or not ("/" in path or "." in base or base == "artisan"):
            return False
        return serves(Word.literal(base), found.operands[1:])

    return test


_python = _interpreter(t.PYTHON, ("-c", "-m"))
_node = _interpreter(t.NODE, ("-e", "-p", "--eval", "--print"))
_php = _interpreter(t.PHP, ("-r",))
_ruby = _interpreter(t.RUBY, ("-e",))


def _interpreted(name: str, args: Words) -> Tri:
    found = read(argv(name, args), 1, t.PHP if name == "php" else t.RUBY)
    if name == "php" and found.has("-S"):  # `php -S localhost:8000`
        return True
    if name == "ruby" and any(word.value == "un" for word in found.values("-r")):  # `ruby -run -e httpd .`
        return any(word.value.startswith("httpd") for word in found.values("-e"))
    if name in ("node", "nodejs"):
        return bool(flag(args, TOOLS["node"].watch)) or _node(name, args)
    return (_php if name == "php" else _ruby)(name, args)


def _iex(name: str, args: Words) -> Tri:
    """`iex -S mix phx.server`: the script after `-S`."""
    values = [word.value for word in args]
    start = values.index("-S") + 1 if "-S" in values else len(values)
    return serves(args[start], args[start + 1 :]) if start < len(args) else False


_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
LONG_SLEEP = 3600.0
"""A sleep this long outlasts any host's time limit for a tool call: it holds the shell as `sleep
infinity` does."""


def _seconds(text: str) -> float | None:
    match = re.fullmatch(r"(\d*\.?\d+(?:e[+-]?\d+)?|inf|infinity)([smhd]?)", text, re.IGNORECASE)
    return None if match is None else float(match[1]) * _UNITS[match[2].lower()]


def _sleep(name: str, args: Words) -> Tri:
    """`sleep infinity`, `sleep 2h`, `sleep 1800 1800` (GNU sleep adds its operands)."""
    total = sum(_seconds(word.value) or 0 for word in args if not word.dynamic)
    return math.isinf(total) or total >= LONG_SLEEP


def _timeout(name: str, args: Words) -> Tri:
    """`timeout 0 npm run dev` never times out: the command runs as if bare."""
    operands = read(argv(name, args), 1, tool_spec("timeout")).operands
    if len(operands) < 2 or operands[0].dynamic or _seconds(operands[0].value) != 0:
        return False
    return serves(operands[1], operands[2:])


_SPECIAL: dict[str, Callable[[str, Words], Tri]] = {
    "concurrently": _concurrently, "node": _interpreted, "nodejs": _interpreted, "php": _interpreted,
    "ruby": _interpreted, "iex": _iex, "sleep": _sleep, "timeout": _timeout, "gtimeout": _timeout,
}  # fmt: skip
_PYTHONS = frozenset({"python", "python3", *(f"python3.{minor}" for minor in range(6, 16)), "pypy", "pypy3"})

_READERS = frozenset({*MANAGERS, *RUNNERS, *_SPECIAL, *_PYTHONS, *LAUNCHERS, *DAEMONS})
"""Commands read by a function of their own rather than by their `Tool` alone."""

_SUBKEYS: dict[str, set[str]] = {}
for _entry in TOOLS:
    if " " in _entry:
        _SUBKEYS.setdefault(_entry.split()[0], set()).add(_entry.split()[1])

_NAMED_ONLY = {
    name: frozenset({*(served.split()[0] for served in tool.serves), *_SUBKEYS.get(name, ())})
    for name, tool in TOOLS.items()
    if " " not in name and tool.quiet is None and tool.watch == NONE and "" not in tool.serves
    if name not in t.RUNS_COMMANDS and name not in _READERS
}
"""Tools that serve only when given one of a few words (git: `daemon`, `instaweb`), with those words:
without any of them the tool cannot serve."""

_HEADS = {entry.split()[0] for entry in TOOLS}
COMMANDS = frozenset({*_HEADS, *map(posixpath.basename, _HEADS), *_READERS}) - {"console"}
"""Every command `serves` can say yes to by name (not `console`, a word too common in the arguments of
unknown commands, which the rules scan for listed servers; `php bin/console server:run` is read
through php)."""
