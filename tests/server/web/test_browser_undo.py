"""A turn's file changes on the page, in Chromium: the turn's diffs, and its undo, confirmed, putting
the file back on disk. The screenshot is docs/web.md's (`REIN_SCREENSHOTS=docs/images`)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Dialog, expect

from tests.server.helpers import running_server
from tests.server.web.browser import browser_page, faux_script, seed, sel, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
RUN_TIMEOUT = 30_000
TALL = 1100
BEFORE = "def parse(text):\n    tokens = text.split()\n    return tokens[:-1]\n"
AFTER = "def parse(text):\n    tokens = text.split()\n    return tokens\n"
EDIT = {"path": "src/parser.py", "old_string": "return tokens[:-1]", "new_string": "return tokens"}


def eventually(check: object, timeout: float = 10.0) -> None:
    """Wait for `check()` to hold (a file on disk, not a page element Playwright could wait for)."""
    deadline = time.monotonic() + timeout
    while not (callable(check) and check()):
        assert time.monotonic() < deadline, "not reached in time"
        time.sleep(0.1)


def parser_project(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose `src/parser.py` drops the last token (`BEFORE`): the project and the file."""
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    parser = project / "src" / "parser.py"
    parser.write_text(BEFORE)
    return project, parser


def test_a_turns_diff_shows_and_undo_puts_the_file_back(tmp_path: Path) -> None:
    project, parser = parser_project(tmp_path)
    script = faux_script(
        tmp_path,
        [
            [{"text": "The slice drops the last token."}, {"tool": "edit", "id": "e1", "arguments": EDIT}],
            [{"text": "Fixed: `parse()` keeps every token now."}],
        ],
    )
    env = {"REIN_FAUX_SCRIPT": str(script)}
    with running_server(tmp_path, env=env, args=["--approve", "auto"]) as url, browser_page(tmp_path) as page:
        seed(url, "undo", cwd=project, messages=[])
        page.goto(f"{url}/#/s/undo")
        expect(page.locator(sel("run-state"))).to_have_text("idle")
        page.fill(sel("prompt-input"), "the parser drops the last token: fix it")
        page.press(sel("prompt-input"), "Control+Enter")
        conversation = page.locator(sel("conversation"))
        expect(conversation).to_contain_text("keeps every token now", timeout=RUN_TIMEOUT)
        expect(page.locator(sel("run-state"))).to_have_text("idle", timeout=RUN_TIMEOUT)
        assert parser.read_text() == AFTER

        turn = conversation.locator("article.checkpoint")
        expect(turn).to_have_count(1, timeout=RUN_TIMEOUT)
        expect(turn.locator("ul.changed")).to_contain_text("src/parser.py")
        turn.locator("button.show-changes").click()
        diffs = turn.locator(".checkpoint-diffs")
        expect(diffs.locator(".d-del")).to_have_text("-    return tokens[:-1]")
        expect(diffs.locator(".d-add")).to_have_text("+    return tokens")

        asked: list[str] = []

        def confirm(dialog: Dialog) -> None:
            asked.append(dialog.message)
            dialog.accept()

        page.once("dialog", confirm)
        turn.locator("button.undo-turn").click()
        expect(page.locator(sel("notices"))).to_contain_text("restored   src/parser.py", timeout=RUN_TIMEOUT)
        assert asked == ["Put back the files of this turn, as they were before it?"]
        eventually(lambda: parser.read_text() == BEFORE)
        expect(turn.locator(".badge.undone")).to_have_text("undone")
        expect(turn.locator("button.undo-turn")).to_have_count(0)
        expect(diffs.locator(".d-add")).to_have_text("+    return tokens")  # still open after the refetch
        expect(conversation.locator("article.checkpoint-undo")).to_contain_text("1 file(s) put back")
        page.set_viewport_size({"width": 1280, "height": TALL})  # the turn, its diffs and the undo's entry
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        shot(page, tmp_path, "web-undo.png")
