"""Checkpoints of the page's runs, against a real `rein serve` whose database sits in the project: a
turn's file changes as diffs, and the undo of a turn and of the turns after it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rein.checkpoints import ShadowRepo
from rein.server._config import ServerConfig
from rein.server.web._checkpoints import server_paths
from tests.server.web.helpers import web_server

WRITE = {"tool": "write", "id": "w1", "arguments": {"path": "a.txt", "content": "two\n"}}
BASH = {"tool": "bash", "id": "b1", "arguments": {"command": "rm gone.txt && printf 'new\\n' > new.txt"}}
REPLIES = [[WRITE], [{"text": "Wrote it."}], [BASH], [{"text": "Moved things."}]]


def _checkpoints(html: str) -> list[tuple[str, str]]:
    """(checkpoint id, pending or undone) of each checkpoint article, in order."""
    found = re.findall(
        r'<article class="entry checkpoint (pending|undone)".*?data-checkpoint-id="([^"]+)"', html
    )
    return [(ident, state) for state, ident in found]


@pytest.mark.slow
def test_a_turns_changes_show_as_diffs_and_undo_puts_its_files_back(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "gone.txt").write_text("old\n")
    with web_server(tmp_path, replies=REPLIES) as web:
        sid = web.new_session()
        web.run(sid, "change a.txt")
        web.run(sid, "move things")
        assert (tmp_path / "a.txt").read_text() == "two\n" and not (tmp_path / "gone.txt").exists()
        html = str(web.get(f"/sessions/{sid}")["html"])
        (first, state1), (second, state2) = _checkpoints(html)
        assert state1 == state2 == "pending"
        assert "files changed: 1" in html and "files changed: 2" in html
        assert "sessions.db" not in html and "serve-" not in html  # the server's own files stay out

        changes = web.get(f"/sessions/{sid}/checkpoints/{first}")
        assert changes["files"] == [{"path": "a.txt", "change": "modified"}]
        diff = str(changes["html"])
        assert '<span class="d-del">-one</span><span class="d-add">+two</span>' in diff
        later = web.get(f"/sessions/{sid}/checkpoints/{second}")
        assert later["files"] == [
            {"path": "gone.txt", "change": "deleted"},
            {"path": "new.txt", "change": "added"},
        ]
        assert '<span class="d-add">+new</span>' in str(later["html"])
        web.get(f"/sessions/{sid}/checkpoints/nope", status=404)

        with web.events(sid) as events:
            undone = web.post(f"/sessions/{sid}/undo", {"checkpointId": first})
            events.wait_for(lambda e: e.get("type") == "undone")
        assert undone["undone"] == [second, first] and undone["turns"] == 2
        assert undone["files"] == [
            {"path": "a.txt", "action": "restored"},
            {"path": "gone.txt", "action": "recreated"},
            {"path": "new.txt", "action": "removed"},
        ]
        assert undone["lines"] == [
            "undid 2 turn(s), 3 file(s):",
            "  restored   a.txt",
            "  recreated  gone.txt",
            "  removed    new.txt",
        ]
        assert (tmp_path / "a.txt").read_text() == "one\n" and (tmp_path / "gone.txt").read_text() == "old\n"
        assert not (tmp_path / "new.txt").exists()
        assert (tmp_path / "sessions.db").exists()
        page = str(web.get(f"/sessions/{sid}")["html"])
        assert _checkpoints(page) == [(first, "undone"), (second, "undone")]
        assert "3 file(s) put back" in page
        refused = web.post(f"/sessions/{sid}/undo", {"checkpointId": second}, status=409)
        assert "not a turn of this branch left to undo" in str(refused["error"])
        web.post(f"/sessions/{sid}/undo", {}, status=400)


def test_the_server_paths_cover_its_database_state_and_uploads(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    config = ServerConfig(home=home, db=str(project / "s.db"), upload_dir=str(tmp_path / "up"))
    assert server_paths(config)[:6] == (
        home / ".rein" / "server",
        project / "s.db",
        project / "s.db-wal",
        project / "s.db-shm",
        project / "s.db-journal",
        tmp_path / "up",
    )
    assert server_paths(ServerConfig(home=home, db=f"sqlite://{project}/x.db"))[1] == project / "x.db"
    assert server_paths(ServerConfig(home=home))[1] == home / ".rein" / "server" / "sessions.db"
    assert server_paths(ServerConfig(home=home, db="postgresql://db/rein"))[0] == home / ".rein" / "server"
    excluded = ShadowRepo(project, home, exclude=server_paths(config)).excluded
    assert excluded == ("s.db", "s.db-wal", "s.db-shm", "s.db-journal")
