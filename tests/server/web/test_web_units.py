"""The web page's backend pieces without a server: the conversation renderer, the compressed tree,
the counters, the event bus and the request checks."""

from __future__ import annotations

import asyncio

from rein.ai import JsonValue
from rein.server.web._bus import EventBus, frame
from rein.server.web._events import rules_of
from rein.server.web._render import conversation, counters
from rein.server.web._security import check
from rein.server.web._tree import tree_html
from rein.server.web._ui import WebUI

STAMP = "2026-01-01T00:00:00.000Z"
Entry = dict[str, object]


def _entry(entry_id: str, parent: str | None, message: dict[str, object]) -> Entry:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": STAMP, "message": message}


def _user(entry_id: str, parent: str | None, text: str) -> Entry:
    return _entry(entry_id, parent, {"role": "user", "content": text, "timestamp": 1})


def _assistant(entry_id: str, parent: str | None, *content: dict[str, object]) -> Entry:
    return _entry(
        entry_id,
        parent,
        {
            "role": "assistant", "content": list(content), "api": "faux", "provider": "faux", "model": "m",
            "stopReason": "stop", "timestamp": 2,
            "usage": {"input": 3, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 5},
        },
    )  # fmt: skip


def _result(entry_id: str, parent: str, call_id: str, text: str) -> Entry:
    message = {
        "role": "toolResult", "toolCallId": call_id, "toolName": "bash",
        "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 3,
    }  # fmt: skip
    return _entry(entry_id, parent, message)


CALL: dict[str, object] = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}


def test_a_tool_result_is_folded_into_its_call_and_every_entry_can_be_continued_from() -> None:
    branch = [
        _user("u1", None, "list <files>"),
        _assistant("a1", "u1", {"type": "text", "text": "Looking."}, CALL),
        _result("r1", "a1", "c1", "README.md"),
        _assistant("a2", "r1", {"type": "text", "text": "Done."}),
    ]
    page = conversation(branch)
    assert page.shown_from == 0 and page.shown_to == 4
    assert page.html.count("<article") == 3 and 'data-entry-id="r1"' not in page.html
    assert page.html.index("Looking.") < page.html.index("README.md") < page.html.index("Done.")
    assert "list &lt;files&gt;" in page.html
    for entry_id in ("u1", "a1", "a2"):
        assert f'<button type="button" class="continue" data-entry-id="{entry_id}">' in page.html


def test_a_window_folds_results_that_come_after_it_and_pages_back() -> None:
    branch = [
        _user("u1", None, "go"),
        _assistant("a1", "u1", CALL),
        _result("r1", "a1", "c1", "OUTPUT-1"),
    ]
    window = conversation(branch, limit=1, before=2)
    assert window.shown_from == 1 and "OUTPUT-1" in window.html
    assert conversation(branch, limit=5, before=99).shown_from == 0
    assert conversation(branch, limit=0).html.count("<article") == 1  # at least one entry


def test_counters_sum_the_branch_in_either_dialect() -> None:
    rein_usage = {"input": 1, "output": 1, "cache_read": 4, "cache_write": 0}
    branch = [
        _user("u1", None, "x"),
        _assistant("a1", "u1", {"type": "text", "text": "y"}),
        _entry("a2", "a1", {"role": "assistant", "content": [], "usage": rein_usage}),
    ]
    got = counters(branch)
    assert got == {
        "input": 4, "output": 3, "cacheRead": 4, "cacheWrite": 0, "totalTokens": 11, "cost": 0.0, "turns": 2,
    }  # fmt: skip


def test_the_tree_is_one_node_per_linear_run_with_the_active_path_and_labels() -> None:
    entries: list[Entry] = [
        _user("u1", None, "root prompt"),
        _assistant("a1", "u1", {"type": "text", "text": "a"}),
        _user("u2", "a1", "left"),
        _assistant("a2", "u2", {"type": "text", "text": "b"}),
        _user("u3", "a1", "right <b>"),
        {
            "type": "label",
            "id": "l1",
            "parentId": "u3",
            "timestamp": STAMP,
            "targetId": "u2",
            "label": "kept",
        },
    ]
    html = tree_html(entries, "l1")
    assert html.count("<li") == 4  # u1-a1, then u2 (a labelled entry ends its run) > a2, and u3-l1
    assert '<li class="node active" data-entry-id="a1">' in html
    assert '<li class="node active leaf" data-entry-id="l1">' in html
    assert '<li class="node" data-entry-id="u2">' in html and '<li class="node" data-entry-id="a2">' in html
    assert html.index('data-entry-id="u2"') < html.index('data-entry-id="a2"') < html.index("</ul></li>")
    assert '<span class="label">kept</span>' in html and "right &lt;b&gt;" in html
    assert "2 entries" in html and "root prompt" in html
    assert tree_html([], None) == '<ul class="tree"></ul>'


def test_the_tree_of_a_long_chain_is_one_node() -> None:
    entries = [_user(f"e{i}", f"e{i - 1}" if i else None, f"p{i}") for i in range(5000)]
    html = tree_html(entries, "e4999")
    assert html.count("<li") == 1 and "5000 entries" in html and "p0" in html


def test_the_bus_numbers_keeps_and_replays_events() -> None:
    bus = EventBus(keep=3)
    for n in range(5):
        assert bus.publish({"n": n}) == n + 1
    assert [seq for seq, _ in bus.replay(0)] == [3, 4, 5]
    assert bus.replay(4) == [(5, {"n": 4})]
    queue, kept = bus.attach(5)
    assert kept == []
    bus.publish({"n": 5})
    assert queue.get_nowait() == (6, {"n": 5})
    bus.detach(queue)
    bus.publish({"n": 6})
    assert queue.empty()
    assert frame(7, {"text": "é"}) == 'id: 7\ndata: {"text":"é"}\n\n'
    # A page that counted with an earlier server process (numbers restart) gets every kept event.
    assert [seq for seq, _ in bus.replay(99)] == [5, 6, 7]


def test_a_question_waits_for_its_answer_and_dismissal_answers_none() -> None:
    published: list[dict[str, JsonValue]] = []

    async def main() -> tuple[str | None, str | None, bool]:
        ui = WebUI(published.append)
        first = asyncio.ensure_future(ui.select("Allow?", ["Allow once", "Deny"]))
        await asyncio.sleep(0)
        question = ui.question
        assert question is not None and question["options"] == ["Allow once", "Deny"]
        assert ui.answer(str(question["id"]), "Deny") and not ui.answer("unknown", "x")
        second = asyncio.ensure_future(ui.input("Why?", "a reason"))
        await asyncio.sleep(0)
        ui.dismiss_all()
        return await first, await second, ui.question is None

    assert asyncio.run(main()) == ("Deny", None, True)
    kinds = [(e["type"], e.get("kind")) for e in published]
    assert kinds == [("question", "select"), ("answered", None), ("question", "input"), ("answered", None)]


def _scope(method: str, path: str, **headers: str) -> dict[str, object]:
    raw = [(k.replace("_", "-").lower().encode(), v.encode()) for k, v in headers.items()]
    return {"type": "http", "method": method, "path": path, "scheme": "http", "headers": raw}


def test_the_request_checks() -> None:
    ok = {"host": "127.0.0.1:4217"}
    assert check(_scope("GET", "/web/api/info", **ok), csrf="t", loopback=True) is None
    refused = check(_scope("GET", "/", host="evil.example"), csrf="t", loopback=True)
    assert refused is not None and refused.code == "HOST_REFUSED"
    assert check(_scope("GET", "/", host="evil.example"), csrf="t", loopback=False) is None
    assert check(_scope("GET", "/", host="[::1]:99"), csrf="t", loopback=True) is None
    post = _scope("POST", "/web/api/sessions", **ok, x_rein_csrf="t")
    assert check(post, csrf="t", loopback=True) is None
    wrong = check(_scope("POST", "/web/api/sessions", **ok, x_rein_csrf="u"), csrf="t", loopback=True)
    assert wrong is not None and wrong.code == "CSRF_FAILED"
    assert check(_scope("POST", "/api/session/init", **ok), csrf="t", loopback=True) is None
    origin = _scope("POST", "/api/session/init", **ok, origin="http://127.0.0.1:4218")
    assert check(origin, csrf="t", loopback=True) is not None
    same = _scope("POST", "/api/session/init", **ok, origin="http://127.0.0.1:4217")
    assert check(same, csrf="t", loopback=True) is None
    site = _scope("DELETE", "/api/session/x", **ok, sec_fetch_site="cross-site")
    assert check(site, csrf="t", loopback=True) is not None


def test_rule_names_come_from_a_cut_reason() -> None:
    assert rules_of("stream rule: a, b") == ["a", "b"]
    assert rules_of("something else") == []
