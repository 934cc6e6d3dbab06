"""One-line summaries of tool calls, outputs and thinking, and the status line's numbers: plain
functions of their inputs, so the UI and the line-by-line mode show the same words."""

from __future__ import annotations

import json
from collections.abc import Mapping

from prompt_toolkit.formatted_text import StyleAndTextTuples

from rein.agent import ToolOutput
from rein.ai import ToolCall

OUTPUT_LINES = 4
"""Lines of a tool's output shown under its summary; the rest is counted, not shown."""
WIDTH = 160
"""Longest summary or output line kept; longer ones are cut with an ellipsis."""


def clip(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def one_line(text: str, width: int = WIDTH) -> str:
    """The first non-empty line of `text`, clipped; ` ...` marks that more lines followed."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    return clip(lines[0].strip() + (" ..." if len(lines) > 1 else ""), width)


def describe(call: ToolCall) -> str:
    """`[bash] pytest -q`, `[read] src/app.py`, `[name] {"arg": ...}`."""
    args: Mapping[str, object] = call.arguments
    if not args and call.raw_arguments:
        args = _partial(call.raw_arguments)
    command = args.get("command")
    if call.name == "bash" and isinstance(command, str):
        return f"[bash] {one_line(command)}"
    path = args.get("path")
    if isinstance(path, str):
        return clip(f"[{call.name}] {path}")
    return clip(f"[{call.name}] {json.dumps(dict(args)) if args else ''}".rstrip())


def _partial(raw: str) -> Mapping[str, object]:
    """The arguments of a call still streaming are incomplete JSON: show them once they parse."""
    try:
        decoded = json.loads(raw)
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


def tool_result(summary: str, output: ToolOutput) -> StyleAndTextTuples:
    """The folded tool call: its summary, then the first lines of its output."""
    lines = output.text.rstrip().splitlines()
    style = "class:tool.error" if output.is_error else "class:tool.output"
    out: StyleAndTextTuples = [("class:tool", summary)]
    for line in lines[:OUTPUT_LINES]:
        out.append((style, "\n  " + clip(line)))
    if len(lines) > OUTPUT_LINES:
        out.append((style, f"\n  ... {len(lines) - OUTPUT_LINES} more lines"))
    return out


def thinking(text: str) -> str:
    """Thinking, collapsed to one line: `[thinking] the first words ...`."""
    return f"[thinking] {one_line(text, WIDTH - 11)}"


def thinking_tail(text: str) -> str:
    """Thinking as it streams: its latest words on one line."""
    words = " ".join(text.split())
    return f"[thinking] ...{words[-(WIDTH - 14) :]}" if len(words) > WIDTH - 14 else f"[thinking] {words}"


def tokens(count: int) -> str:
    if count < 1000:
        return f"{count} tokens"
    if count < 1_000_000:
        return f"{count / 1000:.1f}k tokens"
    return f"{count / 1_000_000:.2f}M tokens"


def elapsed(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 60}m {whole % 60:02d}s" if whole >= 60 else f"{whole}s"
