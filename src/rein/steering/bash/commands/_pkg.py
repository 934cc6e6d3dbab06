"""Package managers and environment tools that run a command: `npx`, `npm exec`, `pnpm exec`/`dlx`,
`yarn <bin>`/`dlx`/`workspace`, `bunx`, `corepack`, `uv run`, `uvx`, `pipx run`, `poetry run`, `pdm run`,
`hatch run`, `conda run`, `bundle exec`, `nix-shell --run`, `nix develop -c`, `direnv exec`, `devbox run`.

Where a tool's options are not all known to rein (an option that may take the next word), the command
cannot be located exactly, so every suffix of the arguments that starts with a command rein knows is
checked instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rein.steering.bash.commands._inner import NOTHING, Argv, Call, Unwrapped, run, script
from rein.steering.bash.commands._js_tables import NPM_ALIASES
from rein.steering.bash.commands._options import Parsed, parse
from rein.steering.bash.commands._programs import interpreter
from rein.steering.bash.commands._suffix import suffixes
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Word

Handler = Callable[[Call], Unwrapped]


Runs = Callable[[Call, int], Unwrapped]
"""A handler that reads the argv from an index on (after the subcommand that runs a command)."""


def _runs_rest(label: str, key: str) -> Runs:
    """A tool that runs the command after its options (`uv run [options] cmd args`)."""

    def handler(call: Call, start: int) -> Unwrapped:
        return _after(call, label, parse(call.argv, start, spec(key)))

    return handler


def _after(call: Call, label: str, parsed: Parsed, mode: str = "child") -> Unwrapped:
    rest = call.argv[parsed.rest :]
    if parsed.unknown:  # an option rein does not know may have taken the next word
        return suffixes(call, parsed.rest - 1, label)
    return run(label, "maybe" if mode == "maybe" else "child", rest)


def _bin(word: Word) -> Word:
    """The command a package name runs: `vite@5` runs `vite`, `@scope/cli` runs `cli`."""
    value = word.value
    name = value[1:].partition("@")[0] if value.startswith("@") else value.partition("@")[0]
    name = name.rpartition("/")[2] or name
    return word if name == value else Word(value=name, raw=word.raw)


def _package_runner(label: str, key: str) -> Runs:
    """`npx pkg args`, `pnpm dlx pkg`, `bunx pkg`, `uvx pkg`: the package's command runs."""

    def handler(call: Call, start: int) -> Unwrapped:
        parsed = parse(call.argv, start, spec(key))
        command = parsed.last("-c", "--call")
        if command is not None:
            return script(label, "child", (command,), f"{label} -c command")
        if parsed.has("-c", "--shell-mode"):  # pnpm: the words are a shell command line
            return script(label, "child", call.argv[parsed.rest :], f"{label} -c command")
        if parsed.unknown:
            return suffixes(call, parsed.rest - 1, label)
        rest = call.argv[parsed.rest :]
        return run(label, "child", (_bin(rest[0]), *rest[1:])) if rest else NOTHING

    return handler


def npm(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, spec("npm"))
    if parsed.unknown:  # npm gives an option it does not know the next word: where the command is is unclear
        return suffixes(call, 0, "npm")
    if parsed.rest >= len(call.argv):
        return NOTHING
    head = call.argv[parsed.rest].value
    if NPM_ALIASES.get(head, head) == "exec":
        return _package_runner("npm exec", "npx")(call, parsed.rest + 1)
    return NOTHING


def normalize_npm(argv: Argv) -> Argv:
    """npm's command aliases written out: `npm rum dev` and `npm run-script dev` are `npm run dev`."""
    index = parse(argv, 1, spec("npm")).rest
    if index >= len(argv):
        return argv
    head = argv[index]
    full = NPM_ALIASES.get(head.value)
    if full is None or head.dynamic:
        return argv
    return (*argv[:index], Word(value=full, raw=head.raw), *argv[index + 1 :])


def _action(call: Call) -> tuple[Word, int] | None:
    """The subcommand after the tool's own options (`pnpm --filter web exec`), and the index after it."""
    parsed = parse(call.argv, 1, spec(call.name))
    return (call.argv[parsed.rest], parsed.rest + 1) if parsed.rest < len(call.argv) else None


def pnpm(call: Call) -> Unwrapped:
    found = _action(call)
    if found is None:
        return NOTHING
    head, index = found
    action = head.value
    if action == "exec":
        return _package_runner("pnpm exec", "pnpm exec")(call, index)
    if action in ("dlx", "create"):
        return _package_runner(f"pnpm {action}", "pnpm dlx")(call, index)
    return NOTHING


_YARN_COMMANDS = frozenset({
    "add", "audit", "autoclean", "bin", "cache", "check", "config", "constraints", "create", "dedupe",
    "dlx", "exec", "explain", "generate-lock-entry", "global", "help", "import", "info", "init",
    "install", "licenses", "link", "list", "login", "logout", "outdated", "owner", "pack",
    "patch", "patch-commit", "plugin", "policies", "publish", "rebuild", "remove", "run", "search",
    "set", "stage", "tag", "team", "test", "unlink", "unplug", "up", "upgrade", "upgrade-interactive",
    "version", "versions", "why", "workspace", "workspaces",
})  # fmt: skip


def yarn(call: Call) -> Unwrapped:
    found = _action(call)
    if found is None:
        return NOTHING
    head, index = found
    action = head.value
    if action == "dlx":
        return _package_runner("yarn dlx", "yarn dlx")(call, index)
    if action == "exec":
        return run("yarn exec", "child", call.argv[index:])
    if action == "workspace" and len(call.argv) > index + 1:  # `yarn workspace web dev`: yarn dev in web
        return run("yarn workspace", "child", (call.argv[0], *call.argv[index + 1 :]))
    if action == "run" and len(call.argv) > index:  # a script, else a package's binary
        return run("yarn run", "maybe", call.argv[index:])
    if action not in _YARN_COMMANDS and not head.dynamic:
        return run("yarn", "maybe", call.argv[index - 1 :])
    return NOTHING


def bun(call: Call) -> Unwrapped:
    if any(word.value.partition("=")[0] in ("-e", "--eval", "-p", "--print") for word in call.argv[1:]):
        return interpreter(call)  # `bun -e code`: bun runs JavaScript like node
    found = _action(call)
    if found is None:
        return NOTHING
    head, index = found
    action = head.value
    if action == "x":
        return _package_runner("bun x", "bunx")(call, index)
    if action == "run" and len(call.argv) > index:
        return run("bun run", "maybe", call.argv[index:])
    return NOTHING


def corepack(call: Call) -> Unwrapped:
    argv = call.argv
    if len(argv) > 1 and argv[1].value.partition("@")[0] in ("npm", "pnpm", "yarn", "npx", "pnpx"):
        return run("corepack", "child", (_bin(argv[1]), *argv[2:]))
    return NOTHING


def uv(call: Call) -> Unwrapped:
    found = _action(call)
    if found is None:
        return NOTHING
    head, index = found
    action = head.value
    if action == "run":
        inner = parse(call.argv, index, spec("uv run"))
        if inner.has("-m", "--module") and not inner.unknown:  # `uv run -m http.server`: the module runs
            return run("uv run -m", "child", call.argv[inner.rest :])
        return _after(call, "uv run", inner)
    if action == "tool" and len(call.argv) > index and call.argv[index].value == "run":
        return _package_runner("uv tool run", "uvx")(call, index + 1)
    return NOTHING


def nix_shell(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, spec("nix-shell"))
    command = parsed.last("--run", "--command")
    return (
        NOTHING
        if command is None
        else script("nix-shell --run", "child", (command,), "nix-shell --run command")
    )


def nix(call: Call) -> Unwrapped:
    argv = call.argv
    if len(argv) < 2 or argv[1].value not in ("develop", "shell"):
        return NOTHING
    for index, word in enumerate(argv[2:], start=2):
        if word.value in ("-c", "--command"):
            return run(f"nix {argv[1].value} -c", "child", argv[index + 1 :])
    return NOTHING


def direnv(call: Call) -> Unwrapped:
    argv = call.argv
    if len(argv) > 3 and argv[1].value == "exec":
        return run("direnv exec", "child", argv[3:], cwd=argv[2])
    return NOTHING


def hatch(call: Call, start: int) -> Unwrapped:
    """`hatch run [+py=3.12] [ENV:]command args`: matrix selections and the environment prefix are not
    part of the command."""
    argv = call.argv
    while start < len(argv) and _MATRIX.match(argv[start].value):
        start += 1
    parsed = parse(argv, start, spec("hatch run"))
    if parsed.unknown:
        return suffixes(call, parsed.rest - 1, "hatch run")
    rest = argv[parsed.rest :]
    if rest and not rest[0].dynamic and ":" in rest[0].value and "/" not in rest[0].value:
        env, _, command = rest[0].value.partition(":")
        rest = (Word(value=command, raw=rest[0].raw), *rest[1:]) if env and command else rest[1:]
    return run("hatch run", "child", rest)


_MATRIX = re.compile(r"[+-]\w[\w-]*=")


def _subcommand(name: str, handler: Runs) -> Handler:
    """A tool whose subcommand `name` runs a command: `poetry run`, `bundle exec`, `devbox run`. Global
    options may come first (`poetry -C app run`); rein does not know which take a value, so `name` is
    the subcommand where every word before it is an option or may be an option's value."""

    def dispatch(call: Call) -> Unwrapped:
        argv = call.argv
        for index, word in enumerate(argv[1:], start=1):
            if word.value == name and not word.dynamic:
                return handler(call, index + 1)
            if not word.value.startswith("-") and not argv[index - 1].value.startswith("-"):
                return NOTHING
        return NOTHING

    return dispatch


HANDLERS: dict[str, Handler] = {
    "npx": lambda call: _package_runner("npx", "npx")(call, 1),
    "pnpx": lambda call: _package_runner("pnpx", "npx")(call, 1),
    "bunx": lambda call: _package_runner("bunx", "bunx")(call, 1),
    "uvx": lambda call: _package_runner("uvx", "uvx")(call, 1),
    "npm": npm,
    "pnpm": pnpm,
    "yarn": yarn,
    "bun": bun,
    "corepack": corepack,
    "uv": uv,
    "pipx": _subcommand("run", _package_runner("pipx run", "pipx run")),
    "poetry": _subcommand("run", _runs_rest("poetry run", "poetry run")),
    "pdm": _subcommand("run", _runs_rest("pdm run", "pdm run")),
    "hatch": _subcommand("run", hatch),
    "conda": _subcommand("run", _runs_rest("conda run", "conda run")),
    "mamba": _subcommand("run", _runs_rest("mamba run", "conda run")),
    "micromamba": _subcommand("run", _runs_rest("micromamba run", "conda run")),
    "bundle": _subcommand("exec", _runs_rest("bundle exec", "bundle exec")),
    "devbox": _subcommand("run", _runs_rest("devbox run", "devbox run")),
    "nix-shell": nix_shell,
    "nix": nix,
    "direnv": direnv,
}
"""Package managers and environment tools by command name."""
