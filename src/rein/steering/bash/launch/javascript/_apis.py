"""What one call of a node, Bun or Deno process API launches, given what it calls and its arguments.

`child_process`: `exec`/`execSync` run a shell line; `execFile`/`spawn` (and their Sync forms) an argv,
or a shell line (the program and its arguments joined by spaces, as node does) with `shell: true`,
both when a condition sets `shell`; a `shell` naming a program that is no POSIX shell runs
`program -c line`. `fork` runs `node module args`. An `input` option of a Sync call is the launched
command's stdin.
`Bun.spawn`, `new Deno.Command`, `Deno.run` run an argv; a template tagged `$` (Bun, zx) is a shell
line. The common npm wrappers too: execa (`execa` an argv, `execaCommand` a line), cross-spawn,
shelljs (`exec`, `rm`). Removing files through `fs` (`rmSync`, `rm`, `rmdir`, `unlink`, their promise
forms, fs-extra's `remove` and `emptyDir`, rimraf, whose patterns are globs) and `Deno.remove` is the
`rm`/`rmdir` command it amounts to, when the path is known, below home or the working directory, or
each entry of a listed directory (`rm -rf dir/*`); a path built at run time is data. Code run from a
string (`eval`, `Function`, `vm`, `setTimeout("...")`, a `Worker` with `eval: true`) is read with the
same reader. Calls of anything else launch nothing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import replace

from rein.steering.bash.launch._folding import glob_word
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._call_site import (
    Site,
    argv,
    argv_and_options,
    code,
    fed,
    shell,
)
from rein.steering.bash.launch.javascript._options import Opt, condition, flag, option
from rein.steering.bash.launch.javascript._paths import as_glob, as_path
from rein.steering.bash.launch.javascript._refs import Ref
from rein.steering.bash.launch.javascript._scan import unwrap
from rein.steering.bash.launch.javascript._values import UNKNOWN, Items, Parts, concat, literal

Handler = Callable[[Site], list[Launch]]
CHILD_PROCESS = frozenset({"exec", "execSync", "execFile", "execFileSync", "spawn", "spawnSync", "fork"})
_STRINGS = frozenset({"string", "template_string", "binary_expression"})
_WILD = re.compile(r"[*?[]")
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})
"""Shells that read a line as bash does; another program named as the shell runs `program -c line`."""


def _exec(site: Site) -> list[Launch]:
    if not site.args:
        return []
    options = site.arg(1)
    launch = _through(
        site, shell(site, site.program.string(site.args[0])), option(site.program, options, "shell")
    )
    return [fed(site, launch, options)]


def _spawn(site: Site) -> list[Launch]:
    """An argv, or with `shell` set a line of the program and its arguments joined by spaces; read both
    ways when a condition sets it (`shell: process.platform === "win32"`)."""
    if not site.args:
        return []
    program = site.program
    head = program.string(site.args[0])
    items, options = argv_and_options(program, site.args[1:])
    setting = option(program, options, "shell")
    use_shell = flag(program, setting)
    direct = fed(site, argv(site, (head,), items), options)
    if use_shell is False:
        return [direct]
    words = [head, *(items.items if items is not None else ())]
    line = concat([part for index, word in enumerate(words) for part in ((" ",) * (index > 0), word)])
    open_ = items is None or items.open
    launch = _through(site, shell(site, concat([line, (" ", *UNKNOWN) if open_ else ()])), setting)
    if use_shell is None:
        if isinstance(setting, Node) and condition(program, setting):
            return [direct, fed(site, launch, options)]
        launch = replace(launch, unknown=f"{site.api} has a shell option built at run time")
    return [fed(site, launch, options)]


def _through(site: Site, launch: Launch, setting: Node | Opt) -> Launch:
    """A shell line run by the shell the `shell` option names: a program other than a POSIX shell
    runs it as `program -c line`, as node does."""
    if not isinstance(setting, Node) or unwrap(setting).type not in _STRINGS or launch.shell is None:
        return launch
    name = site.program.literal(setting)
    if name is None or posixpath.basename(name) in _SHELLS:
        return launch
    line = None if launch.unknown else launch.shell
    return Launch(api=site.api, argv=(name, "-c", line), unknown=launch.unknown, line=site.line)


def _fork(site: Site) -> list[Launch]:
    if not site.args:
        return []
    program = site.program
    items, options = argv_and_options(program, site.args[1:])
    path = program.string(site.args[0])
    runner = option(program, options, "execPath")
    flags = option(program, options, "execArgv")
    head = ("node",) if runner is Opt.ABSENT else UNKNOWN if runner is Opt.UNKNOWN else program.string(runner)
    before = Items(()) if flags is Opt.ABSENT else None if flags is Opt.UNKNOWN else program.array(flags)
    if before is None or before.open:  # node's own options built at run time: `-e code` among them?
        launch = argv(site, (head,), None)
        return [replace(launch, unknown=f"{site.api} has node options built at run time")]
    return [argv(site, (head, *before.items, path), items)]


def _bun(site: Site) -> list[Launch]:
    program = site.program
    first = site.arg(0)
    if first is None:
        return []
    if unwrap(first).type == "object":
        command = option(program, first, "cmd")
        first = command if isinstance(command, Node) else None
    items = program.array(first)
    if items is None or not items.items:
        return [site.unknown("runs an argv built at run time")]
    return [argv(site, items.items[:1], Items(items.items[1:], items.open))]


def _deno_command(site: Site) -> list[Launch]:
    program = site.program
    if not site.args:
        return []
    args = option(program, site.arg(1), "args")
    items = Items(()) if args is Opt.ABSENT else None if args is Opt.UNKNOWN else program.array(args)
    return [argv(site, (program.string(site.args[0]),), items)]


def _deno_run(site: Site) -> list[Launch]:
    command = option(site.program, site.arg(0), "cmd")
    return _bun(replace(site, args=(command,))) if isinstance(command, Node) else [site.unknown()]


def _remover(default: str, always: bool = False, globs: bool = False) -> Callable[[Site], list[Launch]]:
    """`rm`/`rmdir` of a known path: recursive (`rm -rf`) when `always` or asked to (or maybe asked).
    `globs`: the API expands a pattern (rimraf's), which the walker reads as every match."""

    def remove(site: Site) -> list[Launch]:
        target = site.arg(0)
        items = site.program.array(target) if globs and target is not None else None
        values = (
            list(items.items)
            if items is not None
            else [site.program.string(target)]
            if target is not None
            else []
        )
        recursive = always or flag(site.program, option(site.program, site.arg(1), "recursive")) is not False
        head = ("rm", "-rf") if recursive else (default,)
        found = [_removal(site, head, value, globs) for value in values]
        return [launch for launch in found if launch is not None]

    return remove


def _removal(site: Site, head: tuple[str, ...], value: Parts, globs: bool) -> Launch | None:
    """The removal of one path: an argv, or a shell line when it is a glob (every entry of a listed
    directory, a pattern rimraf expands); nothing for a path built at run time (data)."""
    path = as_path(value)
    pattern = as_glob(value) if path is None else glob_word(path) if globs and _WILD.search(path) else None
    if pattern is not None:
        return Launch(api=site.api, shell=" ".join((*head, pattern)), line=site.line)
    return Launch(api=site.api, argv=(*head, path), line=site.line) if path is not None else None


def _eval(site: Site) -> list[Launch]:
    return code(site, site.program.string(site.arg(0))) if site.args else []


def _function(site: Site) -> list[Launch]:
    """`new Function(params..., body)`: the parameters are code too (their defaults run)."""
    if not site.args:
        return []
    values = [literal(site.program.string(arg)) for arg in site.args]
    if any(value is None for value in values):
        return [site.unknown("runs code built at run time")]
    texts = [value or "" for value in values]
    source = f"(function anonymous({','.join(texts[:-1])}\n) {{\n{texts[-1]}\n}})"
    return code(site, (source,))


def _timer(site: Site) -> list[Launch]:
    """`setTimeout("code", ms)`; a function (the usual case) runs no string."""
    first = site.arg(0)
    if first is None:
        return []
    node = unwrap(first)
    if node.type == "identifier":
        found = site.program.resolve(site.program.text(node))
        node = unwrap(found[1]) if found is not None else node
    return _eval(site) if node.type in _STRINGS else []


def _worker(site: Site) -> list[Launch]:
    """`new Worker(code, {eval: true})` runs `code`; a file name runs a file rein cannot see."""
    is_code = flag(site.program, option(site.program, site.arg(1), "eval"))
    if is_code is False:
        return []
    return _eval(site) if is_code else [site.unknown("may run code built at run time")]


def _internal(site: Site) -> list[Launch]:
    return [site.unknown("reaches node's internals, which can start processes")]


def _shelljs_rm(site: Site) -> list[Launch]:
    """shelljs's `rm("-rf", path)`: the command, when every argument is known."""
    words = [as_path(site.program.string(arg)) for arg in site.args]
    known = [word for word in words if word is not None]
    return (
        [Launch(api=site.api, argv=("rm", *known), line=site.line)]
        if known and len(known) == len(words)
        else []
    )


_REMOVERS = {
    "rmSync": "rm",
    "rm": "rm",
    "rmdirSync": "rmdir",
    "rmdir": "rmdir",
    "unlinkSync": "rm",
    "unlink": "rm",
}
_EXECA = ("execa", "execaSync", "sync", "execaNode")
_EXECA_LINES = ("execaCommand", "execaCommandSync", "command", "commandSync")
HANDLERS: dict[Ref, Handler] = {
    Ref("child_process", "exec"): _exec, Ref("child_process", "execSync"): _exec,
    **{Ref("child_process", name): _spawn for name in ("execFile", "execFileSync", "spawn", "spawnSync")},
    Ref("child_process", "fork"): _fork,
    Ref("bun", "spawn"): _bun, Ref("bun", "spawnSync"): _bun,
    Ref("deno", "Command"): _deno_command, Ref("deno", "run"): _deno_run,
    Ref("deno", "remove"): _remover("rm"), Ref("deno", "removeSync"): _remover("rm"),
    **{Ref(module, name): _remover(default) for module in ("fs", "fs/promises", "fs-extra")
       for name, default in _REMOVERS.items()},
    **{Ref("fs-extra", name): _remover("rm", always=True)
       for name in ("remove", "removeSync", "emptyDir", "emptyDirSync", "emptydir")},
    Ref("rimraf"): _remover("rm", always=True, globs=True),
    **{Ref("rimraf", name): _remover("rm", always=True, globs=True)
       for name in ("sync", "rimraf", "rimrafSync", "native", "nativeSync", "manual", "manualSync",
                    "posix", "posixSync", "windows", "windowsSync", "moveRemove", "moveRemoveSync")},
    Ref("", "eval"): _eval, Ref("", "Function"): _function,
    Ref("", "setTimeout"): _timer, Ref("", "setInterval"): _timer,
    **{Ref("vm", name): _eval for name in ("runInNewContext", "runInThisContext", "runInContext", "Script")},
    Ref("vm", "compileFunction"): _eval,
    Ref("worker_threads", "Worker"): _worker,
    **{Ref("process", name): _internal for name in ("binding", "_linkedBinding", "dlopen")},
    Ref("execa"): _spawn, **{Ref("execa", name): _spawn for name in _EXECA},
    **{Ref("execa", name): _exec for name in _EXECA_LINES},
    **{Ref("cross-spawn", name): _spawn for name in ("", "spawn", "sync")},
    Ref("shelljs", "exec"): _exec, Ref("shelljs", "rm"): _shelljs_rm,
}  # fmt: skip
"""The handler of each API, by what the callee stands for."""
_QUIET = frozenset(
    {Ref("", "setTimeout"), Ref("", "setInterval"), Ref("deno", "remove"), Ref("deno", "removeSync")}
)
LAUNCHERS = frozenset(
    ref
    for ref in HANDLERS
    if ref.module not in ("fs", "fs/promises", "fs-extra", "rimraf") and ref not in _QUIET
)
"""APIs that start processes or run code: one passed where rein cannot follow it is an unknown launch."""
