"""A question's title split for the page's dialog. Approval and steering ask in one shape: an optional
reason, then `Allow the agent to run: <command>?` (or `<tool> <path>?`), then lines that explain an
option (each starts with the option's name). The page shows the command in a code block, not in a
heading with a `?` glued to it; any other title is shown as it is.

    shape("Allow the agent to run: ls -la?", ["Allow once", "Deny"])
    # {"lead": "", "ask": "Allow the agent to run this command?", "command": "ls -la", "language": "bash",
    #  "notes": [], "commandHtml": '<pre class="code">...'}   (escaped and highlighted)
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.ai import JsonValue
from rein.html import code

ASK = "Allow the agent to "
RUN = "run: "


def shape(title: str, options: Sequence[str]) -> dict[str, JsonValue] | None:
    """The parts of an approval-shaped title, or None for any other title."""
    lines = title.split("\n")
    notes: list[JsonValue] = []
    while len(lines) > 1 and any(option and lines[-1].startswith(option) for option in options):
        notes.insert(0, lines.pop())
    text = "\n".join(lines)
    at = 0 if text.startswith(ASK) else text.find("\n" + ASK) + 1
    if (at == 0 and not text.startswith(ASK)) or not text.endswith("?"):
        return None
    lead, what = text[:at].rstrip("\n"), text[at + len(ASK) : -1]
    if what.startswith(RUN):
        ask, command, language = "Allow the agent to run this command?", what[len(RUN) :], "bash"
    else:
        tool, _, command = what.partition(" ")
        ask, language = f"Allow the agent to {tool} this file?", ""
    return {
        "lead": lead, "ask": ask, "command": command, "language": language, "notes": notes,
        "commandHtml": code(command, language),
    }  # fmt: skip
