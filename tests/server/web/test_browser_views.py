"""Every view of the page in Chromium, at desktop and phone width (issue 35, point 6): the sessions
list, a session with Markdown, tool cards and a diff, the tree, the rules, the not-found view, a live
run and the approval dialog answered by its keyboard shortcut. The screenshots are docs/web.md's
pictures (`REIN_SCREENSHOTS=docs/images`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.server.helpers import running_server
from tests.server.web.browser import (
    DESKTOP,
    PHONE,
    STEERING_RULE,
    assistant,
    browser_page,
    faux_script,
    seed,
    sel,
    shot,
    user,
    write_project,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
RUN_TIMEOUT = 30_000
TALL = 1400
STAMP = 1_767_225_600_000
PLAN = (
    "## Plan\n\nI will **check** the parser first, then fix it:\n\n1. list the sources\n"
    "2. edit `src/parser.py`\n3. run the tests\n\nStarting with the listing now, one moment."
)
FAILED = "F\n1 failed in 0.12s\nAssertionError: 'b' not in ['a']\n[exit code 1]"
COMMAND = "echo checking the parser && \\\n  ls -1"


def _call(call_id: str, name: str, arguments: dict[str, object], text: str = "") -> dict[str, object]:
    message = assistant(text)
    content = [{"type": "text", "text": text}] if text else []
    message["content"] = [*content, {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}]
    message["stopReason"] = "toolUse"
    return message


def _result(call_id: str, name: str, text: str, *, error: bool = False) -> dict[str, object]:
    return {
        "role": "toolResult", "toolCallId": call_id, "toolName": name, "isError": error,
        "content": [{"type": "text", "text": text}], "timestamp": STAMP,
    }  # fmt: skip


TOUR = [
    user("The parser drops the last token. Fix it and show me what you changed."),
    _call("t1", "bash", {"command": "pytest -q tests/test_parser.py"}, "Let me run the **failing** test."),
    _result(
        "t1", "bash", "F\n1 failed in 0.12s\nAssertionError: 'b' not in ['a']\n[exit code 1]", error=True
    ),
    _call(
        "t2",
        "edit",
        {
            "path": "src/parser.py",
            "old_string": "    return tokens[:-1]\n",
            "new_string": "    return tokens",
        },
        "The slice drops the last token:",
    ),
    _result("t2", "edit", "Edited src/parser.py"),
    _call("t3", "bash", {"command": "rm -rf build"}),
    _result(
        "t3",
        "bash",
        f"[steering:{STEERING_RULE}@.rein/steering.toml] Deleting trees is not allowed here: move the files"
        " to ./trash instead.",
        error=True,
    ),
    assistant(
        "### Fixed\n\n`parse()` kept all tokens but one. Now:\n\n```python\ndef parse(text):\n"
        "    tokens = text.split()\n    return tokens\n```\n\n| test | before | after |\n|---|---|---|\n"
        "| test_parser | failed | passed |\n\nSee [the docs](https://example.org/parser), "
        'not [this](javascript:window.__pwned=3) <img src=x onerror="window.__pwned=4">.'
    ),
]


def tall_shot(page: Page, tmp: Path, name: str) -> None:
    """A screenshot of a taller viewport: a whole session or rules table in one picture."""
    size = page.viewport_size
    assert size is not None
    page.set_viewport_size({"width": size["width"], "height": TALL})
    shot(page, tmp, name)
    page.set_viewport_size(size)


def _views(page: Page, url: str, tmp: Path, suffix: str) -> None:
    page.goto(f"{url}/")
    expect(page.locator(sel("session-row"))).to_have_count(3)
    shot(page, tmp, f"web-sessions{suffix}.png")

    page.goto(f"{url}/#/s/tour")
    conversation = page.locator(sel("conversation"))
    expect(conversation.locator(".md h3")).to_have_text("Fixed")
    expect(conversation.locator(".md pre.code .hl .k").first).to_have_text("def")  # highlighted
    expect(conversation.locator(".md table td").first).to_have_text("test_parser")
    cards = conversation.locator(".tool")
    expect(cards).to_have_count(3)
    failing = cards.nth(0)
    expect(failing.locator(".tool-head .badge")).to_have_text("exit 1")
    output = failing.locator("details.output")
    expect(output.locator("summary")).to_have_text("output \u00b7 4 lines")
    expect(output.locator("pre.result")).to_be_hidden()  # folded
    output.locator("summary").click()
    expect(output.locator("pre.result")).to_be_visible()
    expect(output.locator("pre.result")).to_contain_text("1 failed")
    output.locator("summary").click()
    expect(output.locator("pre.result")).to_be_hidden()
    diff = cards.nth(1).locator("pre.diff")
    expect(diff.locator(".d-del")).to_have_text("-    return tokens[:-1]")
    expect(diff.locator(".d-add")).to_have_text("+    return tokens")
    expect(cards.nth(2).locator("details.output pre.result")).to_be_visible()  # a block is shown open
    expect(conversation.locator('a[href="https://example.org/parser"]')).to_have_count(1)
    assert conversation.locator('a[href^="javascript"], img, script').count() == 0
    expect(conversation).to_contain_text("[this](javascript:window.__pwned=3)")
    page.evaluate("window.scrollTo(0, 0)")
    tall_shot(page, tmp, f"web-session{suffix}.png")

    page.click(sel("tab-tree"))
    expect(page.locator(f"{sel('tree')} li")).to_have_count(1)
    shot(page, tmp, f"web-tree{suffix}.png")
    page.click(sel("tab-rules"))
    rule = page.locator(f'{sel("rules")} tr[data-rule="{STEERING_RULE}"] .detail')
    expect(rule).to_contain_text("move the files to ./trash instead.")  # whole, wrapped
    tall_shot(page, tmp, f"web-rules{suffix}.png")

    page.goto(f"{url}/#/s/no-such-session")
    missing = page.locator(sel("not-found"))
    expect(missing).to_be_visible()
    expect(missing).to_contain_text("no-such-session")
    expect(page.locator(sel("notices")).locator("li")).to_have_count(0)  # no error banner
    expect(page.locator("#view-session")).to_be_hidden()
    shot(page, tmp, f"web-not-found{suffix}.png")
    page.click(sel("back-to-list"))
    expect(page.locator(sel("session-row"))).to_have_count(3)
    expect(page.locator(sel("notices")).locator("li")).to_have_count(0)


def _live_run_and_approval(page: Page, url: str, tmp: Path, suffix: str, project: Path) -> None:
    page.goto(f"{url}/#/s/live")
    expect(page.locator(sel("run-state"))).to_have_text("idle")
    page.fill(sel("prompt-input"), "fix the parser")
    page.press(sel("prompt-input"), "Control+Enter")
    live = page.locator(sel("live"))
    expect(live).to_contain_text("2. edit `src/parser.py`", timeout=RUN_TIMEOUT)  # plain while streaming
    shot(page, tmp, f"web-live{suffix}.png")

    dialog = page.locator(sel("question"))
    expect(dialog).to_be_visible(timeout=RUN_TIMEOUT)
    expect(page.locator(sel("question-title"))).to_have_text("Allow the agent to run this command?")
    command = page.locator(f"{sel('question-command')} pre.code")
    expect(command).to_have_text(COMMAND)  # the whole command, lines kept, in a code block
    expect(dialog.locator('[data-option="Allow once"] kbd')).to_have_text("O")
    expect(dialog.locator('[data-option="Deny"] kbd')).to_have_text("D")
    assert '"command"' not in (live.text_content() or "")  # no raw JSON arguments
    expect(live).not_to_contain_text("## Plan")  # the reply is in the conversation, rendered
    shot(page, tmp, f"web-approval{suffix}.png")
    page.keyboard.press("o")  # the shortcut shown on "Allow once"
    expect(dialog).to_be_hidden()
    expect(live.locator(".mark.tool")).to_contain_text("exit 0", timeout=RUN_TIMEOUT)
    expect(page.locator(sel("run-state"))).to_have_text("idle", timeout=RUN_TIMEOUT)
    conversation = page.locator(sel("conversation"))
    expect(conversation).to_contain_text("The listing shows the sources.")
    expect(conversation.locator(".md h2")).to_have_text("Plan")  # rendered once the reply ended
    expect(live).not_to_contain_text("## Plan")  # the plain streamed text is gone
    expect(conversation.locator(".tool .badge.ok")).to_have_text("exit 0")
    assert page.evaluate("typeof window.__pwned") == "undefined"


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_view_renders_cleanly_at_desktop_and_phone_width(tmp_path: Path, size: tuple[int, int]) -> None:
    suffix = "" if size == DESKTOP else "-phone"
    project = write_project(tmp_path / "project")
    script = faux_script(
        tmp_path,
        [
            [{"text": PLAN}, {"tool": "bash", "id": "b1", "arguments": {"command": COMMAND}}],
            [{"text": "The listing shows the sources."}],
        ],
        delay=0.03,
        chunk=3,
    )
    env = {"REIN_FAUX_SCRIPT": str(script)}
    with (
        running_server(tmp_path, env=env, args=["--approve", "ask"]) as url,
        browser_page(tmp_path, size) as page,
    ):
        seed(url, "tour", cwd=project, messages=TOUR)
        seed(url, "notes", cwd=tmp_path, messages=[user("write the release notes"), assistant("Written.")])
        seed(url, "live", cwd=project, messages=[])
        _views(page, url, tmp_path, suffix)
        _live_run_and_approval(page, url, tmp_path, suffix, project)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
