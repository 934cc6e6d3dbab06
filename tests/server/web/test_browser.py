"""The web page of `rein serve`, end to end: a real server (faux provider, scripted), the real page in
headless Chromium. Screenshots of the main views land in tmp_path (and $REIN_SCREENSHOTS)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.server.helpers import running_server
from tests.server.web.browser import (
    PHONE,
    STEERING_RULE,
    STREAM_RULE,
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


def send_prompt(page: Page, text: str) -> None:
    page.fill(sel("prompt-input"), text)
    page.press(sel("prompt-input"), "Control+Enter")


def wait_idle(page: Page) -> None:
    expect(page.locator(sel("run-state"))).to_have_text("idle", timeout=RUN_TIMEOUT)


def test_list_groups_sessions_by_directory_and_search_filters(tmp_path: Path) -> None:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    with running_server(tmp_path) as url, browser_page(tmp_path) as page:
        seed(url, "s-alpha", cwd=alpha, messages=[user("fix the parser crash"), assistant("Fixed.")])
        seed(url, "s-beta", cwd=beta, messages=[user("write the release notes"), assistant("Written.")])
        page.goto(f"{url}/")
        rows = page.locator(sel("session-row"))
        expect(rows).to_have_count(2)
        groups = page.locator(f"{sel('session-list')} .group-title")
        expect(groups).to_have_count(2)
        assert {text.rsplit(" (", 1)[0] for text in groups.all_text_contents()} == {str(alpha), str(beta)}

        page.locator("body").press("/")  # `/` focuses the search box
        expect(page.locator(sel("search"))).to_be_focused()
        page.keyboard.type("parser")
        expect(rows).to_have_count(1)
        expect(rows.first).to_have_attribute("data-session-id", "s-alpha")
        page.fill(sel("search"), "no such session")
        expect(rows).to_have_count(0)
        page.fill(sel("search"), "")
        page.select_option(sel("filter-size"), "10")
        expect(rows).to_have_count(0)
        page.select_option(sel("filter-size"), "0")

        page.locator(f'{sel("session-row")}[data-session-id="s-beta"]').click()
        expect(page).to_have_url(f"{url}/#/s/s-beta")
        expect(page.locator(sel("conversation"))).to_contain_text("write the release notes")
        expect(page.locator(f"{sel('conversation')} article.entry")).to_have_count(2)


def test_a_run_streams_live_with_a_stream_rule_cut_and_a_steering_block(tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    script = faux_script(
        tmp_path,
        [
            [{"text": "Let me print the value first: console.log(value) and then we are done."}],
            [
                {"text": "I will clean the build."},
                {"tool": "bash", "id": "c1", "arguments": {"command": "rm -rf build"}},
            ],
            [{"text": "Done: I used the logger and left the build alone."}],
        ],
        delay=0.04,
        chunk=3,
    )
    env = {"REIN_FAUX_SCRIPT": str(script)}
    with running_server(tmp_path, env=env, args=["--approve", "auto"]) as url, browser_page(tmp_path) as page:
        seed(url, "run", cwd=project, messages=[])
        page.goto(f"{url}/#/s/run")
        expect(page.locator(sel("run-state"))).to_have_text("idle")
        send_prompt(page, "print the value, then clean up")  # Ctrl+Enter sends

        expect(page.locator(sel("run-state"))).to_have_text("running")
        live = page.locator(sel("live"))
        expect(live).to_contain_text("Let me print")  # streamed while the reply is being written
        cut = live.locator(".mark.cut")
        expect(cut).to_contain_text(STREAM_RULE, timeout=RUN_TIMEOUT)
        expect(cut.locator(".cut-text")).to_contain_text("console.log(")
        blocked = live.locator(".mark.blocked")
        expect(blocked).to_contain_text("Deleting trees is not allowed here", timeout=RUN_TIMEOUT)
        wait_idle(page)

        conversation = page.locator(sel("conversation"))
        expect(conversation).to_contain_text("Done: I used the logger")
        expect(conversation.locator("article.ttsr").first).to_contain_text(STREAM_RULE)
        expect(conversation.locator(".tool.steering")).to_contain_text(f"steering block: {STEERING_RULE}")
        expect(conversation.locator(".tool.steering")).to_contain_text("move the files to ./trash")
        assert "console.log(value) and then" not in (conversation.text_content() or "")
        expect(page.locator(sel("counters"))).to_contain_text("turns")
        conversation.locator("article.ttsr details.cut > summary").click()  # what the rule cut
        conversation.locator("article.injection details > summary").click()  # what the model was told
        expect(conversation.locator("article.injection .md")).to_contain_text("Use the logger")
        shot(page, tmp_path, "web-run.png")

        page.click(sel("tab-rules"))
        rules = page.locator(sel("rules"))
        expect(rules.locator(f'tr[data-rule="{STREAM_RULE}"] .fired')).to_have_text("1")
        expect(rules.locator(f'tr[data-rule="{STEERING_RULE}"] .fired')).to_have_text("1")
        expect(rules.locator(f'tr[data-rule="{STEERING_RULE}"] .source')).to_contain_text("steering.toml")


def test_abort_stops_a_slow_run_and_marks_the_reply(tmp_path: Path) -> None:
    script = faux_script(tmp_path, [[{"text": "word " * 400}]], delay=0.05, chunk=2)
    with (
        running_server(tmp_path, env={"REIN_FAUX_SCRIPT": str(script)}) as url,
        browser_page(tmp_path) as page,
    ):
        seed(url, "slow", cwd=tmp_path, messages=[])
        page.goto(f"{url}/#/s/slow")
        send_prompt(page, "write a long essay")
        expect(page.locator(sel("live"))).to_contain_text("word word")
        expect(page.locator(sel("send"))).to_have_text("Steer")  # while running, send steers
        page.press(sel("prompt-input"), "Escape")  # Escape in the prompt aborts the run
        wait_idle(page)
        expect(page.locator(sel("conversation"))).to_contain_text("aborted")
        expect(page.locator(sel("send"))).to_have_text("Send")


def test_continue_from_an_entry_branches_and_the_tree_shows_both(tmp_path: Path) -> None:
    with running_server(tmp_path) as url, browser_page(tmp_path) as page:
        ids = seed(
            url,
            "fork",
            cwd=tmp_path,
            messages=[
                user("first question"),
                assistant("first answer"),
                user("second question"),
                assistant("second answer"),
            ],
        )
        page.goto(f"{url}/#/s/fork")
        conversation = page.locator(sel("conversation"))
        expect(conversation.locator("article.entry")).to_have_count(4)
        note = page.locator(sel("branch-note"))
        expect(note).to_be_hidden()
        conversation.locator(f'button.continue[data-entry-id="{ids[1]}"]').click()
        expect(conversation.locator("article.entry")).to_have_count(2)
        # the counters now count the branch: the page says why they dropped
        expect(note).to_have_text(
            f"Continued from entry {ids[1]}: the counters count this branch (2 of the session's 4 entries)."
        )
        expect(page.locator(sel("counters"))).to_contain_text("turns 1")
        expect(page.locator(sel("prompt-input"))).to_be_focused()
        send_prompt(page, "another way")
        wait_idle(page)
        expect(conversation).to_contain_text("another way")
        expect(conversation).not_to_contain_text("second question")

        page.click(sel("tab-tree"))
        tree = page.locator(sel("tree"))
        expect(tree).to_contain_text("second question")
        expect(tree).to_contain_text("another way")
        expect(tree.locator("li")).to_have_count(3)  # the shared start, then the two branches
        expect(tree.locator("li.active")).to_have_count(2)


def test_approval_asks_in_a_dialog_and_allow_once_runs_the_call(tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    script = faux_script(
        tmp_path,
        [
            [{"tool": "bash", "id": "w1", "arguments": {"command": "echo approved \\\n  > out.txt"}}],
            [{"text": "Wrote out.txt."}],
        ],
    )
    env = {"REIN_FAUX_SCRIPT": str(script)}
    with running_server(tmp_path, env=env, args=["--approve", "ask"]) as url, browser_page(tmp_path) as page:
        seed(url, "ask", cwd=project, messages=[])
        page.goto(f"{url}/#/s/ask")
        send_prompt(page, "write the file")
        dialog = page.locator(sel("question"))
        expect(dialog).to_be_visible(timeout=RUN_TIMEOUT)
        expect(page.locator(sel("question-title"))).to_have_text("Allow the agent to run this command?")
        command = page.locator(f"{sel('question-command')} pre.code")
        expect(command).to_have_text("echo approved \\\n  > out.txt")  # a code block, not bold prose
        expect(dialog.locator('[data-option="Allow once"]')).to_have_attribute("aria-keyshortcuts", "o")
        dialog.locator('[data-option="Allow once"]').click()
        expect(dialog).to_be_hidden()
        wait_idle(page)
        expect(page.locator(sel("conversation"))).to_contain_text("Wrote out.txt.")
        assert (project / "out.txt").read_text(encoding="utf-8").strip() == "approved"


def test_session_text_with_script_tags_renders_as_text(tmp_path: Path) -> None:
    attack = "<script>window.__pwned=1</script>"
    image = '<img src="x" onerror="window.__pwned=2">'
    with running_server(tmp_path) as url, browser_page(tmp_path) as page:
        seed(url, "xss", cwd=tmp_path, messages=[user(attack), assistant(image)])
        page.goto(f"{url}/")
        expect(page.locator(sel("session-row"))).to_contain_text(attack)
        page.goto(f"{url}/#/s/xss")
        conversation = page.locator(sel("conversation"))
        expect(conversation).to_contain_text(attack)
        expect(conversation).to_contain_text(image)
        assert conversation.locator("script, img").count() == 0
        assert page.evaluate("typeof window.__pwned") == "undefined"


def test_a_token_protected_server_asks_for_the_token_once(tmp_path: Path) -> None:
    with running_server(tmp_path, token="the-right-token") as url, browser_page(tmp_path) as page:
        seed(url, "private", cwd=tmp_path, messages=[user("a private session")], token="the-right-token")
        page.goto(f"{url}/")
        form = page.locator(sel("token-form"))
        expect(form).to_be_visible()
        page.fill(sel("token-input"), "a-wrong-token")
        page.press(sel("token-input"), "Enter")  # Enter submits the form
        expect(form).to_be_visible()
        expect(form).to_contain_text("refused")
        page.fill(sel("token-input"), "the-right-token")
        page.click(sel("token-submit"))
        expect(page.locator(sel("session-row"))).to_have_count(1)
        assert page.evaluate("sessionStorage.getItem('rein-token')") == "the-right-token"
        page.reload()  # kept for the tab: no second question
        expect(page.locator(sel("session-row"))).to_have_count(1)
        expect(form).to_be_hidden()


def test_a_phone_width_has_one_column_and_no_horizontal_scroll(tmp_path: Path) -> None:
    long_line = "x" * 600
    with running_server(tmp_path) as url, browser_page(tmp_path, PHONE) as page:
        seed(
            url,
            "phone",
            cwd=tmp_path / ("a-rather-long-directory-name-" * 4),
            messages=[user(f"look at {long_line}"), assistant(f"```\n{long_line}\n```")],
        )
        seed(url, "phone-2", cwd=tmp_path, messages=[user("a short one")])
        page.goto(f"{url}/")
        expect(page.locator(sel("session-row"))).to_have_count(2)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.goto(f"{url}/#/s/phone")
        expect(page.locator(f"{sel('conversation')} article.entry")).to_have_count(2)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_load_earlier_pages_back_through_a_long_branch(tmp_path: Path) -> None:
    messages = [user(f"question {n}") if n % 2 == 0 else assistant(f"answer {n}") for n in range(250)]
    with running_server(tmp_path) as url, browser_page(tmp_path) as page:
        seed(url, "long", cwd=tmp_path, messages=messages)
        page.goto(f"{url}/#/s/long")
        entries = page.locator(f"{sel('conversation')} article.entry")
        expect(entries).to_have_count(200)
        expect(entries.first).to_contain_text("question 50")
        page.click(sel("earlier"))
        expect(entries).to_have_count(250)
        expect(entries.first).to_contain_text("question 0")
        expect(page.locator(sel("earlier"))).to_be_hidden()
