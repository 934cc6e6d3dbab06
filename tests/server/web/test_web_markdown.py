"""What `rein.html` renders for the page and `rein export` (issue 35, point 6): Markdown with no raw
HTML and safe links only, highlighted code, tool cards with their status and folded output, edits as
diffs; and the page's approval dialog parts, branch note and rule details."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from rein.html import card, code, diff, markdown
from rein.server.web._question import shape
from rein.server.web._render import branch_note, conversation
from rein.server.web._rules import rules_body

SAFE = ("http://", "https://", "mailto:")
ATTACKS = [
    "<script>window.__pwned=1</script>",
    '<img src="x" onerror="window.__pwned=2">',
    '<iframe src="javascript:alert(1)"></iframe>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click]( javascript:alert(1) )",
    "[click](javascript&#58;alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](vbscript:msgbox(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](file:///etc/passwd)",
    "<javascript:alert(1)>",
    "![x](javascript:alert(1))",
    "![x](https://tracker.example/pixel.png)",
    '[t](https://ok.example "a\\" onmouseover=\\"alert(1)")',
    "```html\n<script>alert(1)</script>\n```",
    "`<b onclick=alert(1)>`",
    "[x][ref]\n\n[ref]: javascript:alert(1)",
]


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(html)
    parser.close()
    return parser.found


@pytest.mark.parametrize("text", ATTACKS)
def test_markdown_lets_no_tag_handler_or_unsafe_link_through(text: str) -> None:
    html = markdown(f"before {text} after")
    for tag, attrs in elements(html):
        assert tag not in {"script", "img", "iframe", "object", "embed", "style", "form"}, html
        assert not [name for name in attrs if name.startswith("on") or name in {"style", "src"}], html
        href = attrs.get("href")
        assert href is None or href.startswith(SAFE), html


def test_markdown_renders_headings_lists_tables_and_highlighted_code() -> None:
    html = markdown(
        "# Plan\n\n- read **it**\n- run `pytest`\n\n1. one\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "```python\ndef f():\n    return 'x'\n```\n\n[docs](https://example.org/a?b=1)"
    )
    tags = [tag for tag, _ in elements(html)]
    assert {"h1", "ul", "ol", "li", "strong", "table", "pre"} <= set(tags)
    assert '<span class="k">def</span>' in html and '<span class="nf">f</span>' in html
    assert '<a href="https://example.org/a?b=1" rel="noopener noreferrer nofollow" target="_blank">' in html


def test_code_and_diff_escape_and_mark_their_lines() -> None:
    assert "&lt;/pre&gt;" in code("echo '</pre><script>'", "bash")
    assert "&lt;x&gt;" in code("<x>", "no-such-language")
    shown = diff("a\n<b>\nc\n", "a\nB\nc\nd\n")
    assert '<span class="d-del">-&lt;b&gt;</span>' in shown and '<span class="d-add">+B</span>' in shown
    assert '<span class="d-hunk">@@ -1,3 +1,4 @@</span>' in shown and "+++" not in shown


def _result(text: str, *, error: bool = False) -> dict[str, object]:
    return {"role": "tool_result", "content": [{"type": "text", "text": text}], "is_error": error}


def test_a_bash_card_shows_the_command_its_exit_code_and_its_folded_output() -> None:
    command = {"command": "npm test\nnpm run lint"}
    call = {"type": "tool_call", "id": "c1", "name": "bash", "arguments": command}
    ok = card(call, _result("all good\n3 passed"))
    assert '<code class="hl language-bash">' in ok and "npm" in ok
    assert '<span class="badge ok">exit 0</span>' in ok
    assert '<details class="output"><summary>output \u00b7 2 lines</summary>' in ok
    failed = card(call, _result("boom\n[exit code 2]", error=True))
    assert '<span class="badge error">exit 2</span>' in failed and 'class="tool error"' in failed
    steered = card(call, _result("[steering:no-npm@project] Use pnpm.", error=True))
    assert "steering block: no-npm@project" in steered and '<details class="output" open>' in steered
    assert '<span class="badge pending">no result</span>' in card(call, None)


def test_an_edit_card_is_a_diff_and_a_write_card_folds_its_content() -> None:
    change = {"path": "src/a.py", "old_string": "x = 1\n", "new_string": "x = 2\n"}
    edit = {"name": "edit", "arguments": change}
    shown = card(edit, _result("Edited src/a.py"))
    assert "<code>src/a.py</code>" in shown and '<pre class="diff">' in shown and "d-add" in shown
    write = {"name": "write", "arguments": {"path": "a.py", "content": "print('<hi>')\n"}}
    written = card(write, _result("Wrote 15 bytes"))
    assert "<summary>content \u00b7 1 line</summary>" in written and "&lt;hi&gt;" in written
    other = card({"name": "grep", "arguments": {"pattern": "TODO", "path": "src"}}, _result("none"))
    assert '<pre class="args">pattern: TODO</pre>' in other and "{" not in other.split("args")[1][:20]


def test_an_assistant_message_is_markdown_in_the_page_and_a_hostile_one_stays_inert() -> None:
    message: dict[str, object] = {
        "role": "assistant", "provider": "faux", "model": "m", "stopReason": "stop", "timestamp": 1,
        "content": [{"type": "text", "text": "## Done\n- <script>x()</script>\n- [a](javascript:x())"}],
    }  # fmt: skip
    entry: dict[str, object] = {"type": "message", "id": "a1", "parentId": None, "message": message}
    html = conversation([entry]).html
    assert "<h2>Done</h2>" in html and "&lt;script&gt;x()&lt;/script&gt;" in html
    assert [attrs.get("href") for tag, attrs in elements(html) if tag == "a"] == []


def test_an_approval_title_splits_into_reason_ask_and_a_code_block() -> None:
    options = ["Allow once", "Allow for this session", "Deny"]
    note = "Allow for this session allows later commands that run only: make"
    title = f"Allow the agent to run: cd src &&\n  make test?\n{note}"
    parts = shape(title, options)
    assert parts is not None
    assert parts["ask"] == "Allow the agent to run this command?"
    assert parts["command"] == "cd src &&\n  make test" and parts["notes"] == [note]
    assert '<pre class="code">' in str(parts["commandHtml"]) and parts["lead"] == ""
    steering = shape("[steering:x@y] Careful.\nAllow the agent to write <a>.txt?", ["Allow once", "Deny"])
    assert steering is not None and steering["lead"] == "[steering:x@y] Careful."
    assert steering["command"] == "<a>.txt" and "&lt;a&gt;" in str(steering["commandHtml"])
    assert shape("Why deny this bash call? (the model reads it)", []) is None


def _entry(entry_id: str, parent: str | None) -> dict[str, object]:
    message = {"role": "user", "content": entry_id, "timestamp": 1}
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "", "message": message}


def test_the_branch_note_names_where_the_branch_left_another() -> None:
    a, b, c, d = _entry("a", None), _entry("b", "a"), _entry("c", "b"), _entry("d", "a")
    assert branch_note([a, b, c], [a, b, c]) is None
    assert branch_note([a, b, c, d], [a, d]) == {"from": "a", "branchEntries": 2, "sessionEntries": 4}
    assert branch_note([a, b, c], [a]) == {"from": "a", "branchEntries": 1, "sessionEntries": 3}


def test_a_long_steering_reason_reaches_the_rules_tab_whole(tmp_path: Path) -> None:
    reason = "Deleting trees is not allowed here; " * 8 + "move the files to ./trash instead."
    (tmp_path / ".rein").mkdir()
    (tmp_path / ".rein" / "steering.toml").write_text(
        f'[[rule]]\nname = "no-rm"\ncommand = "rm"\npattern = "-rf"\nreason = "{reason}"\n', encoding="utf-8"
    )
    body = rules_body(str(tmp_path), tmp_path / "home", [])
    rules = body["steering"]
    assert isinstance(rules, list)
    (mine,) = [r for r in rules if isinstance(r, dict) and r["name"] == "no-rm"]
    assert str(mine["detail"]).endswith("move the files to ./trash instead.")
