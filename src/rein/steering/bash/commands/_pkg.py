"""Environment tools that run a command: `uv run`, `uvx`, `pipx run`, `poetry run`, `pdm run`, `hatch
run`, `conda run`, `bundle exec`, `nix-shell --run`, `nix develop -c`, `direnv exec`, `devbox run`.
(The JavaScript package managers are in `_js`, the version managers in `_versions`; poetry, pdm, conda,
mamba, micromamba, bundle and devbox are only data, `Runner` entries in `_runner_tables`.)

Where a tool's options are not all known to rein (an option that may take the next word), the command
cannot be located exactly, so every suffix of the arguments that starts with a command rein knows is
checked instead.
"""

from __future__ import annotations

import re

from rein.steering.bash.commands._inner import NOTHING, Call, Unwrapped, run, script
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._runner import handlers
from rein.steering.bash.commands._runner_tables import ENVIRONMENTS
from rein.steering.bash.commands._subcommand_runs import (
    Handler,
    after,
    first_operand,
    package_runner,
    subcommand,
)
from rein.steering.bash.commands._suffix import suffixes
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Word


def uv(call: Call) -> Unwrapped:
    found = first_operand(call, "uv")
    if found is None:
        return NOTHING
    action, index = found
    if action == "run":
        inner = parse(call.argv, index, spec("uv run"))
        if inner.has("-m", "--module") and not inner.unknown:  # `uv run -m http.server`: the module runs
            return run("uv run -m", "child", call.argv[inner.rest :])
        return after(call, "uv run", inner)
    if action == "tool" and len(call.argv) > index and call.argv[index].value == "run":
        return package_runner("uv tool run", "uvx")(call, index + 1)
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


HANDLERS: dict[str, Handler] = {
    "uvx": lambda call: package_runner("uvx", "uvx")(call, 1),
    "uv": uv,
    "pipx": subcommand("run", package_runner("pipx run", "pipx run")),
    **handlers(ENVIRONMENTS),  # poetry, pdm, conda, mamba, micromamba, bundle, devbox
    "hatch": subcommand("run", hatch),
    "nix-shell": nix_shell,
    "nix": nix,
    "direnv": direnv,
}
"""Environment tools by command name."""
