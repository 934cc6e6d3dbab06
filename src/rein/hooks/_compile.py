"""Compile the hook path's bytecode at install time, so no hook process compiles rein.

Python writes `__pycache__` files as a side effect of importing, but not where
`PYTHONDONTWRITEBYTECODE` is set or the directory is read-only, and uv installs without compiling by
default: every hook process would then compile rein's modules again (about 70 ms a call on the
machine the README's figures come from). `compile_hook_path` writes the bytecode of rein's package and
of every module the hook and its daemon import, as `python -m compileall` would, skipping files whose
bytecode is current.
"""

from __future__ import annotations

import compileall
import importlib
import sys
from pathlib import Path

HOOK_PATH = (
    "rein.cli",
    "rein.cli._hookcall",
    "rein.cli.hook",
    "rein.hooks._daemon",
    "rein.hooks._run",
    "rein.hooks.claude",
    "rein.hooks.codex",
    "rein.hooks.gemini",
    "rein.hooks.cursor",
    "rein.steering",
)


def compile_hook_path() -> list[str]:
    """Compile rein and the third-party modules its hook path loads; the files that failed (read-only
    directories, say), as "path: reason" lines."""
    for name in HOOK_PATH:
        importlib.import_module(name)
    failed: list[str] = []
    root = Path(__file__).resolve().parents[1]
    if not compileall.compile_dir(root, quiet=2, workers=1):
        failed.append(f"{root}: some modules could not be compiled (is the directory read-only?)")
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        if not isinstance(source, str) or not source.endswith(".py") or source.startswith(str(root)):
            continue
        if not compileall.compile_file(source, quiet=2):
            failed.append(f"{source}: could not be compiled")
    return failed
