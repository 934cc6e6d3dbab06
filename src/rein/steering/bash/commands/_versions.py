"""Version managers and OS package managers: inert, except where they run a command.

`pyenv exec cmd` (also rbenv, nodenv, goenv, jenv, plenv), `asdf exec cmd` / `asdf env tool cmd`,
`mise exec|x [tool@v...] -- cmd` (and `-c 'string'`), `volta run cmd`, `rustup run toolchain cmd`,
`fnm exec cmd`, `nvm exec [version] cmd`, `pipenv run cmd`, `brew bundle exec cmd`, `brew sh -c
'string'`, the dpkg hooks `apt-get -o DPkg::Pre-Invoke::=cmd` and `dpkg --pre-invoke=cmd`. Installing
a package runs nothing named on the line: `apt-get install -y nodejs npm`, `brew install node`, `asdf
install python 3.12`, `volta install serve` are data. The *env tools, volta, fnm and pipenv are only
data, `Runner` entries in `_runner_tables`.
"""

from __future__ import annotations

import re

from rein.steering.bash._words import tail
from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Unwrapped, run, script
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._runner import handlers
from rein.steering.bash.commands._runner_tables import VERSIONS
from rein.steering.bash.commands._sources import file_text
from rein.steering.bash.commands._subcommand_runs import Handler, after, subcommand
from rein.steering.bash.commands._suffix import suffixes
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.commands._tasks import mise
from rein.steering.bash.model import Word


def _asdf(call: Call) -> Unwrapped:
    """`asdf exec cmd args`; `asdf env tool [cmd args]` runs cmd with tool's environment."""
    argv = call.argv
    if len(argv) > 2 and argv[1].value == "exec":
        return run("asdf exec", "child", argv[2:])
    if len(argv) > 3 and argv[1].value == "env":
        return run("asdf env", "child", argv[3:])
    return NOTHING


def _mise(call: Call, start: int) -> Unwrapped:
    """`mise exec [tool@version...] -- cmd`; `-c STRING` runs a shell string. Without either, mise
    starts an interactive shell."""
    parsed = parse(call.argv, start, spec("mise exec"))
    command = parsed.last("-c", "--command")
    if command is not None:
        return script("mise exec", "child", (command,), "mise exec -c command")
    argv = call.argv
    for index in range(start, len(argv)):
        if argv[index].value == "--" and not argv[index].dynamic:
            return run("mise exec", "child", argv[index + 1 :])
    return suffixes(call, start - 1, "mise exec") if parsed.unknown else NOTHING


def _rustup(call: Call) -> Unwrapped:
    """`rustup [+toolchain] [-v|-q] run [--install] TOOLCHAIN cmd args`."""
    argv = call.argv
    start = 1
    while start < len(argv) and argv[start].value.startswith(("+", "-")) and not argv[start].dynamic:
        start += 1
    if start >= len(argv) or argv[start].value != "run":
        return NOTHING
    parsed = parse(argv, start + 1, spec("rustup run"))
    if parsed.unknown:
        return suffixes(call, parsed.rest, "rustup run")
    return run("rustup run", "child", call.argv[parsed.rest + 1 :])


def _nvm(call: Call, start: int) -> Unwrapped:
    """`nvm exec [--silent] [version] cmd`: whether the first operand is a version or the command is
    not known here, so every suffix that starts with a known command is checked."""
    return suffixes(call, start - 1, "nvm exec")


def _brew(call: Call) -> Unwrapped:
    """`brew bundle exec [options] [--] cmd`, `brew sh -c STRING` or `brew sh FILE`."""
    argv = call.argv
    parsed = parse(argv, 1, spec("brew"))
    index = parsed.rest
    action = argv[index].value if index < len(argv) else ""
    if action == "bundle" and index + 1 < len(argv) and argv[index + 1].value == "exec":
        return after(call, "brew bundle exec", parse(argv, index + 2, spec("brew bundle exec")))
    if action == "sh":
        found = parse(argv, index + 1, spec("brew sh"))
        command = found.last("-c", "--cmd")
        if command is not None:
            return script("brew sh", "child", (command,), "brew sh -c command")
        if found.operands:
            text, note = file_text(call, found.operands[0])
            if text is not None:
                return Unwrapped((Inner("brew sh", "child", script=text, via="script"),))
            return Unwrapped(notes=(note,) if note else ())
    return NOTHING


_APT_HOOK = re.compile(r"(?:invoke(?:-success)?|pre-install-pkgs)$|^dir::bin::", re.IGNORECASE)
"""APT settings whose value is a command apt runs (`DPkg::Pre-Invoke`, `APT::Update::Post-Invoke`,
`DPkg::Pre-Install-Pkgs`) or a program it runs in place of its own (`Dir::Bin::dpkg`)."""


def _apt(call: Call) -> Unwrapped:
    """`apt-get -o KEY=VALUE`: a hook setting's value is a shell command apt runs."""
    label = f"{call.name} -o"
    inners: list[Inner] = []
    notes: list[str] = []
    for value in _values(call, ("-o", "--option"), ("-o",)):
        key, eq, _ = value.value.partition("=")
        if not eq or not _APT_HOOK.search(key.rstrip(":").strip()):
            continue
        found = script(label, "maybe", (tail(value, len(key) + 1),), f"{label} {key} command")
        inners.extend(found.inners)
        notes.extend(found.notes)
    return Unwrapped(tuple(inners), tuple(notes))


def _dpkg(call: Call) -> Unwrapped:
    """`dpkg --pre-invoke=cmd` / `--post-invoke=cmd` run cmd with sh around the action."""
    inners: list[Inner] = []
    notes: list[str] = []
    for value in _values(call, ("--pre-invoke", "--post-invoke"), ()):
        found = script("dpkg", "maybe", (value,), "dpkg --pre-invoke command")
        inners.extend(found.inners)
        notes.extend(found.notes)
    return Unwrapped(tuple(inners), tuple(notes))


def _values(call: Call, longs: tuple[str, ...], shorts: tuple[str, ...]) -> list[Word]:
    """The values of the named options: `--opt=v`, `--opt v`, `-ov`, `-o v`."""
    argv = call.argv
    found: list[Word] = []
    for index, word in enumerate(argv[1:], start=1):
        value = word.value
        following = argv[index + 1] if index + 1 < len(argv) else None
        name = value.partition("=")[0]
        if name in longs and "=" in value:
            found.append(tail(word, len(name) + 1))
        elif (value in longs or value in shorts) and following is not None:
            found.append(following)
        elif any(value.startswith(short) and len(value) > len(short) for short in shorts):
            found.append(tail(word, 2))
    return found


HANDLERS: dict[str, Handler] = {
    **handlers(VERSIONS),  # pyenv and the other *env, volta, fnm, pipenv
    "asdf": _asdf,
    "mise": lambda call: mise(call, subcommand(("exec", "x"), _mise)),
    "rustup": _rustup,
    "nvm": subcommand("exec", _nvm),
    "brew": _brew,
    "apt-get": _apt,
    "apt": _apt,
    "aptitude": _apt,
    "dpkg": _dpkg,
}
"""Version and package managers by command name."""
