"""What one call of a node, Bun or Deno process API launches, given what it calls and its arguments.

`child_process`: `exec`/`execSync` run a shell line; `execFile`/`spawn` (and their Sync forms) an argv,
or a shell line (the program and its arguments joined by spaces, as node does) with `shell: true`;
`fork` runs `node module args`. An `input` option of a Sync call is the launched command's stdin.
`Bun.spawn`, `new Deno.Command`, `Deno.run` run an argv; a template tagged `$` (Bun, zx) is a shell
line. The common npm wrappers too: execa (`execa` an argv, `execaCommand` a line), cross-spawn,
shelljs (`exec`, `rm`). Removing files through `fs` (`rmSync`, `rm`, `rmdir`, `unlink`, their promise
forms, fs-extra's `remove`) and `Deno.remove` is the `rm`/`rmdir` command it amounts to, when the path
is known or home (a path built at run time is data). Code run from a string (`eval`, `Function`, `vm`,
`setTimeout("...")`, a `Worker` with `eval: true`) is read with the same reader. Calls of anything
else launch nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._expr import Opt
from rein.steering.bash.launch.javascript._refs import Ref
from rein.steering.bash.launch.javascript._scan import unwrap
from rein.steering.bash.launch.javascript._site import (
    Site,
    argv,
    argv_and_options,
    code,
    fed,
    flag,
    shell,
)
from rein.steering.bash.launch.javascript._values import UNKNOWN, Items, as_path, concat, literal

Handler = Callable[[Site], list[Launch]]
CHILD_PROCESS = frozenset({"exec", "execSync", "execFile", "execFileSync", "spawn", "spawnSync", "fork"})
_STRINGS = frozenset({"string", "template_string", "binary_expression"})


def _exec(site: Site) -> list[Launch]:
    if not site.args:
        return []
    return [fed(site, shell(site, site.program.string(site.args[0])), site.arg(1))]


def _spawn(site: Site) -> list[Launch]:
    if not site.args:
        return []
    program = site.program
    head = program.string(site.args[0])
    items, options = argv_and_options(program, site.args[1:])
    use_shell = flag(program, program.option(options, "shell"))
    if use_shell is not False:
        words = [head, *(items.items if items is not None else ())]
        line = concat([part for index, word in enumerate(words) for part in ((" ",) * (index > 0), word)])
        open_ = items is None or items.open
        launch = shell(site, concat([line, (" ", *UNKNOWN) if open_ else ()]))
        why = f"{site.api} has a shell option built at run time" if use_shell is None else launch.unknown
        return [fed(site, replace(launch, unknown=why), options)]
    return [fed(site, argv(site, (head,), items), options)]


def _fork(site: Site) -> list[Launch]:
    if not site.args:
        return []
    program = site.program
    items, options = argv_and_options(program, site.args[1:])
    path = program.string(site.args[0])
    runner = program.option(options, "execPath")
    flags = program.option(options, "execArgv")
    head = ("node",) if runner is Opt.ABSENT else UNKNOWN if runner is Opt.UNKNOWN else program.string(runner)
    before = Items(()) if flags is Opt.ABSENT else None if flags is Opt.UNKNOWN else program.array(flags)
    if before is None or items is None:
        return [argv(site, (head,), None)]
    return [argv(site, (head, *before.items, path), Items(items.items, items.open or before.open))]


def _bun(site: Site) -> list[Launch]:
    program = site.program
    first = site.arg(0)
    if first is None:
        return []
    if unwrap(first).type == "object":
        command = program.option(first, "cmd")
        first = command if isinstance(command, Node) else None
    items = program.array(first)
    if items is None or not items.items:
        return [site.unknown("runs an argv built at run time")]
    return [argv(site, items.items[:1], Items(items.items[1:], items.open))]


def _deno_command(site: Site) -> list[Launch]:
    program = site.program
    if not site.args:
        return []
    args = program.option(site.arg(1), "args")
    items = Items(()) if args is Opt.ABSENT else None if args is Opt.UNKNOWN else program.array(args)
    return [argv(site, (program.string(site.args[0]),), items)]


def _deno_run(site: Site) -> list[Launch]:
    command = site.program.option(site.arg(0), "cmd")
    return _bun(replace(site, args=(command,))) if isinstance(command, Node) else [site.unknown()]


def _remover(default: str, always: bool = False) -> Callable[[Site], list[Launch]]:
    """`rm`/`rmdir` of a known path: recursive (`rm -rf`) when `always` or asked to (or maybe asked)."""

    def remove(site: Site) -> list[Launch]:
        target = site.arg(0)
        path = as_path(site.program.string(target)) if target is not None else None
        if path is None:
            return []  # a path built at run time: data, not a command rein can check
        recursive = always or flag(site.program, site.program.option(site.arg(1), "recursive")) is not False
        words = ("rm", "-rf", path) if recursive else (default, path)
        return [Launch(api=site.api, argv=words, line=site.line)]

    return remove


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
    is_code = flag(site.program, site.program.option(site.arg(1), "eval"))
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
    **{Ref("fs-extra", name): _remover("rm", always=True) for name in ("remove", "removeSync")},
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
    ref for ref in HANDLERS if ref.module not in ("fs", "fs/promises", "fs-extra") and ref not in _QUIET
)
"""APIs that start processes or run code: one passed where rein cannot follow it is an unknown launch."""
