"""The screen on the faux provider (it echoes the prompt): the editor, the keys at the idle prompt,
completion, history, and exit. Each test runs the real `rein` in a tmux pane."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.tui.tmux_driver import Pane, rein_in_tmux

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tmux")]

FAUX = ("--provider", "faux")
READY = "Ctrl-D quits"


def started(pane: Pane) -> None:
    idle(pane)
    pane.wait_for("/help for commands")


def idle(pane: Pane) -> str:
    """The screen once no run is going (the footer shows the idle keys)."""
    return pane.wait_for(lambda screen: READY in screen)


def editor_line(screen: str) -> str:
    """The editor's first line (the one after the separator)."""
    lines = screen.splitlines()
    marks = [i for i, line in enumerate(lines) if line.startswith("-----")]
    return lines[marks[-1] + 1] if marks and marks[-1] + 1 < len(lines) else ""


def test_a_prompt_is_answered_and_ctrl_d_exits_0(project: tuple[Path, Path]) -> None:
    cwd, home = project
    with rein_in_tmux(*FAUX, cwd=cwd, home=home) as pane:
        started(pane)
        pane.wait_for(f"rein 0.1.0 in {cwd} | /help for commands | Esc aborts, Ctrl-D quits")
        pane.wait_for("faux/default | 0 tokens | 0 rule firings")
        pane.type("hello there")
        pane.send("Enter")
        screen = pane.wait_for("You said: hello there")
        assert "> hello there" in screen
        assert "faux/default | 0 tokens" not in idle(pane)  # the reply's usage is counted
        pane.send("C-d")
        assert pane.wait_exit() == 0
        assert "Traceback" not in pane.history()


def test_esc_at_the_idle_prompt_does_not_swallow_the_next_key(project: tuple[Path, Path]) -> None:
    cwd, home = project
    with rein_in_tmux(*FAUX, cwd=cwd, home=home) as pane:
        started(pane)
        pane.send("Escape")
        pane.type("/help")
        pane.send("Enter")
        screen = pane.wait_for("/quit")
        assert "List the commands" in screen and "You said" not in screen
        pane.send("Escape")
        pane.type("b")  # Alt-b would move a word back and type nothing
        pane.wait_for(lambda s: editor_line(s) == "> b")


def test_ctrl_c_clears_the_editor_then_twice_exits(project: tuple[Path, Path]) -> None:
    cwd, home = project
    with rein_in_tmux(*FAUX, cwd=cwd, home=home) as pane:
        started(pane)
        pane.type("some draft")
        pane.wait_for(lambda s: editor_line(s) == "> some draft")
        pane.send("C-c")
        pane.wait_for(lambda s: editor_line(s) == ">")
        assert pane.exit_status() is None
        pane.send("C-c")
        pane.wait_for("Press Ctrl-C again to exit")
        pane.send("C-c")
        assert pane.wait_exit() == 0
        assert "Traceback" not in pane.history()


def test_tab_completes_commands_and_paths(project: tuple[Path, Path]) -> None:
    cwd, home = project
    with rein_in_tmux(*FAUX, cwd=cwd, home=home) as pane:
        started(pane)
        pane.type("/he")
        pane.wait_for("List the commands, one line each")  # the menu shows while typing
        pane.send("Tab")
        pane.wait_for(lambda s: editor_line(s).rstrip() == "> /help")
        pane.send("C-c")
        pane.wait_for(lambda s: editor_line(s) == ">")
        pane.type("look at @sr")
        pane.send("Tab")
        pane.wait_for(lambda s: editor_line(s) == "> look at @src/")
        pane.type("ap")
        pane.send("Tab")
        pane.wait_for(lambda s: editor_line(s) == "> look at @src/app.py")
        pane.send("Enter")  # takes the completion (closes the menu); the next Enter sends
        pane.wait_for(lambda s: " app.py" not in s)
        pane.send("Enter")
        pane.wait_for("You said: look at @src/app.py")  # the prompt is sent as typed


def test_multi_line_input_history_and_paste(project: tuple[Path, Path]) -> None:
    cwd, home = project
    with rein_in_tmux(*FAUX, cwd=cwd, home=home) as pane:
        started(pane)
        pane.type("first line")
        pane.send("M-Enter")
        pane.type("second line")
        pane.send("C-j")
        pane.type("third line")
        pane.send("Enter")
        pane.wait_for("third line")
        pane.wait_for(lambda s: "You said: first line" in s and READY in s)
        pane.paste("pasted one\npasted two")
        pane.wait_for(lambda s: "  pasted two" in s and "You said: pasted" not in s)  # not sent yet
        pane.send("Enter")
        pane.wait_for("You said: pasted one")
        idle(pane)
        pane.send("Up")
        pane.wait_for(lambda s: editor_line(s) == "> pasted one")
        pane.send("C-c", "C-d")
        assert pane.wait_exit() == 0
    history = (home / ".rein" / "history").read_text()
    assert "+first line\n+second line\n+third line" in history and "+pasted two" in history


def test_quit_and_exit_leave(project: tuple[Path, Path]) -> None:
    cwd, home = project
    for command in ("/quit", "/exit"):
        with rein_in_tmux(*FAUX, cwd=cwd, home=home) as pane:
            started(pane)
            pane.type(command)
            pane.send("Enter")
            assert pane.wait_exit() == 0


def test_new_and_resume_switch_the_session_in_place(project: tuple[Path, Path]) -> None:
    cwd, home = project
    with rein_in_tmux(*FAUX, cwd=cwd, home=home) as pane:
        started(pane)
        pane.type("remember the tortoise")
        pane.send("Enter")
        pane.wait_for("You said: remember the tortoise")
        idle(pane)
        pane.type("/new")
        pane.send("Enter")
        screen = pane.wait_for("[session] now ")
        assert re.search(r"\[session\] now [0-9a-f-]+: 0 messages, 0 tokens", screen)
        pane.wait_for("faux/default | 0 tokens")
        pane.type("/resume")
        pane.send("Enter")
        menu = pane.wait_for(lambda s: "Resume which session?" in s and "Esc dismisses" in s)
        number = next(m.group(1) for m in re.finditer(r"^[> ] (\d)\. .*remember the tortoise", menu, re.M))
        pane.send(number)
        screen = pane.wait_for(lambda s: "resumed " in s and s.count("[session] now ") == 2)
        assert re.search(r"\[session\] now [0-9a-f-]+: 2 messages, [1-9]", screen)
