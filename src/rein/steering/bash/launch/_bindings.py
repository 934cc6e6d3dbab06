"""Variables of a Ruby, Perl or PHP program as the readers fold them: assigned exactly once (and folded
once), or the variable of a loop over a known list, read once per value.

It reads no program itself: each language finds its assignments and loops and calls these.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rein.steering.bash.launch._folding import Value
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._tree import Node

T = TypeVar("T")
MAX_VALUES = 16
"""How many values (or combinations of values) of loop variables one call is read with."""


class Bindings:
    """Variables assigned exactly once, to be folded from that assignment's value. A language marks
    every other write (or use that may write) of a name as poisoned; `off` disables all of it (code
    that can assign variables by name, such as a string eval). A loop's variable may be `fixed`, for
    a while, to one of the values it takes."""

    __slots__ = ("_values", "fixed", "off", "writes")

    def __init__(self) -> None:
        self._values: dict[str, Node | None] = {}
        self.off = False
        self.fixed: dict[str, Value] = {}
        self.writes: dict[str, list[int]] = {}
        """Where each name is written (or may be): byte offsets."""

    def assign(self, name: str, value: Node) -> None:
        self._values[name] = None if name in self._values else value
        self.writes.setdefault(name, []).append(value.start_byte)

    def poison(self, name: str, at: Node | None = None) -> None:
        self._values[name] = None
        self.writes.setdefault(name, []).append(at.start_byte if at is not None else -1)

    def get(self, name: str) -> Node | None:
        return None if self.off else self._values.get(name)

    def value(self, name: str) -> Value | None:
        """The value a loop's variable is fixed to, for now."""
        return self.fixed.get(name)

    def written(self, name: str, start: int, end: int) -> bool:
        """Whether `name` is (or may be) written between these byte offsets; anywhere, when `off`."""
        return self.off or any(start <= at < end or at < 0 for at in self.writes.get(name, ()))


class Folder(Generic[T]):
    """Folds the values variables were assigned: each once (a chain `a1 = a0 + a0; a2 = a1 + a1`
    would otherwise take exponential time), none through its own definition (`a = b; b = a`)."""

    __slots__ = ("_active", "_done")

    def __init__(self) -> None:
        self._active: set[int] = set()
        self._done: dict[int, T] = {}

    def forget(self) -> None:
        """Fold again from now on: a loop's variable changed what the values read."""
        self._done.clear()

    def resolve(self, bound: Node | None, fold: Callable[[Node], T], default: T) -> T:
        if bound is None:
            return default
        if bound.id in self._done:
            return self._done[bound.id]
        if bound.id in self._active or len(self._active) > 32:
            return default
        self._active.add(bound.id)
        try:
            result = fold(bound)
        finally:
            self._active.discard(bound.id)
        self._done[bound.id] = result
        return result


@dataclass(frozen=True, slots=True)
class Loop:
    """A loop around some code whose variable takes each of known values: over a literal list
    (`for my $c ("a", "b")`, `foreach ([...] as $c)`, `%w[a b].each { |c| }`)."""

    name: str
    """The variable, as `Bindings` names it."""
    values: tuple[Value, ...]
    start: int
    end: int
    """The body, in byte offsets: where the variable takes the values."""


def loop(
    bindings: Bindings,
    name: str,
    values: Sequence[Value] | None,
    body: Node | None,
    shared: Node | None = None,
) -> Loop | None:
    """A loop, when its variable takes known values: a list of known length (at most `MAX_VALUES`),
    and nothing in the body writes the variable. A variable `shared` with the code around the loop
    (not local to it: a sub or function may write it) must be written nowhere outside `shared`."""
    if values is None or body is None or not name or not values or len(values) > MAX_VALUES:
        return None
    if any(value.spread for value in values) or bindings.written(name, body.start_byte, body.end_byte):
        return None
    if shared is not None and (
        bindings.written(name, 0, shared.start_byte) or bindings.written(name, shared.end_byte, 1 << 62)
    ):
        return None
    return Loop(name, tuple(values), body.start_byte, body.end_byte)


def around(loops: Sequence[Loop], node: Node) -> list[Loop]:
    """The loops whose body holds `node`: it is read once per value of their variables (a call that
    does not read them launches the same each time)."""
    return [each for each in loops if each.start <= node.start_byte < each.end]


def each(bindings: Bindings, folders: Sequence[Folder[Any]], loops: Sequence[Loop]) -> Iterator[None]:
    """Yields once per combination of the loops' values (none past `MAX_VALUES`: then once, the
    variables built at run time), with the variables fixed to it."""
    combos: list[dict[str, Value]] = [{}]
    for current in loops:
        combos = [{**combo, current.name: value} for combo in combos for value in current.values]
    if len(combos) > MAX_VALUES:
        combos = [{}]
    try:
        for combo in combos:
            bindings.fixed = combo
            for folder in folders:
                folder.forget()
            yield
    finally:
        bindings.fixed = {}
        for folder in folders:
            folder.forget()


def distinct(found: list[Launch], start: int) -> None:
    """Drops the launches after `start` that repeat one before them (a loop read a call twice alike)."""
    kept: list[Launch] = []
    for launch in found[start:]:
        if launch not in kept and launch not in found[:start]:
            kept.append(launch)
    del found[start:]
    found.extend(kept)


def visit_all(
    nodes: Iterable[Node],
    launching: frozenset[str],
    loops: Sequence[Loop],
    bindings: Bindings,
    folders: Callable[[], Sequence[Folder[Any]]],
    found: list[Launch],
    visit: Callable[[Node], None],
) -> None:
    """Visits every node in order; a node that may launch (its type in `launching`) inside loops over
    known values is visited once per value, its repeated launches dropped."""
    for node in nodes:
        inside = around(loops, node) if node.type in launching else []
        if not inside:
            visit(node)
            continue
        start = len(found)
        for _ in each(bindings, folders(), inside):
            visit(node)
        distinct(found, start)
