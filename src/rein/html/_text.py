"""The small pieces every part of rein's session HTML uses: escaping, badges, previews, the fields
of either message dialect, and the marks of steering blocks."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from html import escape

from rein.session import message_text

STEERING_TAG = re.compile(r"\[steering:([^\]\s]+)\]")
"""How a steering block starts its reason: `[steering:<rule>@<source>]`."""
PREVIEW = 120


def esc(value: object) -> str:
    """Session text as HTML text or as a quoted attribute value."""
    return escape(str(value), quote=True)


def get(data: Mapping[str, object], *keys: str) -> object:
    """The first of `keys` present: rein's snake_case name, then pi's camelCase one."""
    for key in keys:
        if key in data:
            return data[key]
    return None


def badge(text: str, kind: str) -> str:
    return f'<span class="badge {kind}">{esc(text)}</span>'


def preview(text: str, limit: int = PREVIEW) -> str:
    """`text` on one line, cut at a word boundary with an ellipsis when longer than `limit`."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "\u2026"


def as_json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def steering_rule(text: str) -> str | None:
    """`rule@source` of a tool result that is a steering block."""
    found = STEERING_TAG.match(text.lstrip())
    return found.group(1) if found else None


def content_text(content: object) -> str:
    """A message's text, images counted."""
    if isinstance(content, list):
        images = sum(1 for b in content if isinstance(b, dict) and b.get("type") == "image")
        return message_text(content) + (f"\n[{images} image(s)]" if images else "")
    return message_text(content)
