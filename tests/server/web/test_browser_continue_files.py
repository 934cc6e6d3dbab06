"""The page's "Continue from here" in Chromium when the files differ from that point's: it asks
(Escape cancels, Restore files puts the file back on disk, Keep files leaves it), never silently."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.server.helpers import running_server
from tests.server.web.browser import browser_page, faux_script, seed, sel
from tests.server.web.test_browser_undo import AFTER, BEFORE, EDIT, eventually, parser_project

pytestmark = [pytest.mark.browser, pytest.mark.slow]
RUN_TIMEOUT = 30_000
PROMPT = "the parser drops the last token: fix it"


def test_continue_from_here_asks_to_restore_the_files_of_that_point(tmp_path: Path) -> None:
    project, parser = parser_project(tmp_path)
    script = faux_script(
        tmp_path,
        [[{"tool": "edit", "id": "e1", "arguments": EDIT}], [{"text": "Fixed: it keeps every token."}]],
    )
    env = {"REIN_FAUX_SCRIPT": str(script)}
    with running_server(tmp_path, env=env, args=["--approve", "auto"]) as url, browser_page(tmp_path) as page:
        seed(url, "cont", cwd=project, messages=[])
        page.goto(f"{url}/#/s/cont")
        expect(page.locator(sel("run-state"))).to_have_text("idle")
        page.fill(sel("prompt-input"), PROMPT)
        page.press(sel("prompt-input"), "Control+Enter")
        conversation = page.locator(sel("conversation"))
        expect(conversation.locator("article.checkpoint")).to_have_count(1, timeout=RUN_TIMEOUT)
        expect(page.locator(sel("run-state"))).to_have_text("idle", timeout=RUN_TIMEOUT)
        assert parser.read_text() == AFTER
        turn = conversation.locator("article.checkpoint").get_attribute("data-entry-id")

        dialog = page.locator(sel("restore"))
        asked = conversation.locator("article", has_text=PROMPT).locator("button.continue")
        asked.click()
        expect(dialog).to_be_visible()
        expect(page.locator(sel("restore-title"))).to_have_text("Restore the files of that point too?")
        expect(page.locator(sel("restore-lead"))).to_contain_text("1 file differs from that point")
        expect(page.locator(sel("restore-files"))).to_have_text("src/parser.py")
        page.keyboard.press("Escape")  # cancels: no switch, no restore
        expect(dialog).to_be_hidden()
        expect(conversation.locator("article.checkpoint")).to_have_count(1)
        assert parser.read_text() == AFTER

        asked.click()
        expect(dialog).to_be_visible()
        page.click(sel("restore-files-button"))
        expect(dialog).to_be_hidden()
        notices = page.locator(sel("notices"))
        expect(notices).to_contain_text("restored the files of that point, 1 file(s)", timeout=RUN_TIMEOUT)
        expect(notices).to_contain_text("restored   src/parser.py")
        eventually(lambda: parser.read_text() == BEFORE)
        expect(conversation.locator("article.checkpoint")).to_have_count(0)  # the branch before the turn
        expect(conversation.locator("article.checkpoint-undo")).to_contain_text("1 file(s) put back")

        page.click(sel("tab-tree"))  # back to the turn's branch, keeping the files as they are now
        page.locator(f'{sel("tree")} button.continue[data-entry-id="{turn}"]').click()
        expect(dialog).to_be_visible()
        expect(page.locator(sel("restore-files"))).to_have_text("src/parser.py")
        page.click(sel("keep-files-button"))
        expect(dialog).to_be_hidden()
        expect(conversation.locator("article.checkpoint")).to_have_count(1, timeout=RUN_TIMEOUT)
        expect(notices).to_contain_text(f"Continuing from entry {turn}")
        assert parser.read_text() == BEFORE
