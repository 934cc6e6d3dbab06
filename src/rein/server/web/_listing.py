"""One row of the page's session list, computed from the service's cached view (no decoding): the
first user prompt from the front of the tree, the model from the last assistant message.

    summary(view, running=False)   # {"id", "cwd", "firstPrompt", "entryCount", ..., "running"}
"""

from __future__ import annotations

from rein.ai import JsonValue
from rein.server._view import Entry, SessionView
from rein.session import message_text

FIRST_PROMPT = 200


def user_text(entry: Entry) -> str | None:
    """The text of a user message entry (either dialect), None for any other entry."""
    message = entry.get("message")
    if entry.get("type") != "message" or not isinstance(message, dict) or message.get("role") != "user":
        return None
    return message_text(message.get("content"))


def _model(view: SessionView) -> str | None:
    for entry in reversed(view.entries):
        message = entry.get("message")
        if (
            entry.get("type") == "message"
            and isinstance(message, dict)
            and message.get("role") == "assistant"
        ):
            provider, model = message.get("provider"), message.get("model")
            if isinstance(model, str):
                return f"{provider}/{model}" if isinstance(provider, str) and provider else model
            return None
    return None


def summary(view: SessionView, *, running: bool) -> dict[str, JsonValue]:
    prompt = next((text for entry in view.entries if (text := user_text(entry)) is not None), "")
    row = view.row
    return {
        "id": row.session_id,
        "cwd": row.cwd,
        "firstPrompt": " ".join(prompt.split())[:FIRST_PROMPT],
        "entryCount": row.entry_count,
        "messageCount": view.message_count(),
        "createdAt": row.created_ms,
        "updatedAt": row.updated_ms,
        "model": _model(view),
        "running": running,
    }
