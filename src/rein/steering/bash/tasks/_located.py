"""Parsing YAML and TOML while keeping where each value is written.

YAML is composed once with PyYAML's safe loader (`compose` keeps each node's position, `construct`
turns the same nodes into plain values), so a line is found by walking the node tree along a path
of keys and indices. `tomllib` keeps no positions: `TomlLines` scans the text for table headers
and `key =` lines (outside multi-line strings), and a value inside an array is found by searching
the following lines for its text. A line that cannot be found is the nearest enclosing key's, or 0.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence

import yaml

Path = Sequence[str | int]


class Yaml:
    """A YAML document's value and, through `line`, where each part of it is written."""

    def __init__(self, text: str) -> None:
        """Raises `yaml.YAMLError` (and the safe loader's constructor errors) on bad YAML."""
        loader = yaml.SafeLoader(text)
        try:
            self.node: yaml.Node | None = loader.get_single_node()
            self.value: object = loader.construct_document(self.node) if self.node is not None else None
        finally:
            loader.dispose()

    def line(self, path: Path) -> int:
        """The 1-based line of the value at `path`, or of its nearest ancestor found; 0 for none.
        A block scalar (`|`, `>`) starts on the line after its indicator."""
        node, found = self.node, 0
        for key in path:
            child = _child(node, key)
            if child is None:
                break
            node, found = child, _line_of(child)
        return found


def _child(node: yaml.Node | None, key: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        match: yaml.Node | None = None
        for name, value in node.value:  # the last one wins, as in the constructed mapping
            if isinstance(name, yaml.ScalarNode) and name.value == str(key):
                match = value
        return match
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        child: yaml.Node = node.value[key]
        return child
    return None


def _line_of(node: yaml.Node) -> int:
    block = isinstance(node, yaml.ScalarNode) and node.style in ("|", ">")
    return int(node.start_mark.line) + (2 if block else 1)


def load_toml(text: str) -> dict[str, object]:
    """Raises `tomllib.TOMLDecodeError` on bad TOML."""
    return dict(tomllib.loads(text))


_KEY = re.compile(r"""\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')\s*""")
_MULTILINE = re.compile(r'"""|\'\'\'')


def _keys(text: str) -> tuple[list[str], int] | None:
    """The dotted key at the start of `text` and where it ends, or None."""
    keys: list[str] = []
    at = 0
    while True:
        found = _KEY.match(text, at)
        if found is None:
            return None
        raw = found.group().strip()
        keys.append(raw[1:-1] if raw[:1] in "\"'" else raw)
        at = found.end()
        if not text.startswith(".", at):
            return keys, at
        at += 1


class TomlLines:
    """Where the tables and keys of a TOML text are written."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.where: dict[tuple[str, ...], int] = {}
        table: tuple[str, ...] = ()
        inside = ""  # the delimiter of the multi-line string the scan is in
        for number, line in enumerate(self.lines, 1):
            if inside:
                inside = "" if line.count(inside) % 2 else inside
                continue
            stripped = line.strip()
            header = re.match(r"\[\[?(.*?)\]\]?\s*(#.*)?$", stripped)
            keys = _keys(header.group(1)) if header else None
            if header and keys and keys[1] == len(header.group(1)):
                table = tuple(keys[0])
                self.where.setdefault(table, number)
                continue
            assigned = _keys(line)
            if assigned is not None and line[assigned[1] :].startswith("="):
                for end in range(1, len(assigned[0]) + 1):  # `a.b = 1` also writes table `a`
                    self.where.setdefault((*table, *assigned[0][:end]), number)
                opened = _MULTILINE.findall(line)
                if len(opened) % 2:
                    inside = opened[-1]

    def line(self, path: Path) -> int:
        """The line of `path`, or of its nearest ancestor written in the text; 0 for none."""
        keys = tuple(str(key) for key in path if isinstance(key, str))
        while keys:
            if keys in self.where:
                return self.where[keys]
            keys = keys[:-1]
        return 0

    def find(self, path: Path, value: str, after: int = 0) -> int:
        """The line where the string `value`, an element at `path`, is written: the first line from
        `path`'s own (or from `after`, the line of the element before) that holds the text of its
        first line; `path`'s line when none does."""
        start = self.line(path)
        needle = value.strip().split("\n", 1)[0].strip()
        if not start or not needle:
            return start
        for number in range(max(start, after), min(start + 400, len(self.lines) + 1)):
            if needle in self.lines[number - 1] or _escaped(needle) in self.lines[number - 1]:
                return number
        return start


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
