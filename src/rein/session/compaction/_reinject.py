"""After a compaction: the project's instruction files and the files read last, read again from disk.

Users of every agent that compacts report lost instructions after it; Claude Code re-reads such files
from disk. They go into one hidden message after the compaction entry, within a token budget, newest
read first; a file that does not fit whole is cut and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rein.session.compaction._tokens import text_tokens

INSTRUCTION_FILES = ("AGENTS.md", "AGENT.md", "CLAUDE.md", "GEMINI.md", ".rein/AGENTS.md")
RECENT_FILES = 5
HEADER = (
    "[rein] The conversation was compacted. These files were read again from disk just now, so the"
    " instructions and the code you were looking at are current:"
)


def instruction_files(cwd: Path) -> list[Path]:
    """Instruction files in `cwd` and each parent up to the repository root (the nearest first)."""
    found: list[Path] = []
    for folder in (cwd, *cwd.parents):
        found.extend(path for name in INSTRUCTION_FILES if (path := folder / name).is_file())
        if (folder / ".git").exists():
            break
    return found


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def reinject_text(cwd: str, read_files: Sequence[str], budget: int) -> str | None:
    """The message to add after a compaction, or None when nothing fits or nothing is there.
    `read_files`: the session's read files, oldest first (relative to `cwd` or absolute)."""
    root = Path(cwd)
    recent = [root / name for name in reversed(read_files)][:RECENT_FILES]
    paths = list(dict.fromkeys([*instruction_files(root), *recent]))
    left = budget - text_tokens(HEADER)
    sections: list[str] = []
    for path in paths:
        text = _read(path) if path.is_file() else None
        if text is None or left < 64:
            continue
        shown = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        cost = text_tokens(text) + 16
        if cost > left:
            text = text[: (left - 32) * 4] + "\n[...cut by rein: the file is longer]"
            cost = left
        sections.append(f'<file path="{shown}">\n{text}\n</file>')
        left -= cost
    return "\n\n".join([HEADER, *sections]) if sections else None
