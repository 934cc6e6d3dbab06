"""The walker's shell state while it walks (Frame) and where in the nested sources it is (Ctx).

A Frame is mutable but its maps are copy-on-write: a map is never changed in place, only replaced, so a
copy of a Frame is cheap and the State snapshots handed to refs stay frozen.

Two kinds of state: the shell's own (cwd, variables, arrays, functions, aliases, the dir stack), which a
subshell or child process changes only for itself; and the world's (tracker values such as the git
branch, files the line wrote, git configuration it set), which outlives the process that changed it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, TypeAlias, TypeVar

from rein.steering.bash.model import UNKNOWN, Bounded, State, Stdin, Unknown

if TYPE_CHECKING:
    from tree_sitter import Node

Value = str | Unknown
Array = tuple[Value, ...] | Unknown

TEMP = "\0temp"
"""The `files` entry of the fresh temporary files the line writes (no real path holds a NUL)."""
POSITIONAL = "@"
"""The array that holds the positional parameters (`$1`, `"$@"`); `$0` is the variable `0`."""


class Ctx(NamedTuple):
    """The source being walked and how it was reached (a tuple: built often, cheap to build)."""

    src: bytes
    wrappers: tuple[str, ...] = ()
    via: str = ""
    depth: int = 0
    """How many wrappers and re-parsed strings lead here."""
    where: str = ""
    """Suffix for problem messages about this source, e.g. " in the 'bash -c' string"."""
    why: str = ""
    """Why the commands here are checked although not written as commands (shown by `rein explain`)."""
    speculative: bool = False
    """A guess at a command line (a string argument of an unknown command): problems are ignored and
    unknown commands in it are not scanned again."""
    stdin: Stdin | None = None
    """What the commands here read when nothing closer feeds them: the pipe, heredoc or file a group,
    a function call or a `-c` script was given (`curl x | { sh; }`)."""
    background: bool = False
    """The commands here run in the background (`cmd &`): the shell goes on without waiting."""
    origin: str = ""
    """The file on disk these commands come from (a script, a package.json script, a makefile)."""
    lenient: bool = False
    """A file of the person's read from disk: what cannot be known here does not block."""


FuncDef: TypeAlias = "tuple[Node, Ctx]"
_EMPTY: Mapping[str, Value] = MappingProxyType({})


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
    exported: frozenset[str] = frozenset()
    """Functions exported with `export -f`: child shells see them."""
    arrays: Mapping[str, Array] = field(default_factory=dict)
    """Indexed arrays by name; POSITIONAL holds the positional parameters when they are known."""
    aliases: Mapping[str, Value] = field(default_factory=dict)
    files: Mapping[str, Value] = field(default_factory=lambda: _EMPTY)
    """Files the command line wrote, by absolute path, with their content (UNKNOWN when not known)."""
    files_unknown: bool = False
    """The line wrote or fetched files it cannot name (a download, an archive, a path not known)."""
    git_config: Mapping[str, Value] = field(default_factory=lambda: _EMPTY)
    """git configuration the line set with `git config`."""
    snapshot: State | None = None

    def copy(self) -> Frame:
        return Frame(
            self.cwd, self.env, self.values, self.local, self.dirs, self.funcs, self.exported, self.arrays,
            self.aliases, self.files, self.files_unknown, self.git_config, self.snapshot,
        )  # fmt: skip

    def child(self) -> Frame:
        """The state a new process starts with: exported variables and functions, the world's state."""
        env = self.env
        if self.local:
            env = {name: value for name, value in env.items() if name not in self.local}
        funcs = (
            {name: body for name, body in self.funcs.items() if name in self.exported}
            if self.exported
            else {}
        )
        return Frame(
            self.cwd, env, self.values, funcs=funcs, exported=self.exported, files=self.files,
            files_unknown=self.files_unknown, git_config=self.git_config,
        )  # fmt: skip

    def state(self) -> State:
        if self.snapshot is None:
            self.snapshot = State(
                cwd=self.cwd, env=MappingProxyType(self.env), values=MappingProxyType(self.values)
            )
        return self.snapshot

    def load(self, other: Frame) -> None:
        self.cwd, self.env, self.values, self.local = other.cwd, other.env, other.values, other.local
        self.dirs, self.funcs, self.exported, self.arrays = (
            other.dirs,
            other.funcs,
            other.exported,
            other.arrays,
        )
        self.aliases, self.files, self.files_unknown = other.aliases, other.files, other.files_unknown
        self.git_config, self.snapshot = other.git_config, other.snapshot

    def same(self, other: Frame) -> bool:
        return (
            self.cwd == other.cwd
            and self.env == other.env
            and _same_values(self.values, other.values)
            and self.local == other.local
            and self.dirs == other.dirs
            and self.arrays == other.arrays
            and self.aliases == other.aliases
            and self.files == other.files
            and self.files_unknown == other.files_unknown
            and self.git_config == other.git_config
        )

    def set_var(self, name: str, value: Value, *, export: bool | None = None) -> None:
        """Assign a variable; `export` None keeps its exported status (new variables are not exported)."""
        if export or (export is None and name in self.env and name not in self.local):
            self.local = self.local - {name}
        else:
            self.local = self.local | {name}
        self.env = {**self.env, name: value}
        if name in self.arrays:
            self.arrays = {key: array for key, array in self.arrays.items() if key != name}
        self.snapshot = None

    def set_array(self, name: str, array: Array) -> None:
        """Assign an array; its first element is also the scalar `$name`."""
        first = (
            array[0] if isinstance(array, tuple) and array else UNKNOWN if isinstance(array, Unknown) else ""
        )
        self.env = {**self.env, name: first}
        self.local = self.local | {name}
        self.arrays = {**self.arrays, name: array}
        self.snapshot = None

    def set_args(self, args: Sequence[Value] | Unknown, zero: Value | None = None) -> None:
        """Set the positional parameters (`bash -c '...' $0 $1 ...`, a function call, `set --`)."""
        env = {key: value for key, value in self.env.items() if not key.isdigit() and key != "#"}
        if zero is not None:
            env["0"] = zero
        elif "0" in self.env:
            env["0"] = self.env["0"]
        if isinstance(args, tuple | list):
            for number, value in enumerate(args, start=1):
                env[str(number)] = value
            env["#"] = str(len(args))
            self.arrays = {**self.arrays, POSITIONAL: tuple(args)}
        else:
            self.arrays = {key: array for key, array in self.arrays.items() if key != POSITIONAL}
        self.local = self.local | {key for key in env if key.isdigit() or key == "#"}
        self.env, self.snapshot = env, None

    def unset_var(self, name: str) -> None:
        if name in self.env:
            self.env = {key: value for key, value in self.env.items() if key != name}
            self.local = self.local - {name}
            self.snapshot = None
        if name in self.arrays:
            self.arrays = {key: array for key, array in self.arrays.items() if key != name}

    def export(self, name: str) -> None:
        self.local = self.local - {name}

    def forget_env(self, *, cleared: bool = False) -> None:
        """No variable can be trusted any more (`export "$X"`, `unset "$X"`), or none is set at all
        (`cleared`: `env -i`). PWD stays: it is how the walker knows the shell's own directory, which
        no assignment moves. Unless cleared, HOME stays too, as UNKNOWN: a missing HOME means it is
        certainly unset (`~` then reads the user's home from the user database)."""
        pwd = self.env.get("PWD", UNKNOWN)
        env: dict[str, Value] = {"PWD": pwd} if cleared else {"PWD": pwd, "HOME": UNKNOWN}
        self.env, self.local, self.arrays, self.snapshot = env, frozenset(), {}, None

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

    def set_alias(self, name: str, value: Value | None) -> None:
        aliases = {key: text for key, text in self.aliases.items() if key != name}
        if value is not None:
            aliases[name] = value
        self.aliases = aliases

    def write(self, path: Value, content: Value, *, append: bool = False) -> None:
        """A file the line writes (`> f`, `tee f`): its content, as far as it is known. A fresh
        temporary file (`"$(mktemp)"`) is no file the line names otherwise: all of them share one
        entry (`TEMP`), so a later run of one is read, and no other path is made unknown."""
        if isinstance(path, Bounded) and path.kind == "temp":
            old = self.files.get(TEMP)
            if append and isinstance(old, str) and isinstance(content, str):
                content = old + content
            elif old is not None and old != content:
                content = UNKNOWN
            self.files = {**self.files, TEMP: content}
            return
        if isinstance(path, Unknown):
            self.files_unknown = True
            return
        if append:
            old = self.files.get(path)
            content = old + content if isinstance(old, str) and isinstance(content, str) else UNKNOWN
        self.files = {**self.files, path: content}

    def set_git_config(self, key: str, value: Value | None) -> None:
        config = {name: text for name, text in self.git_config.items() if name != key}
        if value is not None:
            config[key] = value
        self.git_config = config

    def absorb(self, other: Frame, *, exact: bool) -> None:
        """Take the world's state from a scope that ran apart (a wrapper's child, a subshell): tracker
        values, files written, git configuration.

        `exact` takes them as they are (the command certainly ran to the end); otherwise a value that
        changed becomes UNKNOWN, since whether and when the change happened is not known.
        """
        self.files_unknown = self.files_unknown or other.files_unknown
        if exact:
            self.values, self.files, self.git_config = other.values, other.files, other.git_config
            self.snapshot = None
            return
        if other.files is not self.files:
            self.files = _merge_files([self.files, other.files])
        if other.git_config is not self.git_config:
            self.git_config = _merge_maps([self.git_config, other.git_config])
        if other.values is not self.values:
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
        exported=frozenset().union(*(frame.exported for frame in frames)),
        arrays=_merge_maps([frame.arrays for frame in frames]),
        aliases=_merge_maps([frame.aliases for frame in frames]),
        files=_merge_files([frame.files for frame in frames]),
        files_unknown=any(frame.files_unknown for frame in frames),
        git_config=_merge_maps([frame.git_config for frame in frames]),
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
        and other.arrays is first.arrays
        and other.aliases is first.aliases
        and other.files is first.files
        and other.files_unknown == first.files_unknown
        and other.git_config is first.git_config
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


def _merge_files(maps: Sequence[Mapping[str, Value]]) -> Mapping[str, Value]:
    """Files after one of several ways: a file only one way wrote holds what it wrote (or does not
    exist, and runs nothing); two ways that wrote it differently leave it unknown."""
    merged: dict[str, Value] = {}
    for mapping in maps:
        for path, content in mapping.items():
            merged[path] = content if path not in merged or _equal(merged[path], content) else UNKNOWN
    return merged


def _same_values(a: Mapping[str, object], b: Mapping[str, object]) -> bool:
    return a is b or (a.keys() == b.keys() and all(_equal(a[key], b[key]) for key in a))


def _equal(a: object, b: object) -> bool:
    return a is b or bool(a == b)
