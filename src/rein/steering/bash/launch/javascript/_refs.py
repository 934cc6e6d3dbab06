"""What a JavaScript expression may stand for: a module, or a member of one.

A `Ref` is a module object (`require('child_process')`, `import * as cp`, the globals `Bun` and
`Deno`, and in `node -e` the built-in modules themselves) or one of its members (`cp.execSync`);
globals such as `eval` and `require` are members of the module ``. Sub-objects the readers look into
are modules of their own: `fs.promises` is `fs/promises`, `process.env` is `process.env`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Ref:
    """A module object (`name` empty) or one of its members."""

    module: str
    name: str = ""


REQUIRE = Ref("", "require")
_GLOBAL_OBJECT = Ref("global")
GLOBALS = {
    "Bun": Ref("bun"), "Deno": Ref("deno"), "process": Ref("process"), "module": Ref("module"),
    "require": REQUIRE, "eval": Ref("", "eval"), "Function": Ref("", "Function"),
    "setTimeout": Ref("", "setTimeout"), "setInterval": Ref("", "setInterval"),
    # `node -e` and `-p` (like the REPL) have the built-in modules as globals: `child_process.exec(...)`.
    **{name: Ref(name) for name in ("child_process", "fs", "os", "path", "vm", "worker_threads", "util")},
    "globalThis": _GLOBAL_OBJECT, "global": _GLOBAL_OBJECT, "window": _GLOBAL_OBJECT, "self": _GLOBAL_OBJECT,
}  # fmt: skip
_SUBMODULES = {
    ("fs", "promises"): "fs/promises", ("fs-extra", "promises"): "fs/promises", ("path", "posix"): "path",
    ("process", "env"): "process.env", ("process", "mainModule"): "module", ("deno", "env"): "deno.env",
}  # fmt: skip
_MODULE_ALIASES = {"path/posix": "path", "zx/core": "zx", "fs-extra/esm": "fs-extra"}


def module_name(spec: str) -> str:
    """The module a `require`/`import` specifier names: `node:fs` is `fs`."""
    name = spec.removeprefix("node:")
    return _MODULE_ALIASES.get(name, name)


def member(base: Ref | None, key: str) -> Ref | None:
    """What `base.key` stands for."""
    if base is None:
        return None
    if base.name:
        return base if base.name == "$" else None  # `$.sync`, `$.nothrow` are zx's `$` too
    if key == "default":  # `import * as cp` then `cp.default.exec`
        return base
    if base == _GLOBAL_OBJECT:
        return GLOBALS.get(key)
    sub = _SUBMODULES.get((base.module, key))
    return Ref(sub) if sub else Ref(base.module, key)
