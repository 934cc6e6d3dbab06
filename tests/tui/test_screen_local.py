"""The screen on the embedded local model (SmolLM2 through llama.cpp): a real reply, unscripted,
streams in and the session ends cleanly. With no API key, `rein` chooses this model by itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.tui.tmux_driver import rein_in_tmux

pytestmark = [pytest.mark.local, pytest.mark.slow, pytest.mark.usefixtures("tmux")]

IDLE = "Tab completes"


def test_a_reply_from_the_local_model(project: tuple[Path, Path]) -> None:
    cwd, home = project
    with rein_in_tmux(cwd=cwd, home=home) as pane:
        screen = pane.wait_for(lambda s: IDLE in s and "/help for commands" in s, timeout=120)
        assert re.search(r"^local/\S+ \| 0 tokens \| 0 rule firings", screen, re.MULTILINE)
        assert "The local model may run bash" in pane.history()  # what it may do, said up front
        pane.type("Say hello in one short sentence.")
        pane.send("Enter")
        pane.wait_for("Esc aborts | Enter queues", timeout=60)
        # The model samples (temperature 0.8): now and then its reply holds a bash block, whose call
        # asks for approval first. Dismiss each question (a denial) until the run ends.
        for _ in range(5):
            done = pane.wait_for(lambda s: IDLE in s or "Esc dismisses" in s, timeout=120)
            if IDLE in done and "Esc dismisses" not in done:
                break
            pane.send("Escape")
            pane.wait_for(lambda s: "Esc dismisses" not in s, timeout=30)
        assert re.search(r"^local/\S+ \| [1-9][\d.k]* tokens", done, re.MULTILINE)
        assert "[error]" not in done and "Traceback" not in pane.history()
        # llama.cpp points descriptor 1 at /dev/null while it loads the model: the screen draws on
        # its own descriptor, so no redraw is lost and the prompt's line is not overwritten.
        assert "\n> Say hello in one short sentence.\n" in pane.history()
        pane.send("C-d")
        assert pane.wait_exit(timeout=60) == 0
