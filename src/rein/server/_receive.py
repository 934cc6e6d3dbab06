"""`POST /api/receive`: a file or a folder sent by pi-client's `send <path>` (directly, or through
`/api/request/chunk` when over the size limit), saved under the server's upload directory with the
fork's body, checks, messages and answer (`receive-upload.ts`):

    {"name": "notes", "entries": [{"path": "", "type": "directory"},
                                  {"path": "a.txt", "type": "file", "data": "aGk="}]}
    -> 200 {"path": "/home/me/.rein/server/uploads/alice/notes", "files": 1}

A bad body is 400 and a name already taken 409, as in the fork, with rein's error body (`code`
INVALID_REQUEST added). rein also keeps each user in their own folder, `<upload-dir>/<user>/`, and
never replaces an existing destination, even one a racing upload made between the check and the move.
An upload is written into a fresh folder under `<upload-dir>/.partial/` and moved into place in one
rename, so a failure leaves nothing; one a crash left behind is swept an hour later.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import errno
import fcntl
import hashlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from rein.protocol import js_json
from rein.server._config import ServerConfig
from rein.server._errors import ProtocolError
from rein.server._json_response import JsonResponse
from rein.server._limits import SINGLE_TOKEN_OWNER
from rein.server._validate import Body

PARTIAL = ".partial"
"""Where uploads are written before their move: no user folder can have this name."""
STALE_SECONDS = 3600
USER_FOLDER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
CLIENT_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.EEXIST, errno.EILSEQ, errno.EINVAL})
"""Write failures the upload itself causes (a name too long, two names one on a case-insensitive
disk): 400. Any other (a full disk, a permission) is the server's: 500."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    path: str
    """"" for the upload itself, else `/`-separated below it."""
    data: bytes | None
    """The file's bytes; None for a directory."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Upload:
    name: str
    entries: tuple[Entry, ...]


def _invalid(message: str) -> ProtocolError:
    return ProtocolError(400, "INVALID_REQUEST", message)


def _js_string(value: object) -> str:
    """JavaScript's `String(value)`, for the fork's `invalid entry type: ...` message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_json(float(value))
    if isinstance(value, list):
        return ",".join("" if item is None else _js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _entry_path(value: object) -> str:
    if not isinstance(value, str):
        raise _invalid("entry path must be a string")
    if "\\" in value or "\0" in value:
        raise _invalid(f"invalid entry path: {value}")
    if value and any(part in ("", ".", "..") for part in value.split("/")):
        raise _invalid(f"invalid entry path: {value}")
    return value


def _file_data(value: object, path: str) -> bytes:
    """Canonical base64 only (padded, standard alphabet), as the fork's round trip demands."""
    if not isinstance(value, str):
        raise _invalid(f"file entry data must be base64: {path}")
    try:
        data = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise _invalid(f"file entry data must be valid base64: {path}") from None
    if base64.b64encode(data).decode("ascii") != value:
        raise _invalid(f"file entry data must be valid base64: {path}")
    return data


def parse_upload(body: Body) -> Upload:
    """The upload in `body`, checked in the fork's order with its messages (400 INVALID_REQUEST)."""
    name = body.get("name")
    if not isinstance(name, str) or name in ("", ".", "..") or any(c in name for c in "/\\\0"):
        raise _invalid("invalid upload name")
    raw = body.get("entries")
    if not isinstance(raw, list) or not raw:
        raise _invalid("entries must be a non-empty array")
    entries: list[Entry] = []
    kinds: dict[str, str] = {}
    for value in raw:
        if not isinstance(value, dict | list):  # a JavaScript array is an object without the fields
            raise _invalid("each entry must be an object")
        fields: dict[str, object] = value if isinstance(value, dict) else {}
        path = _entry_path(fields.get("path"))
        kind = fields.get("type")
        if kind not in ("file", "directory"):
            shown = _js_string(kind) if "type" in fields else "undefined"
            raise _invalid(f"invalid entry type: {shown}")
        if path in kinds:
            raise _invalid(f"duplicate entry path: {path}")
        kinds[path] = kind
        if kind == "directory":
            if "data" in fields:
                raise _invalid(f"directory entry must not contain data: {path}")
            entries.append(Entry(path=path, data=None))
        else:
            entries.append(Entry(path=path, data=_file_data(fields.get("data"), path)))
    root = kinds.get("")
    if root is None:
        raise _invalid("entries must include the root path")
    if root == "file" and len(entries) != 1:
        raise _invalid("a file upload cannot contain child entries")
    for entry in entries:
        parent = entry.path.rpartition("/")[0]
        if entry.path and kinds.get(parent) != "directory":
            raise _invalid(f"missing directory entry: {parent}")
    return Upload(name=name, entries=tuple(entries))


def upload_root(config: ServerConfig) -> Path:
    """`--upload-dir`, else `~/.rein/server/uploads`: beside the server's default database."""
    return Path(config.upload_dir) if config.upload_dir else config.home / ".rein" / "server" / "uploads"


def user_folder(owner: str) -> str:
    """The owner's folder name: the user's own when it is a plain name, else a hash of it (so no user
    name from a tokens file can be `..`, hidden, or a path). An open server's owner "" is "default",
    like REIN_SERVER_TOKEN's."""
    user = owner or SINGLE_TOKEN_OWNER
    if USER_FOLDER.fullmatch(user):
        return user
    return "_" + hashlib.sha256(user.encode("utf-8")).hexdigest()[:16]


def _exists(destination: Path) -> ProtocolError:
    return ProtocolError(409, "INVALID_REQUEST", f"destination already exists: {destination}")


def save_upload(root: Path, owner: str, body: Body) -> dict[str, object]:
    """Check `body`, write it to `root/<user>/<name>` and answer the fork's `{path, files}`. Blocking:
    run it in a thread."""
    upload = parse_upload(body)
    home = root / user_folder(owner)
    destination = (home / upload.name).absolute()
    try:
        home.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(destination):
            raise _exists(destination)
        _place(upload.entries, root / PARTIAL, destination)
    except OSError as error:
        raise _write_failure(error) from None
    except UnicodeEncodeError:  # JSON may carry a lone UTF-16 surrogate; no file name can
        raise _invalid("cannot save the upload: a path is not valid Unicode") from None
    return {"path": str(destination), "files": sum(entry.data is not None for entry in upload.entries)}


def _place(entries: tuple[Entry, ...], partial: Path, destination: Path) -> None:
    """Write `entries` in a scratch folder of `partial`, then move them to `destination` in one
    rename unless it exists by then; the scratch folder goes in every case. An OSError names the
    path the failed entry would have had."""
    partial.mkdir(exist_ok=True)
    _sweep(partial)
    scratch = Path(tempfile.mkdtemp(prefix="upload-", dir=partial))
    staged = scratch / "upload"
    try:
        _write(staged, entries)
        with _locked(partial / "lock"):  # the check and the move are one step for every upload
            if os.path.lexists(destination):
                raise _exists(destination)
            staged.rename(destination)
        _sync_dir(destination.parent)
    except OSError as error:
        where = str(error.filename or "")
        if where.startswith(str(staged)):
            where = str(destination) + where[len(str(staged)) :]
        raise OSError(error.errno, error.strerror, where or None) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _write(staged: Path, entries: tuple[Entry, ...]) -> None:
    """Directories parents first, then each file created new (`x`: never through a link) and synced."""
    for entry in sorted((e for e in entries if e.data is None), key=_depth):
        (staged / entry.path).mkdir()  # `staged / ""` is `staged`: the root entry
    for entry in entries:
        if entry.data is not None:
            with (staged / entry.path).open("xb") as file:
                file.write(entry.data)
                file.flush()
                os.fsync(file.fileno())


def _depth(entry: Entry) -> int:
    return entry.path.count("/") if entry.path else -1


def _write_failure(error: OSError) -> ProtocolError:
    where = f": {error.filename}" if error.filename else ""
    message = f"cannot save the upload: {error.strerror or error}{where}"
    if error.errno in CLIENT_ERRNOS:
        return _invalid(message)
    return ProtocolError(500, "INTERNAL_ERROR", message)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` between threads and processes alike (flock is per open file)."""
    with path.open("a") as file:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX)
        yield


def _sync_dir(path: Path) -> None:
    """Best effort: the upload is in place already, and some filesystems cannot sync a folder."""
    with contextlib.suppress(OSError):
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _sweep(partial: Path) -> None:
    """Drop the scratch folders a crash left (older than STALE_SECONDS; none is written that long)."""
    cutoff = time.time() - STALE_SECONDS
    for child in partial.iterdir():
        with contextlib.suppress(OSError):
            if child.name.startswith("upload-") and child.lstat().st_mtime < cutoff:
                shutil.rmtree(child)


async def receive(request: Request, owner: str, body: Body) -> Response:
    """The route: the checks and the file work in a thread, so other requests go on meanwhile."""
    config: ServerConfig = request.app.state.config
    answer = await asyncio.to_thread(save_upload, upload_root(config), owner, body)
    return JsonResponse(answer)
