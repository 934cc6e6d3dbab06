"""The standard library's functions and methods that build strings and paths, applied to values
rein knows (`_values`): `shlex.join`, `os.path.join`, `Path.home()`, `" ".join(...)`,
`"...".format(...)`. A function or method not listed here returns a value built at run time.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence

from rein.steering.bash.launch.python import _paths as paths
from rein.steering.bash.launch.python import _values as values
from rein.steering.bash.launch.python._values import Const, Dict, Glob, Home, Seq, Text, Value

Function = Callable[[Sequence[Value], Mapping[str, str]], Value]
PATHS = frozenset(f"pathlib.{kind}" for kind in ("Path", "PurePath", "PosixPath", "PurePosixPath"))
"""`pathlib`'s path classes: their `unlink()` removes a file."""
HOMES = frozenset(f"{path}.home" for path in PATHS)
CWDS = frozenset({*(f"{path}.cwd" for path in PATHS), "os.getcwd", "os.getcwdb"})
"""The working directory, written `.`: the command rein checks runs in it."""
_STR_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper"})
_ITEMS = 16
"""The most items of a literal rein spreads into pairs (`enumerate`, `zip`, `range`)."""


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
    return first if isinstance(first, Text | Home | Glob) else None


def _chr(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    first = _first(arguments)
    if isinstance(first, Const) and isinstance(first.value, int) and 0 <= first.value < 0x110000:
        return Text((chr(first.value),))
    return None


def _sequence(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    """`list(x)`, `tuple(x)`, `set(x)`, `reversed(x)`: a dict gives its keys."""
    first = _first(arguments)
    if isinstance(first, Dict):
        return Seq(tuple(key for key, _ in first.pairs))
    return first if isinstance(first, Seq) else None


def _sorted(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    first = _sequence(arguments, env)
    if len(arguments) != 1 or not isinstance(first, Seq) or first.open:
        return None
    if len(first.items) <= 1:
        return first
    texts = [item.known if isinstance(item, Text) else None for item in first.items]
    return None if None in texts else Seq(tuple(Text((known,)) for known in sorted(t for t in texts if t)))


def _enumerate(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    first = _sequence(arguments[:1], env)
    if not isinstance(first, Seq) or first.open or len(first.items) > _ITEMS or len(arguments) != 1:
        return None
    return Seq(tuple(Seq((Const(index), item)) for index, item in enumerate(first.items)))


def _zip(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    columns = [_sequence([argument], env) for argument in arguments]
    if not columns or not all(isinstance(c, Seq) and not c.open and len(c.items) <= _ITEMS for c in columns):
        return None
    return Seq(
        tuple(Seq(row) for row in zip(*(c.items for c in columns if isinstance(c, Seq)), strict=False))
    )


def _range(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    bounds = [a.value if isinstance(a, Const) and isinstance(a.value, int) else None for a in arguments]
    if not 1 <= len(bounds) <= 3 or None in bounds:
        return None
    numbers = range(*(int(b or 0) for b in bounds))
    return Seq(tuple(Const(n) for n in numbers)) if len(numbers) <= _ITEMS else None


def _environ(arguments: Sequence[Value], env: Mapping[str, str]) -> Value:
    return values.environ(_first(arguments), env)


def _listed(names: bool) -> Function:
    """`os.listdir(d)` (names) and `os.scandir(d)` (entries, which are paths): every entry of `d`."""
    return lambda arguments, env: paths.entries(arguments[0] if arguments else Text((".",)), names=names)


FUNCTIONS: dict[str, Function] = {
    "shlex.join": lambda arguments, env: values.joined(Text((" ",)), _first(arguments), quote=True),
    "shlex.quote": _quote,
    "shlex.split": lambda arguments, env: values.split(_first(arguments), shell=True),
    "os.path.join": lambda arguments, env: paths.path_join(arguments),
    "os.path.expanduser": lambda arguments, env: paths.expanduser(_first(arguments)),
    **{f"os.path.{name}": lambda arguments, env: paths.normpath(_first(arguments))
       for name in ("abspath", "normpath", "realpath")},
    "os.path.dirname": lambda arguments, env: paths.parent(_first(arguments)),
    **dict.fromkeys(("os.fspath", "builtins.str"), _str),
    **dict.fromkeys(("builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset",
                     "builtins.reversed"), _sequence),
    "builtins.sorted": _sorted,
    "builtins.enumerate": _enumerate,
    "builtins.zip": _zip,
    "builtins.range": _range,
    "builtins.chr": _chr,
    **dict.fromkeys(("os.getenv", "os.environ.get"), _environ),
    "shutil.which": lambda arguments, env: _first(arguments) if isinstance(_first(arguments), Text) else None,
    "tempfile.gettempdir": lambda arguments, env: Text((env.get("TMPDIR", "/tmp"),)),
    **dict.fromkeys(("glob.glob", "glob.iglob"), lambda arguments, env: paths.globbed(_first(arguments))),
    "os.listdir": _listed(names=True),
    "os.scandir": _listed(names=False),
    **{name: lambda arguments, env: paths.pure_path(arguments) for name in PATHS},
    **{name: lambda arguments, env: Home() for name in HOMES},
    **{name: lambda arguments, env: Text((".",)) for name in CWDS},
}  # fmt: skip
"""Functions rein evaluates, by qualified name."""
ATTRIBUTES: dict[str, Callable[[Mapping[str, str]], Value]] = {
    "sys.executable": lambda env: Text(("python3",)),  # the interpreter running the program
    **dict.fromkeys(("os.sep", "os.path.sep"), lambda env: Text(("/",))),
    **dict.fromkeys(("os.curdir", "os.path.curdir"), lambda env: Text((".",))),
    **dict.fromkeys(("os.pardir", "os.path.pardir"), lambda env: Text(("..",))),
}
"""Module attributes rein knows the value of, by qualified name."""


def attribute(receiver: Value, name: str) -> Value:
    """An attribute of a path rein knows: `.parent`, `.anchor`, a directory entry's `.path`."""
    if not isinstance(receiver, Text | Home | Glob):
        return None
    if name == "parent":
        return paths.parent(receiver)
    if name == "path":
        return receiver
    if name == "anchor":
        absolute = isinstance(receiver, Home) or (
            isinstance(receiver, Text) and (receiver.known or "")[:1] == "/"
        )
        return Text(("/" if absolute else "",))
    return None


def method(receiver: Value, name: str, arguments: Sequence[Value], keywords: Mapping[str, Value]) -> Value:
    """A method of a string, a dict or a path rein knows: `" ".join(...)`, `"{}".format(...)`,
    `d.items()`, `Path("~").expanduser()`, `Path.home().iterdir()`."""
    first = _first(arguments)
    if isinstance(receiver, Dict):
        return _dict_method(receiver, name, arguments)
    if isinstance(receiver, Text):
        if name == "format":
            return values.formatted(receiver, arguments, keywords)
        if name == "join" and len(arguments) == 1:
            return values.joined(receiver, first)
        if name == "split":
            separator = values.as_text(first).known if arguments else None
            return None if arguments and separator is None else values.split(receiver, separator)
        known = receiver.known
        if name in ("encode", "decode"):
            return receiver
        if name in _STR_METHODS and not arguments:
            return receiver if known is None else values.text(getattr(known, name)())
        if name in ("strip", "lstrip", "rstrip") and len(arguments) == 1:
            chars = values.as_text(first).known
            return None if known is None or chars is None else values.text(getattr(known, name)(chars))
        if name == "replace" and len(arguments) == 2:
            old, new = values.as_text(arguments[0]).known, values.as_text(arguments[1]).known
            if known is None or old is None or new is None or len(known) * max(len(new), 1) > values.LENGTH:
                return None
            return values.text(known.replace(old, new))
    if isinstance(receiver, Home) and name == "rstrip" and values.as_text(first).known == "/":
        return Home(receiver.rest.rstrip("/"))
    if isinstance(receiver, Text | Home | Glob):
        return _path_method(receiver, name, arguments)
    return None


def _dict_method(receiver: Dict, name: str, arguments: Sequence[Value]) -> Value:
    if name == "items" and not arguments:
        return Seq(tuple(Seq(pair) for pair in receiver.pairs))
    if name in ("keys", "values") and not arguments:
        return Seq(tuple(pair[0 if name == "keys" else 1] for pair in receiver.pairs))
    if name == "get" and len(arguments) in (1, 2):
        found = receiver.get(arguments[0])
        return found if found is not None or len(arguments) == 1 else None
    return None


def _path_method(receiver: Text | Home | Glob, name: str, arguments: Sequence[Value]) -> Value:
    if name == "expanduser":
        return paths.expanduser(receiver)
    if name in ("absolute", "resolve"):
        return paths.normpath(receiver)
    if name == "joinpath":
        return paths.pure_path([receiver, *arguments])
    if name == "iterdir" and not arguments:
        return paths.entries(receiver)
    if name == "glob" and len(arguments) == 1:
        pattern = values.as_text(arguments[0]).known
        return None if pattern is None else paths.entries(receiver, pattern)
    return None
