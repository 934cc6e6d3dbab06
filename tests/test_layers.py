"""The layers of ARCHITECTURE.md as tests: no import cycle between rein's packages, no arrow up.

Nodes are rein's packages (every folder with an `__init__.py`, subpackages too) and its top-level
modules (`rein.gitio`, `rein.settings`, ...); a module belongs to its innermost package. Arrows come
from the source's static imports, read with `ast` without importing anything: at the top of a module,
inside functions, and under `if TYPE_CHECKING:` as well (a lazy door names there what it loads on
first use, and a type from another layer is a dependency all the same). A string given to
`importlib` is not seen; the lazy doors in rein name the same modules under `TYPE_CHECKING`.

A package and its own subpackages are one family: the door re-exports its children and the children
use the parent's private modules, so arrows inside a family are not counted. The layer check reads
the families at rein's top level (`MAY_IMPORT`); a new top-level package or module must be placed
there before its arrows pass.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "rein"

ENGINES = frozenset({"ttsr", "steering", "timebox"})
RUNTIME = frozenset({"ai", "agent", "extensions", "session"})
SHARED = frozenset({"gitio", "diskio", "machine", "settings", "_settings_schema"})
"""What hosts give the engines (git, the files a command runs, the clock and the on-stop runner) and
the settings file."""
MAY_IMPORT: Mapping[str, frozenset[str]] = {
    # engines: pure, host-agnostic; they import no host (not even each other today)
    "ttsr": frozenset(),
    "steering": frozenset(),
    "timebox": frozenset(),
    "_settings_schema": frozenset(),
    "settings": frozenset({"_settings_schema"}),
    "gitio": frozenset({"steering", "diskio"}),
    "diskio": frozenset({"steering"}),
    "machine": frozenset(),
    # the runtime, bottom up: ai <- agent <- extensions <- session
    "ai": frozenset(),
    "agent": frozenset({"ai"}),
    "extensions": frozenset({"agent", "ai"}),
    "session": frozenset({"extensions", "agent", "ai", "settings", "_settings_schema"}),
    # session entries as HTML, for `rein export` and the web page
    "html": frozenset({"session"}),
    # hook adapters: engines only (a fresh process per tool call; no runtime, no built-ins)
    "hooks": ENGINES | SHARED,
    # rein's own extensions, on the runtime
    "builtins": ENGINES | RUNTIME | SHARED,
    # the terminal UI, below the CLI that starts it
    "tui": ENGINES | RUNTIME | SHARED | {"builtins"},
    # the session server (`rein serve`): the runtime and the engines it runs for server-side runs
    "server": ENGINES | RUNTIME | SHARED | {"builtins", "html"},
    # the streaming proxy (`rein proxy`): the stream-rules engine on the wire formats
    "proxy": ENGINES | {"ai"},
    # rein's engines inside Python agent frameworks (each framework module imports its own framework)
    "integrations": ENGINES | SHARED,
    # `rein acp`: rein's agent for editors over the Agent Client Protocol
    "acp": ENGINES | RUNTIME | SHARED | {"builtins"},
    # the `rein` command: everything
    "cli": ENGINES | RUNTIME | SHARED | {"builtins", "hooks", "tui", "server", "html", "proxy", "acp"},
}


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
    assert tops - set(MAY_IMPORT) == set(), "place these in MAY_IMPORT of tests/test_layers.py"


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
