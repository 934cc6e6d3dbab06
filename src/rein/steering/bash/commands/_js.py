"""JavaScript package managers: `npx`, `npm exec`/`explore`, `pnpm exec`/`dlx`/`<bin>` (also `-c
exec`), `yarn <bin>`/`exec`/`dlx`/`workspace`/`workspaces foreach`, `bun x`/`exec`/`run`/`<bin>`,
`bunx`, `corepack`; and the package scripts they run (`npm run x`, `yarn x`, `pnpm test`) from a
package.json this line wrote (`_scripts`).

A word that is none of pnpm's, yarn's or bun's own commands runs a script of that name, else the
package binary or program of that name (`pnpm vite`, `yarn eslint src`, `bun git push`).
"""

from __future__ import annotations

import posixpath
from dataclasses import replace

from rein.steering.bash.commands._inner import NOTHING, Argv, Call, Inner, Unwrapped, run, script, text_of
from rein.steering.bash.commands._js_tables import BUN_COMMANDS, NPM_ALIASES, PNPM_COMMANDS
from rein.steering.bash.commands._options import Parsed, parse
from rein.steering.bash.commands._programs import interpreter
from rein.steering.bash.commands._scripts import INSTALL_SCRIPTS, package_scripts
from rein.steering.bash.commands._subcommand_runs import Handler, package_bin, package_runner
from rein.steering.bash.commands._suffix import suffixes
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Word

_NPM_SCRIPTS = {
    "test": "test",
    "start": "start",
    "stop": "stop",
    "restart": "restart",
    "install-test": "test",
    "install-ci-test": "test",
}
"""npm commands that run the package script of that name (`install-test` installs, then tests)."""


def _anywhere(call: Call, start: int, key: str) -> Parsed:
    """The options and operands from `start` on, options read wherever they are (npm's nopt, pnpm)."""
    return parse(call.argv, start, replace(spec(key), permute=True))


def _run_scripts(
    call: Call, label: str, names: tuple[str, ...], args: Argv, found: Parsed, directory: Word | None
) -> Unwrapped | None:
    """The scripts `names` of the package.json this line wrote where the manager runs them; with a
    workspace option (`-w`, `--workspaces`, `-r`, `--filter`), of every one below it too."""
    workspaces = found.has("-w", "--workspace", "--workspaces", "--ws", "-r", "--recursive", "-F", "--filter")
    return package_scripts(call, label, names, args, directory=directory, workspaces=workspaces)


def npm(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, spec("npm"))
    if parsed.unknown:  # npm gives an option it does not know the next word: where the command is is unclear
        return suffixes(call, 0, "npm")
    if parsed.rest >= len(argv):
        return NOTHING
    head = argv[parsed.rest].value
    head = NPM_ALIASES.get(head, head)
    if head == "exec":
        return package_runner("npm exec", "npx")(call, parsed.rest + 1)
    after = _anywhere(call, parsed.rest + 1, "npm")
    found = Parsed(options=(*parsed.options, *after.options), operands=after.operands)
    directory = found.last("-C", "--prefix")
    operands = found.operands
    if head == "explore" and len(operands) > 1:  # `npm explore pkg -- cmd`: a shell in the package
        return _explore(operands[0], operands[1:])
    if head == "run" and operands:
        ran = _run_scripts(call, "npm run", (operands[0].value,), operands[1:], found, directory)
    elif head in _NPM_SCRIPTS:
        ran = _run_scripts(call, f"npm {head}", (_NPM_SCRIPTS[head],), operands, found, directory)
    elif head in ("install", "ci") and not operands:
        ran = package_scripts(
            call, f"npm {head}", INSTALL_SCRIPTS, directory=directory, lifecycle=False, quiet=True
        )
    else:
        ran = None
    return ran or NOTHING


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


def _explore(package: Word, words: Argv) -> Unwrapped:
    text, dynamic = text_of(words)
    cwd = Word.literal(f"node_modules/{package.value}") if not package.dynamic else None
    inner = Inner("npm explore", "child", script=text, cwd=cwd, cwd_unknown=cwd is None)
    return Unwrapped((inner,), (f"npm explore command is dynamic: {dynamic}",) if dynamic else ())


def _shell_line(label: str, words: Argv) -> Unwrapped:
    """`yarn exec` and `bun exec` hand their words to a shell: one word is a command line (`yarn exec
    'git push -f'`); several are checked both as the argv written and as the line they join into."""
    joined = script(label, "child", words, f"{label} command")
    if len(words) < 2:
        return joined
    return Unwrapped((*run(label, "child", words).inners, *joined.inners), joined.notes)


def _script_or_bin(call: Call, label: str, index: int, found: Parsed, directory: Word | None) -> Unwrapped:
    """`yarn x args`, `pnpm x args`, `bun x args` for a word x that is no command of theirs: the
    script x from a package.json this line wrote, else the binary x."""
    argv = call.argv
    ran = _run_scripts(call, label, (argv[index].value,), argv[index + 1 :], found, directory)
    if ran is not None and (ran.inners or ran.notes):
        return ran
    return run(label, "maybe", argv[index:])


def pnpm(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, spec("pnpm"))
    if parsed.rest >= len(argv) or argv[parsed.rest].dynamic:
        return NOTHING
    action, index = argv[parsed.rest].value, parsed.rest + 1
    directory = parsed.last("-C", "--dir", "--prefix")
    if action == "exec":
        if parsed.has("-c", "--shell-mode"):  # `pnpm -c exec 'cmd'`: the words are a shell command line
            rest = (
                argv[index + 1 :] if argv[index : index + 1] and argv[index].value == "--" else argv[index:]
            )
            return script("pnpm exec", "child", rest, "pnpm exec -c command")
        return package_runner("pnpm exec", "pnpm exec")(call, index)
    if action in ("dlx", "create"):
        return package_runner(f"pnpm {action}", "pnpm dlx")(call, index)
    found = _anywhere(call, index, "pnpm")
    operands = argv[index:]
    if action in ("run", "run-script"):  # its options, then the script name; the rest is the script's
        start = parse(argv, index, spec("pnpm")).rest
        if start >= len(argv):
            return NOTHING
        return (
            _run_scripts(call, "pnpm run", (argv[start].value,), argv[start + 1 :], parsed, directory)
            or NOTHING
        )
    if action in ("test", "t", "tst", "start", "restart", "stop"):
        name = "test" if action in ("t", "tst") else action
        return _run_scripts(call, f"pnpm {name}", (name,), operands, parsed, directory) or NOTHING
    if action in ("install", "i") and not found.operands:
        quiet = package_scripts(
            call, "pnpm install", INSTALL_SCRIPTS, directory=directory, lifecycle=False, quiet=True
        )
        return quiet or NOTHING
    if action not in PNPM_COMMANDS:
        return _script_or_bin(call, "pnpm", index - 1, parsed, directory)
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
    argv = call.argv
    parsed = parse(argv, 1, spec("yarn"))
    if parsed.rest >= len(argv):
        return package_scripts(call, "yarn", INSTALL_SCRIPTS, lifecycle=False, quiet=True) or NOTHING
    head = argv[parsed.rest]
    action, index = head.value, parsed.rest + 1
    directory = parsed.last("--cwd")
    if action == "dlx":
        return package_runner("yarn dlx", "yarn dlx")(call, index)
    if action == "exec":
        return _shell_line("yarn exec", argv[index:])
    if action == "workspace" and len(argv) > index + 1:  # `yarn workspace web dev`: yarn dev in web
        return run("yarn workspace", "child", (argv[0], *argv[index + 1 :]))
    if action == "workspaces" and len(argv) > index and argv[index].value == "foreach":
        each = parse(argv, index + 1, spec("yarn workspaces foreach"))
        return run("yarn workspaces foreach", "maybe", (argv[0], *argv[each.rest :]))
    if action == "run":  # a script, else a package's binary
        start = parse(argv, index, spec("yarn")).rest
        return _script_or_bin(call, "yarn run", start, parsed, directory) if start < len(argv) else NOTHING
    if action == "test":
        return _run_scripts(call, "yarn test", ("test",), argv[index:], parsed, directory) or NOTHING
    if action == "install":
        return (
            package_scripts(call, "yarn", INSTALL_SCRIPTS, directory=directory, lifecycle=False, quiet=True)
            or NOTHING
        )
    if action not in _YARN_COMMANDS and not head.dynamic:
        return _script_or_bin(call, "yarn", index - 1, parsed, directory)
    return NOTHING


_JS_FILE = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")


def bun(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, spec("bun"))
    if parsed.has("-e", "--eval", "-p", "--print"):
        return interpreter(call)  # `bun -e code`: bun runs JavaScript like node
    if parsed.rest >= len(argv) or argv[parsed.rest].dynamic:
        return NOTHING
    action, index = argv[parsed.rest].value, parsed.rest + 1
    directory = parsed.last("--cwd")
    if action == "x":
        return package_runner("bun x", "bunx")(call, index)
    if action == "exec":
        return _shell_line("bun exec", argv[index:])
    if action == "run":
        start = parse(argv, index, spec("bun")).rest
        if start >= len(argv) or _is_file(argv[start]):
            return NOTHING
        return _script_or_bin(call, "bun run", start, parsed, directory)
    if action in ("install", "i"):
        return (
            package_scripts(
                call, "bun install", INSTALL_SCRIPTS, directory=directory, lifecycle=False, quiet=True
            )
            or NOTHING
        )
    if action not in BUN_COMMANDS and not _is_file(argv[index - 1]):
        return _script_or_bin(call, "bun", index - 1, parsed, directory)
    return NOTHING


def _is_file(word: Word) -> bool:
    """`bun ./x.ts`, `bun run build.js`: a JavaScript or TypeScript file bun runs itself, not a script
    or a program (`bun run /usr/bin/git` runs git)."""
    return posixpath.splitext(word.value)[1] in _JS_FILE


def corepack(call: Call) -> Unwrapped:
    argv = call.argv
    if len(argv) > 1 and argv[1].value.partition("@")[0] in ("npm", "pnpm", "yarn", "npx", "pnpx"):
        return run("corepack", "child", (package_bin(argv[1]), *argv[2:]))
    return NOTHING


def _local_bins(handler: Handler) -> Handler:
    """A package's command runs from `node_modules/.bin` before the registry is asked (`npx foo`,
    `pnpm exec foo`, `yarn foo`): one this line wrote there runs as the file it is."""

    def read(call: Call) -> Unwrapped:
        found = handler(call)
        if not call.files or not found.inners:
            return found
        inners = tuple(_local_bin(call, inner) for inner in found.inners)
        return found if inners == found.inners else replace(found, inners=inners)

    return read


def _local_bin(call: Call, inner: Inner) -> Inner:
    head = inner.argv[0] if inner.argv else None
    cwd = call.state.cwd
    if head is None or head.dynamic or "/" in head.value or not isinstance(cwd, str):
        return inner
    directory = cwd
    while True:  # the nearest node_modules/.bin up the tree
        path = f"{directory.rstrip('/')}/node_modules/.bin/{head.value}"
        if path in call.files:
            why = f"{inner.label} runs {head.value} from node_modules/.bin, which this command line wrote"
            return replace(inner, argv=(Word(value=path, raw=head.raw), *inner.argv[1:]), why=why)
        if directory in ("/", ""):
            return inner
        directory = posixpath.dirname(directory)


HANDLERS: dict[str, Handler] = {
    name: _local_bins(handler)
    for name, handler in {
        "npx": lambda call: package_runner("npx", "npx")(call, 1),
        "pnpx": lambda call: package_runner("pnpx", "npx")(call, 1),
        "bunx": lambda call: package_runner("bunx", "bunx")(call, 1),
        "npm": npm,
        "pnpm": pnpm,
        "yarn": yarn,
        "bun": bun,
        "corepack": corepack,
    }.items()
}
"""JavaScript package managers by command name."""
