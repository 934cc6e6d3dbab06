"""`POST /api/receive` (pi-client's `send <path>`): the fork's checks and messages (the table below is
what the fork's `receive-upload.ts` answers for each body), then real `rein serve` processes taking
files and folders directly and in chunks, keeping users apart, refusing every way out of the upload
directory and leaving nothing behind when a write fails."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from rein.protocol import chunk_checksum
from rein.server._config import load_config
from rein.server._errors import ProtocolError
from rein.server._receive import PARTIAL, save_upload, user_folder
from tests.server.helpers import running_server

DIR = {"path": "", "type": "directory"}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def named(name: object, *entries: object) -> dict[str, object]:
    return {"name": name, "entries": list(entries)}


REFUSED: list[tuple[dict[str, object], str]] = [
    ({"entries": [DIR]}, "invalid upload name"),
    *((named(name, DIR), "invalid upload name") for name in ("", ".", "..", "a/b", "a\\b", "a\0b", 7)),
    ({"name": "n"}, "entries must be a non-empty array"),
    (named("n"), "entries must be a non-empty array"),
    ({"name": "n", "entries": {}}, "entries must be a non-empty array"),
    *((named("n", entry), "each entry must be an object") for entry in (5, None, "s")),
    (named("n", [1, 2]), "entry path must be a string"),
    (named("n", {"type": "directory"}), "entry path must be a string"),
    (named("n", {"path": 3, "type": "directory"}), "entry path must be a string"),
    *(
        (named("n", {"path": path, "type": "directory"}), f"invalid entry path: {path}")
        for path in ("a\\b", "a\0", "/etc", "a/", "a//b", "./a", "a/../../b", "..")
    ),
    (named("n", {"path": ""}), "invalid entry type: undefined"),
    *(
        (named("n", {"path": "", "type": kind}), f"invalid entry type: {shown}")
        for kind, shown in (
            (None, "null"),
            ("link", "link"),
            (1.5, "1.5"),
            (1e21, "1e+21"),
            ([1, None, "a", [2, 3]], "1,,a,2,3"),
            ({"a": 1}, "[object Object]"),
            (True, "true"),
        )
    ),
    (named("n", DIR, DIR), "duplicate entry path: "),
    (named("n", {**DIR, "data": None}), "directory entry must not contain data: "),
    *(
        (named("n", {"path": "", "type": "file", **data}), "file entry data must be base64: ")
        for data in ({}, {"data": None}, {"data": 5})
    ),
    *(
        (named("n", {"path": "", "type": "file", "data": data}), "file entry data must be valid base64: ")
        for data in ("aGk", "aG k=", "aR==", "-_8=", "é")
    ),
    (named("n", {"path": "a", "type": "directory"}), "entries must include the root path"),
    (
        named("n", {"path": "", "type": "file", "data": ""}, {"path": "a", "type": "file", "data": ""}),
        "a file upload cannot contain child entries",
    ),
    (named("n", DIR, {"path": "a/b", "type": "file", "data": ""}), "missing directory entry: a"),
    (
        named(
            "n", DIR, {"path": "a", "type": "file", "data": ""}, {"path": "a/b", "type": "file", "data": ""}
        ),
        "missing directory entry: a",
    ),
    (
        named("n", DIR, {"path": "a", "type": "directory"}, {"path": "a", "type": "file"}),
        "duplicate entry path: a",
    ),
]  # fmt: skip


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under `root`, relative, with a file's bytes (None for a directory)."""
    return {
        str(path.relative_to(root)): None if path.is_dir() else path.read_bytes()
        for path in sorted(root.rglob("*"))
    }


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


@pytest.mark.parametrize(("body", "message"), REFUSED)
def test_a_bad_body_gets_the_forks_message_and_writes_nothing(
    tmp_path: Path, body: dict[str, object], message: str
) -> None:
    with pytest.raises(ProtocolError) as refused:
        save_upload(tmp_path / "up", "", body)
    assert (refused.value.status, refused.value.code) == (400, "INVALID_REQUEST")
    assert refused.value.message == message
    assert not (tmp_path / "up").exists()


def test_entries_in_any_order_make_the_tree(tmp_path: Path) -> None:
    body = named(
        "proj",
        {"path": "a/b/c.bin", "type": "file", "data": b64(b"\0\1\2\xff")},
        {"path": "a/b", "type": "directory"},
        {"path": "a/empty.txt", "type": "file", "data": ""},
        DIR,
        {"path": "a", "type": "directory"},
        {"path": "z", "type": "directory"},
    )
    answer = save_upload(tmp_path, "", body)
    assert answer == {"path": str(tmp_path / "default" / "proj"), "files": 2}
    assert tree(tmp_path / "default") == {
        "proj": None,
        "proj/a": None,
        "proj/a/b": None,
        "proj/a/b/c.bin": b"\0\1\2\xff",
        "proj/a/empty.txt": b"",
        "proj/z": None,
    }


def test_a_write_that_fails_halfway_leaves_nothing(tmp_path: Path) -> None:
    body = named(
        "big",
        DIR,
        {"path": "first.txt", "type": "file", "data": b64(b"written before the failure")},
        {"path": "x" * 300, "type": "file", "data": ""},
    )
    with pytest.raises(ProtocolError) as refused:
        save_upload(tmp_path, "", body)
    assert refused.value.status == 400
    assert refused.value.message.startswith("cannot save the upload: File name too long: ")
    assert refused.value.message.endswith(str(tmp_path / "default" / "big" / ("x" * 300)))
    assert tree(tmp_path).keys() - {f"{PARTIAL}/lock"} == {"default", PARTIAL}, "no scratch, no upload"


def test_a_name_too_long_for_the_disk_is_refused_at_the_move(tmp_path: Path) -> None:
    with pytest.raises(ProtocolError) as refused:
        save_upload(tmp_path, "", named("n" * 300, {"path": "", "type": "file", "data": ""}))
    assert refused.value.status == 400
    assert tree(tmp_path).keys() - {f"{PARTIAL}/lock"} == {"default", PARTIAL}, "no scratch, no upload"


@pytest.mark.parametrize("where", ["name", "path"])
def test_a_lone_surrogate_in_a_name_is_refused_and_leaves_nothing(tmp_path: Path, where: str) -> None:
    body = (
        named("\ud83d", {"path": "", "type": "file", "data": ""})
        if where == "name"
        else named("n", DIR, {"path": "a\ud83d", "type": "file", "data": ""})
    )
    with pytest.raises(ProtocolError) as refused:
        save_upload(tmp_path, "", body)
    assert (refused.value.status, refused.value.message) == (
        400,
        "cannot save the upload: a path is not valid Unicode",
    )
    assert tree(tmp_path).keys() - {f"{PARTIAL}/lock"} == {"default", PARTIAL}, "no scratch, no upload"


def test_an_existing_name_even_a_dangling_link_is_409_and_kept(tmp_path: Path) -> None:
    (tmp_path / "default").mkdir()
    (tmp_path / "default" / "link").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ProtocolError) as refused:
        save_upload(tmp_path, "", named("link", {"path": "", "type": "file", "data": b64(b"x")}))
    assert refused.value.status == 409
    assert refused.value.message == f"destination already exists: {tmp_path / 'default' / 'link'}"
    assert (tmp_path / "default" / "link").is_symlink() and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("folder", [True, False], ids=["folder", "file"])
def test_racing_uploads_of_one_name_one_wins_whole(tmp_path: Path, folder: bool) -> None:
    """Eight uploads of one name at once (a rename would replace a file, or an empty folder, silently):
    one is saved whole, seven get 409."""
    outcomes: list[int] = []
    start = threading.Barrier(8)

    def send(i: int) -> None:
        files = ({"path": f"f{j}", "type": "file", "data": b64(bytes([i]) * 99)} for j in range(20))
        body = (
            named("same", DIR, *files)
            if folder
            else named("same", {"path": "", "type": "file", "data": b64(bytes([i]) * 99)})
        )
        start.wait()
        try:
            save_upload(tmp_path, "", body)
            outcomes.append(200)
        except ProtocolError as refused:
            outcomes.append(refused.status)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == [200] + [409] * 7
    saved = tmp_path / "default" / "same"
    if folder:
        contents = {path.read_bytes() for path in saved.iterdir()}
        assert len(contents) == 1 and len(names(saved)) == 20, "one upload, whole"
    else:
        assert len(set(saved.read_bytes())) == 1
    assert names(tmp_path / PARTIAL) == ["lock"]


def test_scratch_folders_a_crash_left_are_swept_after_an_hour(tmp_path: Path) -> None:
    old, fresh = tmp_path / PARTIAL / "upload-old", tmp_path / PARTIAL / "upload-fresh"
    for scratch in (old, fresh):
        (scratch / "upload").mkdir(parents=True)
    hour_ago = time.time() - 3601
    os.utime(old, (hour_ago, hour_ago))
    save_upload(tmp_path, "", named("f", {"path": "", "type": "file", "data": ""}))
    assert names(tmp_path / PARTIAL) == ["lock", "upload-fresh"]


@pytest.mark.parametrize(
    ("owner", "folder"),
    [
        ("", "default"),
        ("default", "default"),
        ("alice", "alice"),
        ("Bob.Smith-2_x", "Bob.Smith-2_x"),
        ("..", "_" + hashlib.sha256(b"..").hexdigest()[:16]),
        (".hidden", "_" + hashlib.sha256(b".hidden").hexdigest()[:16]),
        ("a/b", "_" + hashlib.sha256(b"a/b").hexdigest()[:16]),
        ("_x", "_" + hashlib.sha256(b"_x").hexdigest()[:16]),
        ("é", "_" + hashlib.sha256("é".encode()).hexdigest()[:16]),
        ("a" * 65, "_" + hashlib.sha256(b"a" * 65).hexdigest()[:16]),
    ],
)
def test_each_user_has_a_plain_folder_name(owner: str, folder: str) -> None:
    assert user_folder(owner) == folder


def test_the_upload_dir_option_and_its_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    env = {"HOME": str(tmp_path / "home")}
    assert load_config({"cwd": str(tmp_path)}, env).upload_dir == ""
    assert load_config({"cwd": str(tmp_path), "upload_dir": "up"}, env).upload_dir == str(tmp_path / "up")
    home_relative = load_config({"cwd": str(tmp_path), "upload_dir": "~/up"}, env)
    assert home_relative.upload_dir == str(tmp_path / "home" / "up")
    from_env = load_config({"cwd": str(tmp_path)}, {**env, "REIN_SERVER_UPLOAD_DIR": "/srv/up"})
    assert from_env.upload_dir == "/srv/up"


# --- a real `rein serve` ---

TOKENS = {"alice": "token-a", "bob": "token-b", "../evil": "token-e"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A server with three users, a 1 KB request limit and a relative `--upload-dir` (its cwd is
    `tmp`); yields its URL and `tmp`."""
    tmp = tmp_path_factory.mktemp("receive")
    tokens = tmp / "tokens"
    tokens.write_text("".join(f"{user} {token}\n" for user, token in TOKENS.items()), encoding="utf-8")
    args = ("--tokens-file", str(tokens), "--max-request-kb", "1", "--upload-dir", "up")
    with running_server(tmp, args=args) as url:
        yield url, tmp


def post(url: str, body: object, user: str = "alice", path: str = "/api/receive") -> httpx2.Response:
    return httpx2.post(
        f"{url}{path}", json=body, headers={"Authorization": f"Bearer {TOKENS[user]}"}, timeout=30
    )


@pytest.mark.slow
def test_a_file_and_a_folder_land_in_the_users_folder(served: tuple[str, Path]) -> None:
    url, tmp = served
    data = bytes(range(256))
    answer = post(url, named("bytes.bin", {"path": "", "type": "file", "data": b64(data)}))
    assert (answer.status_code, answer.json()) == (
        200,
        {"path": str(tmp / "up" / "alice" / "bytes.bin"), "files": 1},
    )
    assert (tmp / "up" / "alice" / "bytes.bin").read_bytes() == data
    folder = named(
        "notes",
        DIR,
        {"path": "d", "type": "directory"},
        {"path": "d/a.txt", "type": "file", "data": b64(b"hi")},
    )
    assert post(url, folder).json() == {"path": str(tmp / "up" / "alice" / "notes"), "files": 1}
    assert tree(tmp / "up" / "alice" / "notes") == {"d": None, "d/a.txt": b"hi"}
    again = post(url, named("notes", {"path": "", "type": "file", "data": ""}))
    destination = tmp / "up" / "alice" / "notes"
    assert (again.status_code, again.json()) == (
        409,
        {"error": f"destination already exists: {destination}", "code": "INVALID_REQUEST"},
    )
    assert tree(destination) == {"d": None, "d/a.txt": b"hi"}, "the first upload is kept"


@pytest.mark.slow
def test_a_body_over_the_limit_arrives_in_chunks(served: tuple[str, Path]) -> None:
    url, tmp = served
    data = os.urandom(6000)
    body = named("big", DIR, {"path": "blob", "type": "file", "data": b64(data)})
    assert post(url, body).status_code == 413
    text = b64(json.dumps(body).encode("utf-8"))
    parts = [text[i : i + 700] for i in range(0, len(text), 700)]
    answers = [
        post(
            url,
            {
                "requestId": "upload-1",
                "target": "/api/receive",
                "chunkIndex": i,
                "totalChunks": len(parts),
                "sha256": chunk_checksum(part),
                "chunk": part,
            },
            path="/api/request/chunk",
        )
        for i, part in enumerate(parts)
    ]
    assert all(
        a.json() == {"received": True, "requestId": "upload-1", "chunkIndex": i, "totalChunks": len(parts)}
        for i, a in enumerate(answers[:-1])
    )
    assert (answers[-1].status_code, answers[-1].json()) == (
        200,
        {"path": str(tmp / "up" / "alice" / "big"), "files": 1},
    )
    assert (tmp / "up" / "alice" / "big" / "blob").read_bytes() == data


@pytest.mark.slow
def test_every_refusal_over_http(served: tuple[str, Path]) -> None:
    url, tmp = served
    uploads = tree(tmp / "up")
    for body, message in REFUSED:
        answer = post(url, body, user="bob")
        assert (answer.status_code, answer.json()) == (400, {"error": message, "code": "INVALID_REQUEST"}), (
            body
        )
    not_objects: tuple[object, ...] = (None, [], "x", 5)
    for raw in not_objects:  # rein's body check answers before the upload's
        headers = {"Authorization": f"Bearer {TOKENS['bob']}", "Content-Type": "application/json"}
        answer = httpx2.post(f"{url}/api/receive", content=json.dumps(raw), headers=headers, timeout=30)
        assert (answer.status_code, answer.json()["error"]) == (400, "body must be a JSON object")
    assert tree(tmp / "up") == uploads


@pytest.mark.slow
def test_no_upload_reaches_outside_its_users_folder(served: tuple[str, Path]) -> None:
    url, tmp = served
    before = {path for path in tmp.rglob("*") if "up" not in path.relative_to(tmp).parts[:1]}
    uploads = tree(tmp / "up")
    file = {"type": "file", "data": b64(b"escaped")}
    hostile = [
        named("..", DIR),
        named("../../outside", DIR),
        named("/tmp/outside", {"path": "", **file}),
        named("x", DIR, {"path": "../outside", **file}),
        named("x", DIR, {"path": "/etc/outside", **file}),
        named("x", DIR, {"path": "a/../../outside", **file}),
        named("x", DIR, {"path": "..\\outside", **file}),
        named("x", DIR, {"path": "outside\0.txt", **file}),
        named("x\0", DIR),
        named("..\\..\\outside", DIR),
    ]
    for body in hostile:
        assert post(url, body, user="bob").status_code == 400, body
    after = {path for path in tmp.rglob("*") if "up" not in path.relative_to(tmp).parts[:1]}
    assert {path.name for path in after - before} <= {"sessions.db-wal", "sessions.db-shm"}
    assert tree(tmp / "up") == uploads


@pytest.mark.slow
def test_users_are_kept_apart(served: tuple[str, Path]) -> None:
    url, tmp = served
    for user in TOKENS:
        body = named("mine.txt", {"path": "", "type": "file", "data": b64(user.encode())})
        assert post(url, body, user=user).status_code == 200, user
    evil = user_folder("../evil")
    assert evil.startswith("_")
    for user, folder in (("alice", "alice"), ("bob", "bob"), ("../evil", evil)):
        assert (tmp / "up" / folder / "mine.txt").read_bytes() == user.encode()
    assert not (tmp / "evil").exists()
    anonymous = httpx2.post(f"{url}/api/receive", json=named("n", DIR), timeout=30)
    assert anonymous.status_code == 401


@pytest.mark.slow
def test_a_failed_write_over_http_leaves_nothing(served: tuple[str, Path]) -> None:
    url, tmp = served
    body = named(
        "half",
        DIR,
        {"path": "ok.txt", "type": "file", "data": b64(b"ok")},
        {"path": "y" * 300, "type": "file", "data": ""},
    )
    answer = post(url, body, user="bob")
    assert answer.status_code == 400 and answer.json()["error"].startswith("cannot save the upload: ")
    assert not (tmp / "up" / "bob" / "half").exists()
    assert names(tmp / "up" / PARTIAL) == ["lock"]


@pytest.mark.slow
def test_the_default_folder_is_under_the_servers_home(tmp_path: Path) -> None:
    with running_server(tmp_path) as url:
        answer = httpx2.post(
            f"{url}/api/receive", json=named("f.txt", {"path": "", "type": "file", "data": b64(b"x")})
        )
    expected = tmp_path / "home" / ".rein" / "server" / "uploads" / "default" / "f.txt"
    assert answer.json() == {"path": str(expected), "files": 1}
    assert expected.read_bytes() == b"x"
