"""The page's "Continue from here" with the files of that point, against a real `rein serve`: it asks
which files would change, then switches with them restored or kept, as `/tree` asks in the terminal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.server.web.helpers import IDLE, Web, web_server

WRITE = {"tool": "write", "id": "w1", "arguments": {"path": "a.txt", "content": "two\n"}}
BASH = {"tool": "bash", "id": "b1", "arguments": {"command": "rm gone.txt && printf 'new\\n' > new.txt"}}
SLEEP = {"tool": "bash", "id": "s1", "arguments": {"command": "sleep 3"}}
REPLIES = [
    [WRITE],
    [{"text": "Wrote it."}],
    [BASH],
    [{"text": "Moved things."}],
    [SLEEP],
    [{"text": "Slept."}],
]


def _articles(html: str) -> list[tuple[str, str]]:
    """(classes, entry id) of each article of the conversation, in order."""
    return re.findall(r'<article class="entry ([^"]*)" id="e-([^"]+)"', html)


def _files(web: Web, sid: str, entry: str) -> list[object]:
    """The files the page would list before continuing from `entry`."""
    answer = web.get(f"/sessions/{sid}/entries/{entry}/files")
    assert answer["entryId"] == entry and answer["note"] is None
    differing = answer["differing"]
    assert isinstance(differing, list)
    return differing


@pytest.mark.slow
def test_continue_from_here_asks_then_restores_or_keeps_the_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "gone.txt").write_text("old\n")
    with web_server(tmp_path, replies=REPLIES) as web:
        sid = web.new_session()
        web.run(sid, "change a.txt")
        web.run(sid, "move things")
        articles = _articles(str(web.get(f"/sessions/{sid}")["html"]))
        prompt = articles[0][1]
        checkpoints = [ident for classes, ident in articles if classes.startswith("checkpoint")]
        assert len(checkpoints) == 2
        leaf = str(web.get(f"/sessions/{sid}")["leafId"])
        assert leaf == checkpoints[1]

        # nothing differs at the leaf: the page asks nothing
        assert _files(web, sid, leaf) == []
        # after the first turn (its checkpoint): the second turn's files differ
        assert _files(web, sid, checkpoints[0]) == ["gone.txt", "new.txt"]

        # keep: the switch alone, the files as they are
        kept = web.post(f"/sessions/{sid}/switch", {"entryId": checkpoints[0], "restoreFiles": False})
        assert kept == {"leafId": checkpoints[0]}
        assert not (tmp_path / "gone.txt").exists() and (tmp_path / "new.txt").read_text() == "new\n"

        # before every turn (the first prompt): all three differ; restore puts them back
        assert _files(web, sid, prompt) == ["a.txt", "gone.txt", "new.txt"]
        with web.events(sid) as events:
            restored = web.post(f"/sessions/{sid}/switch", {"entryId": prompt, "restoreFiles": True})
            events.wait_for(lambda e: e.get("type") == "undone")
        assert restored["files"] == [
            {"path": "a.txt", "action": "restored"},
            {"path": "gone.txt", "action": "recreated"},
            {"path": "new.txt", "action": "removed"},
        ]
        assert restored["lines"] == [
            "restored the files of that point, 3 file(s):",
            "  restored   a.txt",
            "  recreated  gone.txt",
            "  removed    new.txt",
        ]
        assert (tmp_path / "a.txt").read_text() == "one\n" and (tmp_path / "gone.txt").read_text() == "old\n"
        assert not (tmp_path / "new.txt").exists()
        assert (tmp_path / "sessions.db").exists()  # the server's own files are never restored
        after = web.get(f"/sessions/{sid}")
        assert after["leafId"] == restored["leafId"] != prompt  # the restore is an undo entry after it
        assert "3 file(s) put back" in str(after["html"])
        assert _files(web, sid, prompt) == []  # nothing differs any more
        again = web.post(f"/sessions/{sid}/switch", {"entryId": prompt, "restoreFiles": True})
        assert again["files"] == [] and again["lines"] == ["the files are already as at that point"]

        web.post(f"/sessions/{sid}/switch", {"entryId": prompt, "restoreFiles": "yes"}, status=400)
        unknown = web.get(f"/sessions/{sid}/entries/nope/files", status=400)
        assert unknown["code"] == "LEAF_ID_NOT_FOUND"

        # a run going: neither the question nor the restore (409, as undo)
        with web.events(sid) as events:
            web.post(f"/sessions/{sid}/prompt", {"text": "wait a bit"}, status=202)
            busy = web.get(f"/sessions/{sid}/entries/{checkpoints[0]}/files", status=409)
            assert busy["code"] == "RUN_IN_PROGRESS"
            body = {"entryId": checkpoints[0], "restoreFiles": True}
            assert web.post(f"/sessions/{sid}/switch", body, status=409)["code"] == "RUN_IN_PROGRESS"
            events.wait_for(lambda e: e == IDLE)
        assert (tmp_path / "a.txt").read_text() == "one\n"
