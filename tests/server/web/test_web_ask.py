"""A steering rule that asks (`verdict = "ask"`) in a run started from the web page: the question
reaches the page as a `question` event (the rule's reason in its title, "Allow once" or "Deny"), and
the answer decides, in the `auto` approval mode too."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.server.web.helpers import IDLE, web_server

pytestmark = pytest.mark.slow

ASK = """
[[rule]]
name = "ask-to-ship"
reason = "Shipping needs the user's yes."
command = "touch"
args = ["shipped"]
verdict = "ask"
"""


@pytest.mark.parametrize("answer", ["Allow once", "Deny"])
def test_a_rule_that_asks_asks_the_page(tmp_path: Path, answer: str) -> None:
    (tmp_path / ".rein").mkdir()
    (tmp_path / ".rein" / "steering.toml").write_text(ASK)
    call = {"tool": "bash", "id": "c1", "arguments": {"command": "touch shipped"}}
    with web_server(tmp_path, replies=[[call], [{"text": "done"}]]) as web:
        sid = web.new_session()
        with web.events(sid) as reader:
            web.post(f"/sessions/{sid}/prompt", {"text": "ship it"}, status=202)
            question = reader.wait_for(lambda e: e.get("type") == "question")[0]
            assert question["kind"] == "select" and question["options"] == ["Allow once", "Deny"]
            assert str(question["title"]).startswith("[steering:ask-to-ship@user] Shipping needs")
            web.post(f"/sessions/{sid}/answer", {"questionId": question["id"], "value": answer})
            if answer == "Deny":
                why = reader.wait_for(lambda e: e.get("type") == "question", count=2)[1]
                web.post(f"/sessions/{sid}/answer", {"questionId": why["id"], "value": "not today"})
            reader.wait_for(lambda e: e == IDLE)
        assert (tmp_path / "shipped").exists() == (answer == "Allow once")
        blocked = reader.of("blocked")
        if answer == "Deny":
            (only,) = blocked
            assert str(only["reason"]).startswith("[steering:ask-to-ship@user]")
            assert "the user was asked and denied it. Their reason: not today" in str(only["reason"])
        else:
            assert blocked == []
