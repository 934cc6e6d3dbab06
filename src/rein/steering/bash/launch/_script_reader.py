"""The skeleton the Perl, Ruby and PHP readers share: a program parsed with its tree-sitter grammar, its
variables folded, every node that may launch visited (once per value of the loops over known lists
around it), code read again from a string (`eval`) to a bounded depth, and a program that does not
parse but names a process API outside the calls read made one unknown launch.

Each language brings its grammar, the node types that may launch, the process API names, how its loops
and values read, and what a node it visits launches.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

from rein.steering.bash.launch import _tree
from rein.steering.bash.launch._bindings import Bindings, Folder, Loop, visit_all
from rein.steering.bash.launch._folding import (
    MAX_DEPTH,
    RUNTIME_VALUE,
    Value,
    at_line,
    syntax_launch,
    too_deep,
    walk,
)
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._tree import Node, text


class ScriptValues:
    """What each language's values hold: the program's text, the environment rein knows, its
    variables, and the caches of their folded strings and lists."""

    def __init__(self, src: bytes, env: Mapping[str, str]) -> None:
        self.src = src
        self.env = env
        self.bindings = Bindings()
        self._strings: Folder[Value] = Folder()
        self._lists: Folder[list[Value] | None] = Folder()

    def name(self, node: Node | None) -> str:
        return "" if node is None else text(node, self.src)

    def folders(self) -> tuple[Folder[Any], ...]:
        """The caches a loop's variable invalidates."""
        return (self._strings, self._lists)

    def fold(self, node: Node) -> Value:
        raise NotImplementedError

    def variable(self, key: str) -> Value:
        """A variable's value: the one a loop fixes it to for now, else the one it was assigned once."""
        fixed = self.bindings.value(key)
        if fixed is not None:
            return fixed
        return self._strings.resolve(self.bindings.get(key), self.fold, RUNTIME_VALUE)


V = TypeVar("V", bound=ScriptValues)


class ScriptReader(Generic[V]):
    """Reads one program: `read` parses it, visits it and returns what it launches."""

    language: ClassVar[str]
    """The grammar, and the language named in messages."""
    launching: ClassVar[frozenset[str]]
    """Node types that may launch: read once per value of the loops around them."""
    names: ClassVar[re.Pattern[bytes]]
    """Process API names: a program that does not parse and names one is an unknown launch."""

    def __init__(self, root: Node, src: bytes, env: Mapping[str, str], depth: int) -> None:
        self.values = self.values_of(root, src, env)
        self.env = env
        self.depth = depth
        self.found: list[Launch] = []
        self.covered: list[tuple[int, int]] = []
        """The byte ranges of the calls read: a process API named there is no sign of a broken read."""
        self.loops = [found for node in walk(root) if (found := self.loop(node)) is not None]

    @classmethod
    def read(cls, text: str, env: Mapping[str, str], depth: int = 0) -> tuple[Launch, ...]:
        root, src = cls.parse(text)
        reader = cls(root, src, env, depth)
        bindings, folders = reader.values.bindings, reader.values.folders
        visit_all(walk(root), cls.launching, reader.loops, bindings, folders, reader.found, reader.visit)
        broken = syntax_launch(cls.language, root, src, cls.names, reader.covered)
        return (*reader.found, *([broken] if broken else []))

    @classmethod
    def parse(cls, text: str) -> tuple[Node, bytes]:
        return _tree.parse(cls.language, text)

    def values_of(self, root: Node, src: bytes, env: Mapping[str, str]) -> V:
        raise NotImplementedError

    def loop(self, node: Node) -> Loop | None:
        """The loop over known values `node` is, if it is one."""
        return None

    def visit(self, node: Node) -> None:
        raise NotImplementedError

    def add(self, node: Node, *found: Launch | None) -> None:
        """`node` is a call read: what it launches, if anything."""
        self.covered.append((node.start_byte, node.end_byte))
        self.found.extend(launch for launch in found if launch is not None)

    def recurse(self, code: str, at: int) -> tuple[Launch, ...]:
        """What code run from a string launches, placed on the line that runs it."""
        if self.depth >= MAX_DEPTH:
            return (too_deep(self.language, at),)
        return at_line(type(self).read(code, self.env, self.depth + 1), at)
