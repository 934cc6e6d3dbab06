"""`rein serve`'s edge: bearer tokens and owners, the request-size limit (and chunks as the way
around it), the per-owner rate limit, and bad fields named in the error."""

from __future__ import annotations

import base64
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from rein.protocol import chunk_checksum
from tests.cli.helpers import rein_env
from tests.server.helpers import process_of, running_server, server_log

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("open")) as url:
        yield url


def test_no_token_on_loopback_is_open(tmp_path: Path) -> None:
    with running_server(tmp_path) as url:
        answer = httpx2.post(f"{url}/api/session/init", json={"sessionId": "s1"})
        assert answer.status_code == 200


def test_a_public_address_without_a_token_exits_2_with_one_line(tmp_path: Path) -> None:
    env = rein_env(tmp_path)
    env.pop("REIN_SERVER_TOKEN", None)
    done = subprocess.run(
        [sys.executable, "-m", "rein.cli", "serve", "--host", "0.0.0.0", "--port", "0"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "REIN_SERVER_TOKEN" in done.stderr, done.stderr
    assert done.stdout == ""


def test_the_token_is_required_and_checked(tmp_path: Path) -> None:
    with running_server(tmp_path, token="s3cret") as url:
        assert httpx2.get(f"{url}/health").status_code == 200, "health needs no token"
        body = {"sessionId": "s1"}
        missing = httpx2.post(f"{url}/api/session/init", json=body)
        assert (missing.status_code, missing.json()) == (
            401,
            {"error": "Unauthorized", "code": "UNAUTHORIZED"},
        )
        wrong = httpx2.post(f"{url}/api/session/init", json=body, headers={"Authorization": "Bearer s3cre"})
        assert wrong.status_code == 401
        right = httpx2.post(f"{url}/api/session/init", json=body, headers={"Authorization": "Bearer s3cret"})
        assert right.status_code == 200
        assert "401 UNAUTHORIZED" in server_log(url) and "s3cret" not in server_log(url)


def test_two_tokens_see_their_own_sessions(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("# user token\nann tok-ann\nbob tok-bob\n")
    with running_server(tmp_path, args=("--host", "127.0.0.1", "--tokens-file", str(tokens))) as url:
        ann, bob = ({"Authorization": f"Bearer tok-{who}"} for who in ("ann", "bob"))
        assert (
            httpx2.post(f"{url}/api/session/init", json={"sessionId": "mine"}, headers=ann).status_code == 200
        )
        assert [
            s["sessionId"] for s in httpx2.get(f"{url}/api/sessions", headers=ann).json()["sessions"]
        ] == ["mine"]
        assert httpx2.get(f"{url}/api/sessions", headers=bob).json() == {"sessions": []}
        assert httpx2.get(f"{url}/api/session/mine/history", headers=bob).status_code == 404
        assert httpx2.get(f"{url}/api/sessions").status_code == 401


def test_a_body_over_the_limit_is_413_and_goes_through_chunks(tmp_path: Path) -> None:
    entries = [
        {
            "type": "message",
            "id": f"e{i}",
            "parentId": f"e{i - 1}" if i else None,
            "message": {"role": "user", "content": "x" * 200},
        }
        for i in range(30)
    ]
    body = {"sessionId": "big", "entries": entries, "leafId": "e29"}
    with running_server(tmp_path, args=("--max-request-kb", "4")) as url:
        refused = httpx2.post(f"{url}/api/session/tree/append", json=body)
        assert (refused.status_code, refused.json()["code"]) == (413, "REQUEST_TOO_LARGE")
        text = base64.b64encode(httpx2.Request("POST", url, json=body).content).decode()
        pieces = [text[i : i + 2000] for i in range(0, len(text), 2000)]
        answers = [
            httpx2.post(
                f"{url}/api/request/chunk",
                json={
                    "requestId": "r1",
                    "target": "/api/session/tree/append",
                    "chunkIndex": i,
                    "totalChunks": len(pieces),
                    "sha256": chunk_checksum(piece),
                    "chunk": piece,
                },
            )
            for i, piece in enumerate(pieces)
        ]
        assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
        assert answers[-1].json()["entryCount"] == 30 and answers[-1].json()["leafId"] == "e29"


def test_the_rate_limit_answers_429_with_retry_after(tmp_path: Path) -> None:
    with running_server(tmp_path, args=("--rate-per-minute", "3")) as url:
        codes = [httpx2.get(f"{url}/api/sessions").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        limited = httpx2.get(f"{url}/api/sessions")
        assert limited.json()["code"] == "RATE_LIMITED" and int(limited.headers["Retry-After"]) >= 1
        assert httpx2.get(f"{url}/health").status_code == 200, "health is never limited"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/session/init", {"sessionId": "../etc/passwd"}, "sessionId"),
        ("/api/session/init", {"sessionId": 5}, "sessionId"),
        (
            "/api/session/init",
            {"sessionId": "s", "staticContext": {"tools": [{"nome": "x"}]}},
            "staticContext.tools[0].name",
        ),
        (
            "/api/session/tree/append",
            {
                "sessionId": "s",
                "entries": [{"id": "a", "parentId": None, "type": "m"}, {"id": "b", "type": "m"}],
            },
            "entries[1].parentId",
        ),
        (
            "/api/session/tree/append",
            {"sessionId": "s", "entries": [{"id": 3, "parentId": None, "type": "m"}]},
            "entries[0].id",
        ),
        ("/api/session/tree/append", {"sessionId": "s", "entries": {}}, "entries"),
        ("/api/session/tree/switch", {"sessionId": "s", "leafId": 7}, "leafId"),
        ("/api/session/append", {"sessionId": "s", "messages": [{"content": "x"}]}, "messages[0].role"),
        (
            "/api/request/chunk",
            {
                "requestId": "r",
                "target": "/etc",
                "chunkIndex": 0,
                "totalChunks": 1,
                "sha256": "0" * 64,
                "chunk": "",
            },
            "target",
        ),
    ],
)
def test_bad_fields_are_named(path: str, body: dict[str, object], field: str, open_server: str) -> None:
    answer = httpx2.post(f"{open_server}{path}", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"].startswith(field + " "), answer.json()
    assert answer.json()["details"] == {"field": field}


@pytest.mark.parametrize("raw", [b"{nope", b"[1]", b"\xff", b'{"sessionId": NaN}'])
def test_a_body_that_is_not_a_json_object_is_400(raw: bytes, open_server: str) -> None:
    answer = httpx2.post(f"{open_server}/api/session/init", content=raw)
    assert answer.status_code == 400 and answer.json()["code"] == "INVALID_REQUEST", answer.text


def test_sigterm_stops_the_server_cleanly(tmp_path: Path) -> None:
    with running_server(tmp_path) as url:
        process = process_of(url)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    (out,) = tmp_path.glob("serve-*.out")
    listening = out.read_text()
    served = f"provider: faux, model: faux, store: sqlite {tmp_path / 'sessions.db'}"
    assert listening == f"rein serve: listening on {url} ({served})\n"


def test_a_bad_store_url_exits_2_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rein.cli", "serve", "--port", "0", "--db", "mysql://x:pw@h/db"],
        cwd=tmp_path,
        env=rein_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "mysql" in done.stderr and "pw" not in done.stderr
