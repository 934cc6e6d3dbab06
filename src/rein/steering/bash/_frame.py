"""The walker's shell state while it walks (Frame) and where in the nested sources it is (Ctx).

A Frame is mutable but its maps are copy-on-write: a map is never changed in place, only replaced, so a
copy of a Frame is cheap and the State snapshots handed to refs stay frozen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, TypeAlias, TypeVar

from rein.steering.bash.model import UNKNOWN, State, Unknown

if TYPE_CHECKING:
    from tree_sitter import Node

Value = str | Unknown


class Ctx(NamedTuple):
    """The source being walked and how it was reached (a tuple: built often, cheap to build)."""

    src: bytes
    wrappers: tuple[str, ...] = ()
    via: str = ""
    depth: int = 0
    """How many wrappers and re-parsed strings lead here."""
    where: str = ""
    """Suffix for problem messages about this source, e.g. " in the 'bash -c' string"."""


FuncDef: TypeAlias = "tuple[Node, Ctx]"


@dataclass(slots=True)
class Frame:
    """The shell state at the current point of the walk."""

    cwd: Value
    env: Mapping[str, Value]
    values: Mapping[str, object]
    local: frozenset[str] = frozenset()
    """Shell variables that are not exported (a child process does not see them)."""
    dirs: tuple[Value, ...] = ()
    """The top of the pushd stack as far as it is known (what lies below is unknown)."""
    funcs: Mapping[str, FuncDef] = field(default_factory=dict)
    snapshot: State | None = None

    def copy(self) -> Frame:
        return Frame(self.cwd, self.env, self.values, self.local, self.dirs, self.funcs, self.snapshot)

    def child(self) -> Frame:
        """The state a new process starts with: exported variables only, no functions, no dir stack."""
        env = self.env
        if self.local:
            env = {name: value for name, value in env.items() if name not in self.local}
        return Frame(self.cwd, env, self.values)

    def state(self) -> State:
        if self.snapshot is None:
            self.snapshot = State(
                cwd=self.cwd, env=MappingProxyType(self.env), values=MappingProxyType(self.values)
            )
        return self.snapshot

    def load(self, other: Frame) -> None:
        self.cwd, self.env, self.values, self.local = other.cwd, other.env, other.values, other.local
        self.dirs, self.funcs, self.snapshot = other.dirs, other.funcs, other.snapshot

    def same(self, other: Frame) -> bool:
        return (
            self.cwd == other.cwd
            and self.env == other.env
            and _same_values(self.values, other.values)
            and self.local == other.local
            and self.dirs == other.dirs
        )

    def set_var(self, name: str, value: Value, *, export: bool | None = None) -> None:
        """Assign a variable; `export` None keeps its exported status (new variables are not exported)."""
        if export or (export is None and name in self.env and name not in self.local):
            self.local = self.local - {name}
        else:
            self.local = self.local | {name}
        self.env = {**self.env, name: value}
        self.snapshot = None

    def unset_var(self, name: str) -> None:
        if name in self.env:
            self.env = {key: value for key, value in self.env.items() if key != name}
            self.local = self.local - {name}
            self.snapshot = None

    def export(self, name: str) -> None:
        self.local = self.local - {name}

    def forget_env(self, *, cleared: bool = False) -> None:
        """No variable can be trusted any more (`export "$X"`, `unset "$X"`), or none is set at all
        (`cleared`: `env -i`). PWD stays: it is how the walker knows the shell's own directory, which
        no assignment moves. Unless cleared, HOME stays too, as UNKNOWN: a missing HOME means it is
        certainly unset (`~` then reads the user's home from the user database)."""
        pwd = self.env.get("PWD", UNKNOWN)
        env: dict[str, Value] = {"PWD": pwd} if cleared else {"PWD": pwd, "HOME": UNKNOWN}
        self.env, self.local, self.snapshot = env, frozenset(), None

    def chdir(self, cwd: Value) -> None:
        self.env = {**self.env, "OLDPWD": self.cwd, "PWD": cwd}
        self.cwd, self.snapshot = cwd, None

    def move(self, cwd: Value) -> None:
        """Run somewhere else without the shell's `cd` (`env -C`): PWD and OLDPWD stay."""
        self.cwd, self.snapshot = cwd, None

    def set_value(self, name: str, value: object) -> None:
        self.values = {**self.values, name: value}
        self.snapshot = None

    def set_function(self, name: str, definition: FuncDef | None) -> None:
        funcs = {key: value for key, value in self.funcs.items() if key != name}
        if definition is not None:
            funcs[name] = definition
        self.funcs = funcs

    def absorb(self, other: Frame, *, exact: bool) -> None:
        """Take tracker values from a scope that ran apart (a wrapper's child, a subshell).

        `exact` takes them as they are (the command certainly ran to the end); otherwise a value that
        changed becomes UNKNOWN, since whether and when the change happened is not known.
        """
        if other.values is self.values:
            return
        if exact:
            self.values, self.snapshot = other.values, None
        else:
            merged = _merge_maps([self.values, other.values])
            if not _same_values(merged, self.values):
                self.values, self.snapshot = merged, None


def merge(frames: Sequence[Frame]) -> Frame:
    """The state after one of `frames` ran, not knowing which: what they disagree on is UNKNOWN."""
    first = frames[0]
    if len(frames) == 1 or all(_unchanged(first, frame) for frame in frames[1:]):
        return first.copy()
    funcs: dict[str, FuncDef] = {}
    for frame in frames:
        funcs.update(frame.funcs)
    return Frame(
        cwd=first.cwd if all(frame.cwd == first.cwd for frame in frames) else UNKNOWN,
        env=_merge_maps([frame.env for frame in frames]),
        values=_merge_maps([frame.values for frame in frames]),
        local=frozenset().union(*(frame.local for frame in frames)),
        dirs=first.dirs if all(frame.dirs == first.dirs for frame in frames) else (),
        funcs=funcs,
    )


_T = TypeVar("_T")


def _unchanged(first: Frame, other: Frame) -> bool:
    """The common case of a branch that changed nothing: the same maps, not just equal ones."""
    return (
        other.env is first.env
        and other.values is first.values
        and other.funcs is first.funcs
        and other.local is first.local
        and other.cwd == first.cwd
        and other.dirs == first.dirs
    )


def _merge_maps(maps: Sequence[Mapping[str, _T]]) -> Mapping[str, _T | Unknown]:
    first = maps[0]
    if all(other is first for other in maps):
        return first
    merged: dict[str, _T | Unknown] = {}
    for mapping in maps:
        for key in mapping:
            if key in merged:
                continue
            value = first.get(key, UNKNOWN)
            agree = key in first and all(key in other and _equal(other[key], value) for other in maps)
            merged[key] = value if agree else UNKNOWN
    return merged


def _same_values(a: Mapping[str, object], b: Mapping[str, object]) -> bool:
    return a is b or (a.keys() == b.keys() and all(_equal(a[key], b[key]) for key in a))


def _equal(a: object, b: object) -> bool:
    return a is b or bool(a == b)
