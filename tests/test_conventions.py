"""Conventions reviewers would otherwise have to ask for: layering, module size, public doors."""

from __future__ import annotations

import ast
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


def test_public_doors_export_what_they_declare() -> None:
    for name in rein.steering.__all__:
        assert hasattr(rein.steering, name), name
    private = [n for n in dir(rein.steering) if not n.startswith("_") and n not in rein.steering.__all__]
    allowed = {"bash", "config", "errors", "plugins", "annotations"}
    assert set(private) <= allowed, set(private) - allowed
