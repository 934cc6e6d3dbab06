"""Approval in the real terminal UI, on the faux provider scripting a bash call that needs approval:
Esc on the question says it was dismissed (not print mode's `--approve auto`), `/steering` shows
each call's outcome, and "Always allow in this project" is saved for the next session."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from rein.builtins._approved import FILE
from tests.tui.tmux_driver import Pane, rein_in_tmux

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tmux")]

READY = "Ctrl-D quits"
MENU = "Esc dismisses"


def script(path: Path, command: str, answer: str) -> dict[str, str]:
    """The environment of a faux provider that asks to run `command`, then says `answer`."""
    replies = [[{"tool": "bash", "id": "c1", "arguments": {"command": command}}], [{"text": answer}]]
    path.write_text(json.dumps({"chunkSize": 8, "replies": replies}))
    return {"REIN_FAUX_SCRIPT": str(path)}


def ask(pane: Pane, prompt: str) -> str:
    pane.wait_for(lambda screen: READY in screen)
    pane.type(prompt)
    pane.send("Enter")
    return pane.wait_for(MENU)


def steering_rows(pane: Pane) -> list[str]:
    pane.type("/steering")
    pane.send("Enter")
    # the newest table, once its heading is drawn under its title: the screen may still hold an earlier
    # one, a notice may indent its lines, and the status line may come first while it is drawn
    screen = pane.wait_for(lambda s: READY in s and len(_newest_table(s)) == 2)
    return _newest_table(screen)


def _newest_table(screen: str) -> list[str]:
    lines = [line.strip() for line in screen.splitlines()]
    titles = [i for i, line in enumerate(lines) if "latest decisions" in line]
    table = lines[titles[-1] + 1 : titles[-1] + 3] if titles else []
    return table if table and table[0].startswith("steering") else []


def test_esc_on_the_question_says_it_was_dismissed(project: tuple[Path, Path], tmp_path: Path) -> None:
    cwd, home = project
    env = script(tmp_path / "s.json", "touch made-here", "It was not run.")
    with rein_in_tmux("--provider", "faux", cwd=cwd, home=home, env=env) as pane:
        ask(pane, "make a file")
        pane.send("Escape")
        screen = pane.wait_for(lambda s: "It was not run." in s and READY in s)
        assert "Allow the agent to run: touch made-here? (dismissed)" in screen
        assert "[approval] not run: the approval question for this bash call was dismissed" in screen
        assert "Take that as a denial" in screen
        heading, row = steering_rows(pane)
        assert heading.split() == ["steering", "outcome", "tool", "call", "rule"]
        assert row.split() == ["allow", "dismissed", "bash", "touch", "made-here"]
        pane.send("C-d")
        assert pane.wait_exit() == 0
        history = pane.history()
        assert "--approve auto" not in history and "print and JSON" not in history
        assert "Traceback" not in history
    assert not (cwd / "made-here").exists()


def test_always_allow_in_this_project_runs_it_next_session_without_asking(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    cwd, home = project
    env = script(tmp_path / "one.json", "touch made-here", "Made it.")
    with rein_in_tmux("--provider", "faux", cwd=cwd, home=home, env=env) as pane:
        menu = ask(pane, "make a file")
        assert "3. Always allow in this project" in menu and "4. Deny" in menu
        assert f"Always allow in this project saves this exact command to {FILE} for later sessions" in menu
        pane.send("3")
        screen = pane.wait_for(lambda s: "Made it." in s and READY in s)
        assert "approval: always allowed in this project: touch made-here (saved in " in screen
        assert steering_rows(pane)[1].split()[:4] == ["allow", "approved", "by", "you"]
        pane.send("C-d")
        assert pane.wait_exit() == 0
    saved = (cwd / FILE).read_text()
    assert "# added by rein on " in saved and "when you allowed: touch made-here" in saved
    assert tomllib.loads(saved)["allow"] == [{"tool": "bash", "command": "touch made-here"}]
    (cwd / "made-here").unlink()

    env = script(tmp_path / "two.json", "touch made-here", "Made it again.")
    with rein_in_tmux("--provider", "faux", cwd=cwd, home=home, env=env) as pane:
        pane.wait_for(lambda s: READY in s)
        pane.type("again")
        pane.send("Enter")
        pane.wait_for(lambda s: "Made it again." in s and READY in s)
        assert steering_rows(pane)[1].split()[:4] == ["allow", "approved", "earlier", "(project)"]
        pane.send("C-d")
        assert pane.wait_exit() == 0
        assert MENU not in pane.history()
    assert (cwd / "made-here").exists()
