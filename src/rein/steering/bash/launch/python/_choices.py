"""The values of a name that takes several: each item of the literal a loop runs over (`for cmd in
["npm ci", "npm test"]`, `for name, cmd in {...}.items()`), and each argument the calls of a helper
function pass its parameter (`def sh(c): ...` called as `sh("npm ci")`), with its defaults, keywords
and `*args`.

A binding gives values to all the names one loop target or one call binds together. A loop over
something built at run time, or over more than `LOOP_ITEMS` items, has no list of bindings: its names
are built at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rein.steering.bash.launch.python._names import Function, targets
from rein.steering.bash.launch.python._values import Dict, Seq, Text, Value

if TYPE_CHECKING:
    from rein.steering.bash.launch.python._scope import Scope

LOOP_ITEMS = 16
"""The most items of a loop rein runs once each."""
_OPTIONS = 64
"""The most bindings of one name."""
Binding = dict[str, Value]


def alternatives(scope: Scope, key: str) -> list[Binding] | None:
    """Every binding of the names `key` is bound with (a name, or one helper's parameter: `key`);
    None when they cannot be listed."""
    options: list[Binding] = []
    owner = scope.owner(key)
    name = key.partition("@")[0]
    for loop in scope.names.loops.get(name, ()) if owner is None else ():
        items = _items(scope, loop.iterable)
        if items is None:
            return None
        options += [dict(_unpack(loop.target, item)) for item in items]
    for helper in scope.flow.helpers.get(name, ()):
        if owner is not None and helper.node is not owner:
            continue
        for call in helper.calls:
            options += scope.outcomes(lambda: _arguments(scope, helper.node, call))  # noqa: B023
            if len(options) > _OPTIONS:
                return None
    unique = list({tuple(option.items()): option for option in options}.values())
    return unique if len(unique) <= _OPTIONS else None


def _items(scope: Scope, iterable: ast.expr) -> list[Value] | None:
    """The items a loop runs over, in each binding of the names its iterable reads."""
    found: list[Value] = []
    for value in scope.outcomes(lambda: scope.value(iterable)):
        if isinstance(value, Seq) and not value.open:
            found += value.items
        elif isinstance(value, Dict):
            found += [key for key, _ in value.pairs]
        elif isinstance(value, Text) and value.known is not None and len(value.known) <= LOOP_ITEMS:
            found += [Text((char,)) for char in value.known]
        else:
            return None
        if len(found) > LOOP_ITEMS:
            return None
    return found


def _unpack(target: ast.expr, item: Value) -> Iterator[tuple[str, Value]]:
    """The names `target` binds to `item` (`for name, cmd in pairs`)."""
    if isinstance(target, ast.Name):
        yield target.id, item
        return
    parts: tuple[Value, ...] | None = None
    if isinstance(target, ast.Tuple | ast.List) and not any(isinstance(e, ast.Starred) for e in target.elts):
        if isinstance(item, Seq) and not item.open:
            parts = item.items
        elif isinstance(item, Text) and item.known is not None:
            parts = tuple(Text((char,)) for char in item.known)
    if isinstance(target, ast.Tuple | ast.List) and parts is not None and len(parts) == len(target.elts):
        for element, part in zip(target.elts, parts, strict=True):
            yield from _unpack(element, part)
    else:
        yield from ((bound, None) for bound in targets(target))


def _arguments(scope: Scope, function: Function | ast.Lambda, call: ast.Call) -> Binding:
    """What one call binds a helper's parameters to."""
    params = function.args
    binding: Binding = {}
    positional = [*params.posonlyargs, *params.args]
    given = scope.sequence(call.args)
    keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    spread = any(kw.arg is None for kw in call.keywords)  # `f(**options)`
    defaults = dict(zip(positional[len(positional) - len(params.defaults) :], params.defaults, strict=True))
    defaults.update((p, d) for p, d in zip(params.kwonlyargs, params.kw_defaults, strict=True) if d)
    for index, param in enumerate([*positional, *params.kwonlyargs]):
        named = param not in params.posonlyargs and param.arg in keywords
        if index < len(positional) and index < len(given.items):
            binding[scope.parameter(param.arg, function)] = given.items[index]
        elif index < len(positional) and given.open:
            binding[scope.parameter(param.arg, function)] = None
        elif named:
            binding[scope.parameter(param.arg, function)] = scope.value(keywords[param.arg])
        elif not spread and param in defaults:
            binding[scope.parameter(param.arg, function)] = scope.value(defaults[param])
        else:
            binding[scope.parameter(param.arg, function)] = None
    if params.vararg is not None:
        binding[scope.parameter(params.vararg.arg, function)] = Seq(
            given.items[len(positional) :], given.open
        )
    if params.kwarg is not None:
        own = {param.arg for param in [*positional, *params.kwonlyargs]}
        extra = tuple((Text((k,)), scope.value(v)) for k, v in keywords.items() if k not in own)
        binding[scope.parameter(params.kwarg.arg, function)] = None if spread else Dict(extra)
    return binding
