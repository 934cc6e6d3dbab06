"""Process APIs outside the standard library's process modules: unpickling data the program holds
(which calls whatever the data names, see `_deserialize`), `runpy` and `code`'s interpreters,
`distutils.spawn`, `pipes.Template`, invoke and fabric (`c.run(cmd)`), and the command libraries
`sh` (`sh.git.push("-f")` runs `git push -f`) and plumbum (`local["git"]["push", "-f"]()`).
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterator, Mapping

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.python._call_site import (
    SHELLS,
    Handler,
    Site,
    argv,
    opaque,
    program_argument,
    shell,
    unknown,
    written,
)
from rein.steering.bash.launch.python._deserialize import DESERIALIZERS
from rein.steering.bash.launch.python._scope import Scope
from rein.steering.bash.launch.python._values import Const, Seq, Text, Value, concat, word

LIBRARIES: dict[str, Handler] = {
    **DESERIALIZERS,
    **{f"runpy.{name}": opaque("runs a Python program rein cannot read")
       for name in ("run_path", "run_module")},
    **{name: opaque("runs the Python code it reads from its input") for name in (
        "code.interact", "code.InteractiveConsole.interact")},
    **{f"gc.{name}": opaque("reaches every object, which may be a process API") for name in (
        "get_objects", "get_referrers", "get_referents")},
    "distutils.spawn.spawn": lambda site: program_argument(site, site.argument(0, "cmd")),
    **{f"pipes.Template.{name}": shell(0, "cmd") for name in ("append", "prepend")},
    **{f"{owner}.{name}": shell(0, "command") for owner, names in (
        ("invoke", "run sudo"), ("invoke.Context", "run sudo"), ("invoke.context.Context", "run sudo"),
        ("fabric.Connection", "run sudo local"), ("fabric.connection.Connection", "run sudo local"),
        ("fabric.api", "run sudo local"), ("fabric.operations", "run sudo local"),
    ) for name in names.split()},
}  # fmt: skip
"""Process APIs of other libraries, by qualified name."""
_SH_OWN = frozenset({
    "which", "glob", "pushd", "RunningCommand", "ErrorReturnCode", "SignalException", "TimeoutException",
    "ForkException", "CommandNotFound", "__version__", "args",
})  # fmt: skip
"""What the `sh` module holds that is no command."""
_LOCALS = frozenset({"plumbum.local", "plumbum.machines.local", "plumbum.machines.local.local"})
_CMD = ("plumbum.cmd.", "plumbum.local.cmd.")
_RUNNERS = frozenset({"run", "popen", "run_fg", "run_bg", "run_tee", "run_nohup", "run_retcode", "__call__"})
_INTERPRETERS = frozenset({*SHELLS, "python", "python3", "node", "perl", "ruby", "php"})
_DEPTH = 20


def command(name: str) -> bool:
    """Whether `name` is a command of the `sh` library (`sh.git`, `sh.git.push`)."""
    return name.startswith("sh.") and name.split(".")[1] not in _SH_OWN


def library(site: Site) -> Iterator[Launch]:
    """What a call through `sh` or plumbum runs."""
    scope, func = site.scope, site.node.func
    if "sh" in scope.names.spelled:
        for name in scope.resolve(func):
            if command(name):
                yield from _sh(site, name.split(".")[1:])
                return
    if "plumbum" in scope.names.spelled:
        words, given = _command(scope, func), scope.sequence(site.node.args)
        if words is None and isinstance(func, ast.Attribute) and func.attr in _RUNNERS:
            words = _command(scope, func.value)
            if func.attr != "__call__":  # `cmd.run(("push", "-f"))`: its first argument is the argv's rest
                first = given.items[0] if given.items else Seq(())
                given = first if isinstance(first, Seq) else Seq((first,), given.open and not given.items)
        if words is not None:
            yield from argv(site, [*words, *given.items], given.open)


def _sh(site: Site, parts: list[str]) -> Iterator[Launch]:
    """`sh.git.push("-f", force=True)`: the command and subcommands its attributes name, then its
    arguments (lists spread) and keyword options (`--force`); `_`-keywords are `sh`'s own options."""
    if parts[0] in ("Command", "contrib") or "bake" in parts:
        yield site.unknown("names a command through the sh library rein cannot follow")
        return
    words: list[Value] = [Text((part,)) for part in parts]
    open_ = False
    for item in site.scope.sequence(site.node.args).items:
        words += item.items if isinstance(item, Seq) else [item]
        open_ = open_ or (isinstance(item, Seq) and item.open)
    for keyword in site.node.keywords:
        name = keyword.arg
        if name is None:
            open_ = True
        elif name == "_in" and posixpath.basename(parts[0]) in _INTERPRETERS:
            yield site.unknown(f"feeds {parts[0]} a program on its input rein cannot read")
        elif not name.startswith("_"):
            flag = ("-" if len(name) == 1 else "--") + name.replace("_", "-")
            value = site.scope.value(keyword.value)
            if isinstance(value, Const) and value.value in (True, False, None):
                words += [Text((flag,))] if value.value else []
            else:
                words += [Text((flag,)), value] if len(name) == 1 else [concat(Text((flag + "=",)), value)]
    yield from argv(site, words, open_)


def _command(scope: Scope, node: ast.expr, depth: int = 0) -> list[Value] | None:
    """The words of the plumbum command `node` is: `local["git"]`, `plumbum.cmd.git`,
    `git["push", "-f"]` (arguments bound to it)."""
    if depth > _DEPTH:
        return None
    if isinstance(node, ast.Subscript):
        inner = _command(scope, node.value, depth + 1)
        if inner is None:
            local = any(name in _LOCALS for name in scope.resolve(node.value))
            return [scope.value(node.slice)] if local else None
        bound = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return [*inner, *scope.sequence(bound).items]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        local = any(name in _LOCALS for name in scope.resolve(node.func.value))
        return [scope.value(node.args[0])] if local and node.args else None
    if isinstance(node, ast.Name) and node.id in scope.names.consts:
        return _command(scope, scope.names.consts[node.id], depth + 1)
    for name in scope.resolve(node):
        for prefix in _CMD:
            if name.startswith(prefix) and "." not in name[len(prefix) :]:
                return [Text((name[len(prefix) :],))]
    return None


def loose(
    node: ast.expr, parents: Mapping[ast.AST, ast.AST], scope: Scope, text: str, line: int
) -> Iterator[Launch]:
    """A plumbum command used other than by calling or running it: `git["push"] & FG` runs it, and
    a pipeline or a command passed on runs where rein does not follow it."""
    if "plumbum" not in scope.names.spelled or not isinstance(node, ast.Subscript | ast.Attribute | ast.Name):
        return
    parent = parents.get(node)
    if isinstance(parent, ast.Call) and parent.func is node:
        return
    if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in _RUNNERS:
        return
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return
    if isinstance(parent, ast.Assign) and all(isinstance(t, ast.Name) for t in parent.targets):
        return
    if isinstance(parent, ast.Attribute | ast.Subscript | ast.Name) or parent is None:
        return
    words = _command(scope, node)
    if words is None:
        return
    api = written(text, node)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.BitAnd) and parent.left is node:
        found = [word(value) for value in words]
        yield Launch(
            api=api,
            argv=tuple(found),
            line=line,
            unknown="" if found[0] else f"{api} runs a program whose name is built at run time",
        )
    else:
        yield unknown(api, "is a plumbum command used where rein cannot follow it", line)
