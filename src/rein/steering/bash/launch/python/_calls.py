"""The standard library's functions and methods that build strings and paths, applied to values
rein knows (`_python_values`): `shlex.join`, `os.path.join`, `Path.home()`, `" ".join(...)`,
`"...".format(...)`. A function or method not listed here returns a value built at run time.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence

from rein.steering.bash.launch.python import _values as values
from rein.steering.bash.launch.python._values import Const, Home, Seq, Text, Value

Function = Callable[[Sequence[Value], Mapping[str, str]], Value]
PATHS = frozenset(f"pathlib.{kind}" for kind in ("Path", "PurePath", "PosixPath", "PurePosixPath"))
"""`pathlib`'s path classes: their `unlink()` removes a file."""
HOMES = frozenset(f"{path}.home" for path in PATHS)
_STR_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "encode", "decode"})


def _first(arguments: Sequence[Value]) -> Value:
    return arguments[0] if arguments else None


def _quote(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    known = values.as_text(_first(arguments)).known
    return values.text(None if known is None else shlex.quote(known))


def _str(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    first = _first(arguments)
    if len(arguments) != 1:
        return None
    if isinstance(first, Const):
        return values.constant(str(first.value))
    return first if isinstance(first, Text | Home) else None


def _chr(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    first = _first(arguments)
    if isinstance(first, Const) and isinstance(first.value, int) and 0 <= first.value < 0x110000:
        return Text((chr(first.value),))
    return None


def _sequence(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    first = _first(arguments)
    return first if isinstance(first, Seq) else None


def _environ(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    return values.environ(_first(arguments), env)


FUNCTIONS: dict[str, Function] = {
    "shlex.join": lambda arguments, env: values.joined(Text((" ",)), _first(arguments), quote=True),
    "shlex.quote": _quote,
    "shlex.split": lambda arguments, env: values.split(_first(arguments), shell=True),
    "os.path.join": lambda arguments, env: values.path_join(arguments),
    "os.path.expanduser": lambda arguments, env: values.expanduser(_first(arguments)),
    **{f"os.path.{name}": lambda arguments, env: values.normpath(_first(arguments))
       for name in ("abspath", "normpath", "realpath")},
    **dict.fromkeys(("os.fspath", "builtins.str"), _str),
    **dict.fromkeys(("builtins.list", "builtins.tuple"), _sequence),
    "builtins.chr": _chr,
    **dict.fromkeys(("os.getenv", "os.environ.get"), _environ),
    **{name: lambda arguments, env: values.pure_path(arguments) for name in PATHS},
    **{name: lambda arguments, env: Home() for name in HOMES},
}  # fmt: skip
"""Functions rein evaluates, by qualified name."""


def method(receiver: Value, name: str, arguments: Sequence[Value], keywords: Mapping[str, Value]) -> Value:
    """A method of a string or a path rein knows: `" ".join(...)`, `"{}".format(...)`,
    `Path("~").expanduser()`."""
    first = _first(arguments)
    if isinstance(receiver, Text):
        if name == "format":
            return values.formatted(receiver, arguments, keywords)
        if name == "join" and len(arguments) == 1:
            return values.joined(receiver, first)
        if name == "split":
            separator = values.as_text(first).known if arguments else None
            return None if arguments and separator is None else values.split(receiver, separator)
        known = receiver.known
        if name in _STR_METHODS and not arguments:
            return (
                receiver
                if known is None or name in ("encode", "decode")
                else values.text(getattr(known, name)())
            )
        if name == "replace" and len(arguments) == 2:
            old, new = values.as_text(arguments[0]).known, values.as_text(arguments[1]).known
            if known is None or old is None or new is None or len(known) * max(len(new), 1) > values.LENGTH:
                return None
            return values.text(known.replace(old, new))
    if isinstance(receiver, Text | Home):
        if name == "expanduser":
            return values.expanduser(receiver)
        if name in ("absolute", "resolve"):
            return values.normpath(receiver)
        if name == "joinpath":
            return values.pure_path([receiver, *arguments])
    return None
