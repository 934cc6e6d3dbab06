"""`no-dev-server`: commands that never exit (dev servers, watchers, followers), so the agent's shell
would hang until its timeout.

Runners are already unwrapped (`npx vite`, `pnpm dlx vite`, `python -m http.server` each give the inner
command its own ref), so this reads one command at a time, by its entry in `_server_tables`: a tool
whose subcommand or options serve, watch or follow as that tool reads them (`vite`, `flask run`, `tsc
-w`, `tail -f`; not `jest -w 4` nor `--watch=false`); a package manager's script, found with the
manager's own options (`npm run -w web dev` runs `dev`) and read by its name (`dev:web`, not
`build:dev`) or as the tool it is named after (`pnpm vite`, `npm run tauri dev`); a script an
interpreter runs (`python manage.py runserver`). `--help` and `--version` exit, and so does whatever runs
under `timeout` or detached (`docker run -d`); whatever a watcher reruns never does. A script name rein
cannot read (`npm run "$S"`) may serve: UNKNOWN.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Callable

from rein.steering._args import read
from rein.steering._defaults import _server_tables as t
from rein.steering._defaults._server_read import Words, any_of, argv, flag, readings, scripted, tool_serves
from rein.steering._defaults._server_scripts import MANAGERS, RUNNERS
from rein.steering._defaults._server_tables import NONE, TOOLS
from rein.steering._rule import Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, CommandRef, Word
from rein.steering.bash.commands import Options, tool_spec


def dev_server(ref: CommandRef, context: Context) -> Tri:
    if not ref.argv:
        return False
    for label in ref.wrappers:  # outermost first: `timeout 9 watch x` ends, `watch timeout 9 x` does not
        words = label.split() or [""]
        if words[0] in ("timeout", "gtimeout") or (words[0] in t.ENGINES and {"-d", "--detach"} & {*words}):
            return False
        if words[0] in t.REPEATERS:
            return True
    if ref.name in t.REPEATERS and _reruns_listed(ref.name, ref.args):
        return False  # checked on the command it reruns, after the rules about that command
    return _command(ref.argv[0], ref.args)


def _reruns_listed(name: str, args: Words) -> bool:
    """Whether a watcher reruns a command on this rule's list, whose own ref the rule then reads (so `watch
    git push -f` is blocked as a force push, the rule before this one); else it reads the watcher."""
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
    return _key(command.value.split()[0]) in COMMANDS  # a string runs with `sh -c`: its first word


def _command(word: Word, args: Words) -> Tri:
    name = _key(word.value)
    named = _NAMED_ONLY.get(name)
    if named is not None and not any(arg.dynamic or arg.value in named for arg in args):
        return False  # `git push -f`: none of git's serving subcommands named (the common case, fast)
    if _info(name, args):
        return False
    if name in MANAGERS:
        return MANAGERS[name](args, _script)
    test = RUNNERS.get(name) or _SPECIAL.get(name) or (_python if name in _PYTHONS else None)
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
    return tool_serves(TOOLS[name], args, args[: len(args) - len(operands)])


def _key(path: str) -> str:
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
        return any_of([_command(word, args), not args and scripted(word.value)])
    return scripted(word.value) or bool(flag(args, t.GENERIC_WATCH))


def _is_tool(name: str) -> bool:
    return name in TOOLS or name in MANAGERS or name in RUNNERS or name in _SPECIAL or name in _PYTHONS


def _concurrently(name: str, args: Words) -> Tri:
    """`concurrently "npm:dev:*" "vite"`: each command, or a package script by its shortcut."""
    answers: list[Tri] = []
    for word in (args[index] for index in readings(args)[0]):
        prefix = next((p for p in t.CONCURRENTLY_SHORTCUTS if word.value.startswith(p)), "")
        parts = [Word.literal(part) for part in word.value[len(prefix) :].split()]
        if parts and not word.dynamic:
            answers.append((_script if prefix else _command)(parts[0], parts[1:]))
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
        return _command(Word.literal(base), found.operands[1:])

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
    return _command(args[start], args[start + 1 :]) if start < len(args) else False


def _seconds(text: str) -> float | None:
    match = re.fullmatch(r"(\d*\.?\d+(?:e[+-]?\d+)?|inf|infinity)[smhd]?", text, re.IGNORECASE)
    return None if match is None else float(match[1])


def _sleep(name: str, args: Words) -> Tri:
    return any(math.isinf(_seconds(word.value) or 0) for word in args if not word.dynamic)


def _timeout(name: str, args: Words) -> Tri:
    """`timeout 0 npm run dev` never times out: the command runs as if bare."""
    operands = read(argv(name, args), 1, tool_spec("timeout")).operands
    if len(operands) < 2 or operands[0].dynamic or _seconds(operands[0].value) != 0:
        return False
    return _command(operands[1], operands[2:])


_SPECIAL: dict[str, Callable[[str, Words], Tri]] = {
    "concurrently": _concurrently, "node": _interpreted, "nodejs": _interpreted, "php": _interpreted,
    "ruby": _interpreted, "iex": _iex, "sleep": _sleep, "timeout": _timeout, "gtimeout": _timeout,
}  # fmt: skip
_PYTHONS = frozenset({"python", "python3", *(f"python3.{minor}" for minor in range(6, 16)), "pypy", "pypy3"})

_NAMED_ONLY = {
    name: frozenset(
        {*(served.split()[0] for served in tool.serves)}
        | {key.split()[1] for key in TOOLS if key.startswith(f"{name} ")}
    )
    for name, tool in TOOLS.items()
    if " " not in name and tool.quiet is None and tool.watch == NONE and "" not in tool.serves
    if name not in t.RUNS_COMMANDS and name not in {*MANAGERS, *RUNNERS, *_SPECIAL, *_PYTHONS}
}
"""Tools that serve only when given one of a few words (git: `daemon`, `instaweb`), with those words:
without any of them the tool cannot serve."""

COMMANDS = frozenset({
    *(posixpath.basename(key.split()[0]) for key in TOOLS), *MANAGERS, *RUNNERS, *_SPECIAL, *_PYTHONS
}) - {"console"}  # fmt: skip
"""Every command `dev_server` can say yes to: the rule's command list (not `console`, a word too common in
other commands' arguments to look for there; `php bin/console server:run` is read through php)."""
