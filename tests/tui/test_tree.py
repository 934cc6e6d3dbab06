"""`/tree` in the real terminal UI: the menu starts at the current entry, the arrows move, an
earlier reply is chosen, and the next reply hangs off it (read back from the session file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rein.builtins import CURRENT_MARK
from rein.tui._dialogs import start
from tests.tui.tmux_driver import Pane, rein_in_tmux

READY = "Ctrl-D quits"
MENU_READY = "Up/Down and Enter"


def selected(screen: str) -> str:
    """The menu line the selection is on (the menu marks it with `>`)."""
    return next(line for line in screen.splitlines() if line.startswith("> ") and ". " in line[:8])


def send_prompt(pane: Pane, text: str) -> None:
    pane.wait_for(lambda screen: READY in screen)
    pane.type(text)
    pane.send("Enter")
    pane.wait_for(f"You said: {text}")


def messages(home: Path) -> list[dict[str, object]]:
    (path,) = (home / ".rein" / "sessions").rglob("*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [r for r in records if r.get("type") == "message"]


def text_of(record: dict[str, object]) -> str:
    """`role: text` of a message record (rein writes content as text blocks)."""
    message = record["message"]
    assert isinstance(message, dict)
    blocks = message["content"]
    text = blocks if isinstance(blocks, str) else "".join(b.get("text", "") for b in blocks)
    return f"{message['role']}: {text}"


def test_a_menu_starts_at_the_current_option() -> None:
    assert start(["a", f"b  {CURRENT_MARK}", "c"]) == 1
    assert start(["a", "b"]) == 0


@pytest.mark.slow
@pytest.mark.usefixtures("tmux")
def test_tree_moves_back_to_an_earlier_reply_and_the_next_reply_hangs_off_it(
    project: tuple[Path, Path],
) -> None:
    cwd, home = project
    with rein_in_tmux("--provider", "faux", cwd=cwd, home=home) as pane:
        send_prompt(pane, "one")
        send_prompt(pane, "two")
        pane.wait_for(lambda screen: READY in screen)
        pane.type("/tree")
        pane.send("Enter")
        screen = pane.wait_for(lambda s: "Continue from which entry?" in s and MENU_READY in s)
        assert selected(screen).endswith(f"assistant: You said: two  {CURRENT_MARK}")
        pane.send("Up")
        pane.wait_for(lambda s: selected(s).endswith("user: two"))
        pane.send("Up")
        pane.wait_for(lambda s: selected(s).endswith("assistant: You said: one"))
        pane.send("Enter")
        pane.wait_for(lambda s: "Summarize the branch you leave?" in s and MENU_READY in s)
        assert selected(pane.screen()).endswith("1. no")
        pane.send("Enter")
        pane.wait_for("/tree: continuing from")
        send_prompt(pane, "three")
        pane.wait_for(lambda screen: READY in screen)
        pane.send("C-d")
        assert pane.wait_exit() == 0
        assert "Traceback" not in pane.history()
    written = {text_of(m): m for m in messages(home)}
    one, three = written["assistant: You said: one"], written["user: three"]
    assert three["parent_id"] == one["id"]
    # "two" and "three" both hang off the first reply: the session file now holds two branches.
    assert written["user: two"]["parent_id"] == one["id"]
    assert written["assistant: You said: three"]["parent_id"] == three["id"]
