"""The layers of docs/layout.md, the project's map, as tests: no import cycle between rein's packages,
no arrow up, and the map itself names every package with its docstring's purpose.

Nodes are rein's packages (every folder with an `__init__.py`, subpackages too) and its top-level
modules (`rein.gitio`, `rein.settings`, ...); a module belongs to its innermost package. Arrows come
from the source's static imports, read with `ast` without importing anything: at the top of a module,
inside functions, and under `if TYPE_CHECKING:` as well (a lazy door names there what it loads on
first use, and a type from another layer is a dependency all the same). A string given to
`importlib` is not seen; the lazy doors in rein name the same modules under `TYPE_CHECKING`.

A package and its own subpackages are one family: the door re-exports its children and the children
use the parent's private modules, so arrows inside a family are not counted. The layer check reads
the families at rein's top level (`MAY_IMPORT`, read from the "may import" column of docs/layout.md's
package table); a new top-level package or module must be placed there before its arrows pass.

The source is parsed once per run (`arrows` is cached): every case reads the same graph.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests import layout_map

SRC = Path(__file__).resolve().parents[1] / "src" / "rein"

MAY_IMPORT: Mapping[str, frozenset[str]] = layout_map.may_import()
"""What each top-level package or module may import: the engines (`ttsr`, `steering`, `timebox`) pure
and host-agnostic, the runtime bottom up (ai <- agent <- extensions <- session), the hook adapters on
the engines and the shared modules alone (a fresh process per tool call), the `rein` command on top."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {module_name(path): path for path in sorted(SRC.rglob("*.py"))}
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}


def node(module: str) -> str:
    """The module's innermost package; a top-level module (`rein.gitio`) is a node of its own."""
    if module in PACKAGES or module.count(".") == 1:
        return module
    return module.rpartition(".")[0]


def resolve(name: str) -> str | None:
    """The rein module an import names (`from rein.x import y` may name module `rein.x.y`)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imported(module: str, path: Path) -> Iterator[str]:
    """Every rein module that `module` imports, wherever the import stands."""
    package = module if module in PACKAGES else module.rpartition(".")[0]
    for item in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(item, ast.Import):
            names = [alias.name for alias in item.names]
        elif isinstance(item, ast.ImportFrom):
            base = item.module or ""
            if item.level:
                anchor = package.split(".")[: len(package.split(".")) - item.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [base, *(f"{base}.{alias.name}" for alias in item.names)]
        else:
            continue
        for name in names:
            found = resolve(name) if name == "rein" or name.startswith("rein.") else None
            if found is not None:
                yield found


def family(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


@functools.cache
def arrows() -> dict[str, dict[str, list[str]]]:
    """node -> node it imports -> the imports that make the arrow (`file -> module`)."""
    found: dict[str, dict[str, list[str]]] = {}
    for module, path in MODULES.items():
        for target in sorted(set(imported(module, path))):
            source, sink = node(module), node(target)
            if sink != "rein" and not family(source, sink):
                found.setdefault(source, {}).setdefault(sink, []).append(f"{module} -> {target}")
    return found


def cycles(graph: Mapping[str, Mapping[str, object]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(at: str) -> None:
        index[at] = low[at] = len(index)
        stack.append(at)
        for to in graph.get(at, {}):
            if to not in index:
                visit(to)
                low[at] = min(low[at], low[to])
            elif to in stack:
                low[at] = min(low[at], index[to])
        if low[at] == index[at]:
            component: list[str] = []
            while not component or component[-1] != at:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for start in sorted(graph):
        if start not in index:
            visit(start)
    return found


def describe(graph: Mapping[str, Mapping[str, list[str]]], component: list[str]) -> str:
    lines = [f"import cycle between {', '.join(component)}:"]
    for source in component:
        for sink, why in graph.get(source, {}).items():
            if sink in component:
                lines.append(f"  {source} -> {sink}: {'; '.join(why[:3])}")
    return "\n".join(lines)


def test_rein_s_packages_import_each_other_in_no_cycle() -> None:
    graph = arrows()
    assert cycles(graph) == [], "\n".join(describe(graph, c) for c in cycles(graph))


def top(node_name: str) -> str:
    return node_name.split(".")[1] if node_name.count(".") else node_name


def test_every_top_level_package_and_module_has_a_place_in_the_layers() -> None:
    tops = {top(node(module)) for module in MODULES} - {"rein"}
    assert tops - set(MAY_IMPORT) == set(), "give these a row in docs/layout.md's package table"
    unplaced = sorted(name for name, allowed in MAY_IMPORT.items() if "?" in allowed)
    assert unplaced == [], "say in docs/layout.md what these may import"
    assert set(MAY_IMPORT) <= tops, "docs/layout.md names a package that is not there"


def test_the_map_names_every_package_with_its_own_docstring() -> None:
    text = layout_map.LAYOUT.read_text()
    assert text == layout_map.rendered(text), "docs/layout.md is stale: run python -m tests.layout_map"
    named = set(layout_map.packages())
    assert named == {
        m.removeprefix("rein.") for m in PACKAGES | set(MODULES) if m.count(".") == 1 or m in PACKAGES
    } - {"rein"}
    assert all(layout_map.purpose(path) for path in layout_map.packages().values()), (
        "a package without a docstring"
    )


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_no_arrow_runs_up_the_layers(layer: str) -> None:
    wrong = [
        f"rein.{layer} -> rein.{top(sink)}: {why[0]}"
        for source, sinks in arrows().items()
        if top(source) == layer
        for sink, why in sinks.items()
        if top(sink) != layer and top(sink) not in MAY_IMPORT[layer]
    ]
    assert wrong == [], "\n".join(wrong)


def test_the_checks_see_a_cycle_and_an_arrow_up() -> None:
    """The checks themselves: a cycle of three nodes is found, a chain is not; a lazy door's
    TYPE_CHECKING import is read; nodes and families are told apart by whole names."""
    assert cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b": 1}, "b": {"c": 1}}) == []
    hooks = MODULES["rein.hooks"]
    assert "rein.hooks._run" in set(imported("rein.hooks", hooks))  # under `if TYPE_CHECKING:`
    assert node("rein.hooks._run") == "rein.hooks" and node("rein.gitio") == "rein.gitio"
    assert not family("rein.hooks", "rein.hooksmith") and family("rein.ai", "rein.ai.providers")
