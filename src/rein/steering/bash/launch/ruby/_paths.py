"""Ruby expressions whose value is a path rein knows: `Dir.home`, `ENV["HOME"]` (and other variables
from the environment rein knows), `Dir.pwd`, `File.expand_path`, `File.dirname`, `File.join`,
`Pathname.new(p)`, and globs (`Dir.glob(p)`, `Dir[p]`, a leading `~` expanded). A literal `~` is no
home directory: only `File.expand_path` expands it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rein.steering.bash.launch._folding import (
    CWD_VALUE,
    HOME_VALUE,
    RUNTIME_VALUE,
    Value,
    below,
    environment,
    globbed,
    literal,
    parent,
)
from rein.steering.bash.launch._tree import Node

if TYPE_CHECKING:
    from rein.steering.bash.launch.ruby._values import Values


def path_value(
    values: Values, node: Node, receiver: Node | None, method: str, args: list[Node]
) -> Value | None:
    """The path a call gives, when it is one of these; None for any other call."""
    owner = values.name(receiver).lstrip(":") if receiver is not None else ""
    if owner == "Dir" and method in ("home", "pwd", "getwd") and not args:
        return HOME_VALUE if method == "home" else CWD_VALUE
    if owner == "Dir" and method == "glob" and args:
        return globbed(values.fold(args[0]))
    if method == "fetch":
        return env_value(values, receiver, args)
    if owner == "File" and method in ("expand_path", "absolute_path", "realpath") and len(args) == 1:
        value = values.fold(args[0])
        return below(value.text, home=method == "expand_path") if value.text is not None else value
    if owner == "File" and method == "dirname" and len(args) == 1:
        return parent(values.fold(args[0]))
    if pathname(values, node) and len(args) == 1:  # `Pathname.new(p)`, `Pathname(p)`
        return values.fold(args[0])
    if owner == "File" and method == "join" and args:
        return _join([values.fold(arg) for arg in args])
    return None


def env_value(values: Values, receiver: Node | None, keys: list[Node]) -> Value:
    """`ENV['HOME']`, `ENV.fetch('X')`: the variable, as far as rein knows it."""
    if receiver is None or values.name(receiver).lstrip(":") != "ENV" or not keys:
        return RUNTIME_VALUE
    return environment(values.env, values.fold(keys[0]).text)


def pathname(values: Values, call: Node) -> bool:
    """Whether `call` makes a `Pathname` of a path: `Pathname.new(p)`, `Pathname(p)`."""
    receiver = call.child_by_field_name("receiver")
    method = values.name(call.child_by_field_name("method"))
    if receiver is None:
        return method == "Pathname"
    return method == "new" and values.name(receiver).lstrip(":") == "Pathname"


def _join(parts: list[Value]) -> Value:
    """`File.join`: the parts joined by one slash."""
    joined = parts[0]
    for part in parts[1:]:
        tail, head = joined.parts[-1:], part.parts[:1]
        slash = tail and isinstance(tail[0], str) and tail[0].endswith("/")
        slash = slash or (head and isinstance(head[0], str) and head[0].startswith("/"))
        joined = joined + (part if slash else literal("/") + part)
    return joined
