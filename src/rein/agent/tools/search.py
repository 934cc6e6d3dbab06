"""`ls`, `grep` and `find`: look around the project without a shell."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator, Mapping
from fnmatch import fnmatchcase
from pathlib import Path

from rein.agent._tool import ExecutionMode, ToolContext, ToolError, ToolOutput
from rein.agent.tools import _args

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache"})
DEFAULT_LIMIT = 200


def _walk(root: Path) -> Iterator[Path]:
    """Files under root in a stable order, skipping VCS, dependency and cache directories."""
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            yield Path(directory) / name


def _directory(args: Mapping[str, object], context: ToolContext) -> Path:
    path = Path(_args.resolve(_args.text(args, "path", required=False, default="."), context.cwd))
    if not path.exists():
        raise ToolError(f"{path}: no such file or directory")
    return path


def _limited(lines: list[str], limit: int, what: str) -> str:
    if not lines:
        return f"(no {what})"
    shown = "\n".join(lines[:limit])
    return shown + (
        f"\n[{len(lines) - limit} more {what} not shown; narrow the search]" if len(lines) > limit else ""
    )


class _Search:
    execution_mode: ExecutionMode = "parallel"

    def mutates(self, args: Mapping[str, object], cwd: str) -> str | None:
        return None


class Ls(_Search):
    name = "ls"
    description = "List a directory: directories end with /, hidden entries included."
    parameters: Mapping[str, object] = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
    }

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        path = _directory(args, context)
        limit = _args.integer(args, "limit", 500, minimum=1)
        if not path.is_dir():
            raise ToolError(f"{path}: not a directory")
        entries = sorted(f"{p.name}/" if p.is_dir() else p.name for p in path.iterdir())
        return ToolOutput(text=_limited(entries, limit, "entries"), details={"path": str(path)})


class Grep(_Search):
    name = "grep"
    description = "Search file contents with a regular expression; prints path:line:text."
    parameters: Mapping[str, object] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "path": {"type": "string"},
            "glob": {"type": "string", "description": "Only files whose name matches, e.g. *.py"},
            "ignore_case": {"type": "boolean"},
            "limit": {"type": "integer"},
        },
        "required": ["pattern"],
    }

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        flags = re.IGNORECASE if _args.flag(args, "ignore_case") else 0
        try:
            pattern = re.compile(_args.text(args, "pattern"), flags)
        except re.error as error:
            raise ToolError(f"invalid regular expression: {error}") from None
        root = _directory(args, context)
        glob = _args.text(args, "glob", required=False)
        limit = _args.integer(args, "limit", DEFAULT_LIMIT, minimum=1)

        def search() -> list[str]:
            hits: list[str] = []
            for file in [root] if root.is_file() else _walk(root):
                if glob and not fnmatchcase(file.name, glob):
                    continue
                try:
                    data = file.read_bytes()
                except OSError:
                    continue
                if b"\0" in data[:8192]:
                    continue
                for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
                    if pattern.search(line):
                        hits.append(f"{os.path.relpath(file, context.cwd)}:{number}:{line[:300]}")
                        if len(hits) > limit:
                            return hits
            return hits

        return ToolOutput(text=_limited(await asyncio.to_thread(search), limit, "matches"))


class Find(_Search):
    name = "find"
    description = "Find files by name glob (e.g. *.py, test_*), recursively."
    parameters: Mapping[str, object] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "path": {"type": "string"},
            "limit": {"type": "integer"},
        },
        "required": ["pattern"],
    }

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        glob = _args.text(args, "pattern")
        root = _directory(args, context)
        limit = _args.integer(args, "limit", DEFAULT_LIMIT, minimum=1)

        def find() -> list[str]:
            found: list[str] = []
            for file in _walk(root):
                relative = os.path.relpath(file, context.cwd)
                if fnmatchcase(file.name, glob) or fnmatchcase(relative, glob):
                    found.append(relative)
                    if len(found) > limit:
                        break
            return found

        return ToolOutput(text=_limited(await asyncio.to_thread(find), limit, "files"))
