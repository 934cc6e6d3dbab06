"""`read`, `write` and `edit`: the file tools."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from rein.agent._tool import ExecutionMode, ToolContext, ToolError, ToolOutput
from rein.agent.tools import _args

MAX_LINES = 2000
MAX_BYTES = 50_000


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ToolError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ToolError(f"{path}: is a directory (use ls)") from None
    except OSError as error:
        raise ToolError(f"{path}: {error.strerror}") from None
    if b"\0" in data[:8192]:
        raise ToolError(f"{path}: binary file ({len(data)} bytes), not shown")
    return data.decode("utf-8", errors="replace")


def _path_of(args: Mapping[str, object], cwd: str) -> str | None:
    path = args.get("path")
    return _args.resolve(path, cwd) if isinstance(path, str) else None


class Read:
    name = "read"
    description = (
        "Read a text file. Lines are numbered from 1; use offset and limit for long files. Output is cut at"
        f" {MAX_LINES} lines or {MAX_BYTES // 1000} KB with a notice saying how to read on."
    )
    parameters: Mapping[str, object] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the working directory."},
            "offset": {"type": "integer", "description": "First line to read (1-based)."},
            "limit": {"type": "integer", "description": "Number of lines to read."},
        },
        "required": ["path"],
    }
    execution_mode: ExecutionMode = "parallel"

    def mutates(self, args: Mapping[str, object], cwd: str) -> str | None:
        return None

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        path = Path(_args.resolve(_args.text(args, "path"), context.cwd))
        offset = _args.integer(args, "offset", 1, minimum=1)
        limit = _args.integer(args, "limit", None, minimum=1)
        lines = (await asyncio.to_thread(_read_text, path)).splitlines()
        total = len(lines)
        if offset > max(total, 1):
            raise ToolError(f"{path}: offset {offset} is past the end ({total} lines)")
        end = min(total, offset - 1 + (limit or MAX_LINES), offset - 1 + MAX_LINES)
        shown: list[str] = []
        size = 0
        for number in range(offset, end + 1):
            line = lines[number - 1]
            size += len(line) + 1
            if size > MAX_BYTES and shown:
                end = number - 1
                break
            shown.append(line)
        body = "\n".join(shown)
        if end < total:
            body += f"\n\n[showing lines {offset}-{end} of {total}; use offset={end + 1} to continue]"
        return ToolOutput(text=body, details={"path": str(path), "lines": total})


class Write:
    name = "write"
    description = "Create or overwrite a file with the given content. Parent directories are created."
    parameters: Mapping[str, object] = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    }
    execution_mode: ExecutionMode = "parallel"

    def mutates(self, args: Mapping[str, object], cwd: str) -> str | None:
        return _path_of(args, cwd)

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        path = Path(_args.resolve(_args.text(args, "path"), context.cwd))
        content = _args.text(args, "content")

        def write() -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")

        try:
            await asyncio.to_thread(write)
        except OSError as error:
            raise ToolError(f"{path}: {error.strerror}") from None
        return ToolOutput(text=f"Wrote {len(content.encode())} bytes to {path}", details={"path": str(path)})


class Edit:
    name = "edit"
    description = (
        "Replace exact text in a file. old_string must occur exactly once (include surrounding lines to make"
        " it unique), unless replace_all is true."
    )
    parameters: Mapping[str, object] = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_string": {"type": "string", "description": "Exact text to replace."},
            "new_string": {"type": "string"},
            "replace_all": {"type": "boolean"},
        },
        "required": ["path", "old_string", "new_string"],
    }
    execution_mode: ExecutionMode = "parallel"

    def mutates(self, args: Mapping[str, object], cwd: str) -> str | None:
        return _path_of(args, cwd)

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        path = Path(_args.resolve(_args.text(args, "path"), context.cwd))
        old, new = _args.text(args, "old_string"), _args.text(args, "new_string")
        replace_all = _args.flag(args, "replace_all")
        if not old:
            raise ToolError("old_string is empty; use write to create a file")
        if old == new:
            raise ToolError("old_string and new_string are the same; nothing to change")
        original = await asyncio.to_thread(_read_text, path)
        count = original.count(old)
        if count == 0:
            raise ToolError(f"{path}: old_string not found; read the file and copy the text exactly")
        if count > 1 and not replace_all:
            raise ToolError(
                f"{path}: old_string occurs {count} times; include more context to make it unique,"
                " or set replace_all"
            )
        updated = original.replace(old, new) if replace_all else original.replace(old, new, 1)
        await asyncio.to_thread(path.write_text, updated, encoding="utf-8")
        line = original[: original.index(old)].count("\n") + 1
        done = f"{count} replacements" if replace_all else f"1 replacement at line {line}"
        return ToolOutput(text=f"Edited {path}: {done}", details={"path": str(path), "line": line})
