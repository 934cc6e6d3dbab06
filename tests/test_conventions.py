"""Conventions reviewers would otherwise have to ask for: layering, module size, public doors."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import rein.steering

SRC = Path(__file__).resolve().parents[1] / "src" / "rein"
ENGINES = ("steering", "ttsr", "timebox")
HOSTS = (
    "rein.cli",
    "rein.ai",
    "rein.agent",
    "rein.session",
    "rein.hooks",
    "rein.extensions",
    "rein.builtins",
)
SDKS = ("openai", "anthropic", "llama_cpp", "xllamacpp", "typer", "rich")


def modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_module_is_short(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= 400, "split this module by responsibility"


@pytest.mark.parametrize(
    "path",
    [p for p in modules() if p.relative_to(SRC).parts[0] in ENGINES],
    ids=lambda p: str(p.relative_to(SRC)),
)
def test_engines_import_no_host_and_no_sdk(path: Path) -> None:
    for name in imports(path):
        assert not name.startswith(HOSTS), f"{path}: engine imports host module {name}"
        assert name.split(".")[0] not in SDKS, f"{path}: engine imports {name}"


def test_importing_rein_is_silent_and_light() -> None:
    code = (
        "import sys, rein, rein.steering, rein.cli; "
        "heavy = [m for m in ('typer', 'openai', 'anthropic', 'tree_sitter_bash', 'hyperscan') "
        "if m in sys.modules]; print(heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() in {"[]", "['tree_sitter_bash']"}
    assert done.stderr == ""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_reaches(module: str, source: str) -> list[str]:
    """Each import in `source` (the text of `module`) of another top-level package's private module,
    as `module:line -> name`. A package and its subpackages are one family (as in test_layers): only
    an import from outside the family must go through the door, the package's `__init__`."""
    top = module.split(".")[:2]
    package = module if module.count(".") == 1 else module.rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            outside = parts[0] == "rein" and len(parts) > 2 and parts[:2] != top
            if outside and any(part.startswith("_") for part in parts[2:]):
                found.append(f"{module}:{node.lineno} -> {name}")
    return found


def test_no_module_imports_another_package_s_private_module() -> None:
    found = [hit for path in modules() for hit in private_reaches(module_name(path), path.read_text())]
    assert found == [], "import these through the package's door (its __init__):\n" + "\n".join(found)


def test_the_privacy_check_names_a_reach_and_allows_a_family() -> None:
    source = (
        "from rein.session._codec import decode_entry\n"
        "import rein.hooks._run\n"
        "from rein.hooks import _install\n"
        "from rein.session import Session\n"
        "from rein.server._wire import x\n"
        "from .._app import y\n"
    )
    assert private_reaches("rein.server.web._page", source) == [
        "rein.server.web._page:1 -> rein.session._codec.decode_entry",
        "rein.server.web._page:2 -> rein.hooks._run",
        "rein.server.web._page:3 -> rein.hooks._install",
    ]


@pytest.mark.parametrize("door", ["rein.ai", "rein.hooks", "rein.protocol", "rein.session"])
def test_a_door_has_every_name_it_exports(door: str) -> None:
    module = importlib.import_module(door)
    missing = [name for name in vars(module)["__all__"] if not hasattr(module, name)]
    assert missing == []


def test_public_doors_export_what_they_declare() -> None:
    for name in rein.steering.__all__:
        assert hasattr(rein.steering, name), name
    private = [n for n in dir(rein.steering) if not n.startswith("_") and n not in rein.steering.__all__]
    allowed = {"bash", "config", "errors", "plugins", "annotations"}
    assert set(private) <= allowed, set(private) - allowed
