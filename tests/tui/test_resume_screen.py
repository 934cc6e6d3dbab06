"""Issue 35, resuming on the screen (the real `rein` in tmux, on the faux provider): the end of a
session says how to continue it; `rein -c` names the session, replays its last turns and shows the
same token count as before; a timebox that ran out while the session was open is not said to have run
out "while the session was closed", neither at `-c` nor after `/tree`."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.tui.tmux_driver import Pane, rein_in_tmux

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tmux")]

FAUX = ("--provider", "faux")
READY = "Ctrl-D quits"
CLOSED = "while the session was closed"
STATUS = re.compile(r"^faux/default \| (\S+ tokens) \|", re.MULTILINE)


def idle(pane: Pane) -> str:
    """The screen once no run goes, with its status line drawn."""
    return pane.wait_for(lambda screen: READY in screen and STATUS.search(screen) is not None)


def send(pane: Pane, text: str, wanted: str) -> str:
    pane.type(text)
    pane.send("Enter")
    pane.wait_for(wanted)
    return idle(pane)


def status_tokens(screen: str) -> str:
    found = STATUS.search(screen)
    assert found is not None, screen
    return found.group(1)


def test_quit_says_how_to_continue_and_continue_replays_the_last_turns(project: tuple[Path, Path]) -> None:
    cwd, home = project
    with rein_in_tmux(*FAUX, cwd=cwd, home=home) as pane:
        idle(pane)
        for word in ("one", "two", "three", "four"):
            screen = send(pane, word, f"You said: {word}")
        before = status_tokens(screen)
        assert before != "0 tokens"
        send(pane, "/timebox 0.05m", "Timebox set: 3s")
        pane.wait_for("time is up")  # it ran out while the session was open
        pane.type("/quit")
        pane.send("Enter")
        assert pane.wait_exit() == 0
        said = re.search(r"session saved: ([0-9a-f-]{36}); continue with `rein -c`", pane.history())
        assert said is not None, pane.history()
    sid = said.group(1)
    with rein_in_tmux(*FAUX, "-c", cwd=cwd, home=home) as pane:
        idle(pane)
        time.sleep(0.5)  # the extensions' start notices, if any, are on screen by now
        screen = idle(pane)
        assert re.search(rf"\[session\] resumed {sid}: 8 messages, {before} of context, \d+ entries", screen)
        assert "... 2 earlier messages" in screen and "You said: one" not in screen
        assert "> two\nYou said: two" in screen and "> four\nYou said: four" in screen
        assert status_tokens(screen) == before  # the context's tokens, before and after the resume
        assert CLOSED not in screen
        pane.type("/tree")
        pane.send("Enter")
        menu = pane.wait_for(lambda s: "Continue from which entry?" in s and "Esc dismisses" in s)
        number = next(m.group(1) for m in re.finditer(r"^[> ] (\d)\. .*user: three", menu, re.MULTILINE))
        pane.send(number)
        pane.wait_for(lambda s: "Summarize the branch you leave?" in s and "Esc dismisses" in s)
        pane.send("Enter")
        pane.wait_for("/tree: back before the prompt")
        time.sleep(0.5)
        after_tree = status_tokens(idle(pane))
        assert after_tree != before  # the context is two messages shorter
        assert CLOSED not in pane.history()
        pane.send("C-d")
        assert pane.wait_exit() == 0
        assert f"session saved: {sid}" in pane.history()
