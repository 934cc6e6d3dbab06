"""Reading tool outputs and conversation text: blocked calls, error lines, TODO items. Pure."""

from __future__ import annotations

import re

MAX_ERROR_LINES = 15
MAX_ERROR_CHARS = 1000
TRACEBACK_TAIL = 4
"""Lines of a traceback kept before its exception line: the frames nearest the failure."""

PRUNED_PREFIX = "[output pruned by rein: "
"""How a pruned tool output begins; what it held is gone, so no error is read from it."""

_BLOCKED_PREFIXES = (
    "[steering:",  # a steering rule
    "[approval]",  # nobody approved, or the user denied
    "blocked:",  # a failing tool_call hook or extension
    "not run:",  # the run was aborted, the timebox is spent
    "unknown tool ",
    "invalid arguments for ",
)
_EXIT_MARKER = re.compile(r"^\[exit code (-?\d+)\]\s*$", re.MULTILINE)
_MARKER = re.compile(r"^\[(exit code -?\d+|command (aborted|timed out)[^\]]*)\]\s*$")
_USEFUL = re.compile(
    r"AssertionError|^\s*assert\b|^>\s+\S|^E\s{3}|\b\w*Error\b:|\berror(\[\w+\])?:|\bFAIL(ED)?\b|panicked at"
)
_TRACEBACK = "Traceback (most recent call last):"
_TASK = re.compile(r"^\s*[-*+]\s+\[([ xX])\]\s+(\S.*?)\s*$")
_TODO = re.compile(r"^\s*TODO(?::\s*|\s+)(\S.*?)\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def normalize_command(command: str) -> str:
    """The command with every whitespace run made one space: reruns compare equal."""
    return " ".join(command.split())


def exit_code(text: str, *, is_error: bool) -> int | None:
    """A bash result's exit code: 0 when it succeeded, else its last `[exit code N]` marker; None
    when an error result has none (aborted, timed out, never started)."""
    if not is_error:
        return 0
    markers = _EXIT_MARKER.findall(text)
    return int(markers[-1]) if markers else None


def is_blocked(text: str) -> bool:
    """Whether an error result says its call never ran (blocked by steering, approval, a hook or
    the timebox; an unknown tool; bad arguments)."""
    head = text.lstrip().lower()
    return head.startswith(_BLOCKED_PREFIXES)


def error_excerpt(text: str) -> str:
    """The most useful lines of a failing output, verbatim: assertions, pytest's `>` and `E` lines,
    `Error:` lines, `FAILED`, the end of the last traceback; the last lines when none match. At most
    `MAX_ERROR_LINES` lines (the first ones and the last few when more match) and `MAX_ERROR_CHARS`."""
    lines = [line.rstrip() for line in text.splitlines() if not _MARKER.match(line.strip())]
    picked = [index for index, line in enumerate(lines) if _USEFUL.search(line)]
    picked.extend(_traceback_tail(lines))
    chosen = [lines[index] for index in sorted(set(picked))]
    if not chosen:
        chosen = [line for line in lines if line.strip()][-MAX_ERROR_LINES:]
    if len(chosen) > MAX_ERROR_LINES:
        chosen = [*chosen[: MAX_ERROR_LINES - TRACEBACK_TAIL - 1], "...", *chosen[-TRACEBACK_TAIL:]]
    kept: list[str] = []
    size = 0
    for line in chosen:
        if size + len(line) > MAX_ERROR_CHARS:
            if not kept:
                kept.append(line[:MAX_ERROR_CHARS])
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept)


def _traceback_tail(lines: list[str]) -> list[int]:
    """Indexes of the last traceback's final frames and its exception line."""
    starts = [index for index, line in enumerate(lines) if line.strip() == _TRACEBACK]
    if not starts:
        return []
    end = len(lines) - 1
    for index in range(starts[-1] + 1, len(lines)):
        if lines[index] and not lines[index][0].isspace():
            end = index
            break
    return list(range(max(starts[-1] + 1, end - TRACEBACK_TAIL), end + 1))


def todo_marks(text: str) -> list[tuple[bool, str]]:
    """Task items in `text`, in order, as (checked, item): markdown `- [ ] x` / `- [x] x` (also `*`
    and `+`), and `TODO: x` / `TODO x` lines (unchecked). Lines inside fenced code are not tasks."""
    marks: list[tuple[bool, str]] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        if task := _TASK.match(line):
            marks.append((task.group(1) != " ", task.group(2)))
        elif todo := _TODO.match(line):
            marks.append((False, todo.group(1)))
    return marks
