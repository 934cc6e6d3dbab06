"""Which Ruby calls are process APIs (`system`, `Open3.capture2`, `IO.popen`, `open("|cmd")`, ...),
and how each takes its command: one string runs through a shell, several are an argv, a leading env
hash and trailing options are skipped, a `[cmd, argv0]` pair names the program.

It does not decide what a receiver is (the reader names it) or read eval'd code.
"""

from __future__ import annotations

from rein.steering.bash.launch._folding import (
    RUNTIME_VALUE,
    SPREAD,
    Mark,
    Value,
    argv_launch,
    command_launch,
    shell_launch,
    unknown_launch,
)
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.ruby._values import Values

KERNEL = frozenset({"", "Kernel", "self", "Object"})
_SPAWN = {"system": KERNEL, "exec": KERNEL | {"Process"}, "spawn": KERNEL | {"Process", "PTY"}}
OPEN3 = frozenset({"popen3", "popen2", "popen2e", "capture2", "capture2e", "capture3"})
PIPELINE = frozenset({"pipeline", "pipeline_r", "pipeline_w", "pipeline_rw", "pipeline_start"})
_PIPE_READ = frozenset({"read", "readlines", "foreach", "write", "binread", "binwrite"})
EVAL = frozenset({"instance_eval", "class_eval", "module_eval"})
SEND = frozenset({"send", "__send__", "public_send"})
CALL = frozenset({"call", "yield", "===", "[]"})
REFERENCES = frozenset({"method", "public_method", "singleton_method", "instance_method"})
ANY_RECEIVER = frozenset({"system", "spawn", "`"})
"""Kernel's private methods no other object has: called on a receiver rein cannot name (`k.system`
with `k = Kernel`, `Object.const_get(:Kernel).system`), they are Kernel's."""
RM_RF = frozenset({"rm_rf", "rm_r", "remove_dir", "remove_entry", "remove_entry_secure", "rmtree"})
RM = {"rm": ("rm",), "rm_f": ("rm", "-f"), "remove": ("rm",), "remove_file": ("rm",), "rmdir": ("rmdir",)}
PATHNAME_REMOVALS = {"rmtree": ("rm", "-rf"), "delete": ("rm",), "unlink": ("rm",)}
"""`Pathname#rmtree` and kin, on a `Pathname.new(p)`."""


def kind(owner: str, method: str) -> str | None:
    """Which process API `owner.method` is, if any."""
    if owner in _SPAWN.get(method, ()) or (owner == "Open3" and method in OPEN3):
        return "spawn"
    if owner == "Open3" and method in PIPELINE:
        return "pipeline"
    if method == "`" and owner in KERNEL:
        return "backticks"
    kinds = {
        "popen": method == "popen" and owner in ("IO", "File"),
        "pipe": (method == "open" and owner in KERNEL) or (owner == "IO" and method in _PIPE_READ),
        "eval": (method == "eval" and owner in (*KERNEL, "binding"))
        or method in EVAL
        or (owner == "RubyVM::InstructionSequence" and method in ("compile", "new")),
        "remove": (owner in ("FileUtils", "") and method in RM_RF)
        or (owner == "FileUtils" and method in RM)
        or (owner == "File" and method in ("delete", "unlink"))
        or (owner == "Dir" and method in ("rmdir", "delete", "unlink")),
    }
    return next((name for name, hit in kinds.items() if hit), None)


def spawn(values: Values, api: str, args: list[Node], at: int) -> Launch | None:
    """`system([env,] command... [, options])`: one string is a shell line, more an argv, a
    `[cmd, argv0]` pair first names the program."""
    if args and args[0].type == "hash":
        args = args[1:]
    if len(args) > 1 and args[-1].type == "hash":
        args = args[:-1]
    if not args:
        return None
    items: list[Value] = []
    pair = False
    for index, arg in enumerate(args):
        if arg.type == "splat_argument":
            inner = arg.named_children
            items.extend((values.items(inner[0]) if inner else None) or [SPREAD])
            continue
        listed = values.items(arg) if index == 0 else None
        pair = pair or listed is not None
        items.append((listed or [RUNTIME_VALUE])[0] if listed is not None else values.fold(arg))
    return argv_launch(api, items, at) if pair else command_launch(api, items, at)


def popen(values: Values, api: str, args: list[Node], at: int) -> Launch | None:
    """`IO.popen([env,] cmd, ...)`: a string is a shell line (`"-"` forks), an array an argv."""
    if args and args[0].type == "hash":
        args = args[1:]
    if not args:
        return None
    listed = values.items(args[0])
    if listed is None:
        value = values.fold(args[0])
        return None if value.text == "-" else shell_launch(api, value, at)
    elements = (
        [arg for arg in args[0].named_children if arg.type != "hash"] if args[0].type == "array" else []
    )
    first = values.items(elements[0]) if elements else None
    if first is not None:  # [[cmd, argv0], args...]
        listed = [first[0] if first else RUNTIME_VALUE, *(values.fold(e) for e in elements[1:])]
    elif elements:
        listed = [item for e in elements for item in (values.items(e) or [values.fold(e)])]
    return argv_launch(api, listed, at)


def pipe(values: Values, api: str, args: list[Node], at: int) -> Launch | None:
    """`open("|cmd")`: a path starting with `|` runs the rest by a shell (`|-` forks); a path
    built at run time may start with one."""
    if not args:
        return None
    value = values.fold(args[0])
    head = value.parts[0] if value.parts else ""
    if isinstance(head, str):
        if not head.startswith("|") or value.text == "|-":
            return None
        return shell_launch(api, Value((head[1:], *value.parts[1:])), at)
    if head is not Mark.RUNTIME:
        return None
    return unknown_launch(
        api, f"{api} opens a path built at run time, which runs a command if it starts with |", at
    )
