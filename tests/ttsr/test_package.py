"""Conventions of the package, as tests: its public surface, its imports, its module sizes."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import rein.ttsr

PACKAGE = Path(rein.ttsr.__file__).parent

PUBLIC = {
    "INTERRUPT_TEMPLATE",
    "PATH_KEYS",
    "REMINDER_LIMIT",
    "REMINDER_TEMPLATE",
    "Condition",
    "Dialect",
    "ContextMode",
    "Discovery",
    "Engine",
    "Extent",
    "FrontmatterError",
    "HoldWindow",
    "InjectionRecord",
    "InterruptMode",
    "JsonArgsDecoder",
    "MatchContext",
    "NotAStreamRule",
    "PlannedCondition",
    "RepeatMode",
    "Rule",
    "RuleError",
    "RuleFormat",
    "RuleIssue",
    "RuleMatch",
    "RulePlan",
    "Scope",
    "SettingsError",
    "Source",
    "Templates",
    "ToolScope",
    "TtsrError",
    "TtsrManager",
    "TtsrSettings",
    "TtsrState",
    "allows_interrupt",
    "builtin_rule_texts",
    "dialect_of",
    "discover_rules",
    "hold_windows",
    "load_rule_file",
    "longest_match",
    "parse_rule",
    "plan_rules",
    "render",
    "rule_sources",
    "select_rules",
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_public_surface_does_not_drift() -> None:
    assert set(rein.ttsr.__all__) == PUBLIC
    assert all(hasattr(rein.ttsr, name) for name in PUBLIC)


def test_private_modules_behind_one_door() -> None:
    names = {p.name for p in _modules()}
    assert all(n.startswith("_") or n == "errors.py" for n in names)


def test_engine_imports_no_host_and_only_io_module_reads_files() -> None:
    allowed_rein = ("rein.ttsr",)
    for path in _modules():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rein"):
                assert node.module.startswith(allowed_rein), f"{path.name} imports {node.module}"
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("rein") for a in node.names if a.name != "rein.ttsr")
        if path.name != "_discovery.py":
            assert not _does_io(tree), f"{path.name} does file I/O"
    hyperscan_users = [p.name for p in _modules() if "import hyperscan" in p.read_text()]
    assert hyperscan_users == ["_hyperscan.py"]
    regex_users = [p.name for p in _modules() if "import regex" in p.read_text()]
    assert regex_users == ["_regex.py"]


def _does_io(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                return True
            if isinstance(func, ast.Attribute) and func.attr in _IO_METHODS:
                return True
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if any(m.split(".")[0] in {"os", "pathlib", "io", "shutil"} for m in modules):
                return True
    return False


_IO_METHODS = {"read_text", "read_bytes", "write_text", "write_bytes", "iterdir", "glob", "rglob", "open"}


def test_module_sizes() -> None:
    sizes = {p.name: len(p.read_text().splitlines()) for p in _modules()}
    assert max(sizes.values()) <= 400, sizes
    assert sum(1 for n in sizes.values() if n <= 200) >= len(sizes) // 2, sizes


def test_cli_module_import_is_light() -> None:
    code = (
        "import sys, rein.cli.rules; "
        "heavy = [m for m in ('hyperscan', 'regex', 'yaml', 'rich.table', 'rein.ttsr') if m in sys.modules]; "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
