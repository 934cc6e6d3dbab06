"""Replays a recording (the format: `_recorded.py`) against a running `rein serve` and lists every
difference from the fork's answers:

    with Upstream() as upstream, rein_server(tmp, upstream.base_url, recording.token) as served:
        problems = Replayer(served.url, upstream.take, served.restart, served.uploads).run(recording)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import httpx2

from rein.protocol import tree_hash
from tests.server.compat._choices import by_block, upstream_fields, without_optional
from tests.server.compat._recorded import (
    JsonObject,
    Recording,
    body_text,
    differences,
    media_type,
    read_body,
)
from tests.server.helpers import free_port, running_server

Upstream = Callable[[], Sequence[object]]
"""The fields of the model upstream's requests since the previous call."""
SERVER_MODEL = "gpt-server-default"
"""The `--model` of a replayed server: not a model any recorded client names, so a client's id must
be the one the upstream gets."""


@dataclass
class Replayer:
    """Sends a recording's requests to the server at `url` and collects every difference;
    `restart()` restarts that server on the same port and store, `upstream` reads the fake model
    upstream, `uploads` is the server's upload directory (None: `files` are not checked)."""

    url: str
    upstream: Upstream
    restart: Callable[[], None]
    uploads: Path | None = None
    timeout: float = 60.0
    minted: dict[str, str] = field(default_factory=dict)
    """The fork's made-up values and rein's in their place."""

    def run(self, recording: Recording) -> list[str]:
        problems: list[str] = []
        for number, exchange in enumerate(recording.exchanges, 1):
            name = f"{recording.name} #{number} {exchange.get('name', '')}"
            if exchange.get("restart"):
                self.restart()
                continue
            problems.extend(f"{name}: {problem}" for problem in self.exchange(exchange))
        return problems

    def exchange(self, exchange: JsonObject) -> list[str]:
        request = _object(exchange["request"])
        expected = _object(exchange["response"])
        ignore = {str(k): str(v) for k, v in _object(exchange.get("ignore", {})).items()}
        self.upstream()  # anything stray before this request is not its
        status, content_type, raw, first_byte = self._send(request)
        problems: list[str] = []
        if status != expected["status"]:
            problems.append(f"status {status}, the fork answered {expected['status']}: {_excerpt(raw)}")
        if media_type(content_type) != media_type(str(expected["contentType"])):
            problems.append(f"content type {content_type!r}, the fork answered {expected['contentType']!r}")
        kind, value = read_body(content_type, raw)
        recorded_kind = next((k for k in ("json", "sse", "text") if k in expected), "text")
        if kind != recorded_kind:
            problems.append(f"a {kind} body, the fork answered {recorded_kind}: {_excerpt(raw)}")
        else:
            wanted_body = without_optional(expected[recorded_kind])  # rein's choices: `_choices`
            if recorded_kind == "sse":
                wanted_body, value = by_block(_list(wanted_body)), by_block(_list(value))
            problems.extend(differences(wanted_body, value, ignore, learn=self._learn))
            problems.extend(_self_hash(value))
        problems.extend(_timing(expected, raw, first_byte))
        compaction = str(request["path"]).endswith("/compact")
        got = upstream_fields(list(self.upstream()), compaction)
        wanted = upstream_fields(_list(exchange.get("upstream", [])), compaction)
        if got != wanted:
            problems.append(f"the upstream got {_show(got)}, from the fork {_show(wanted)}")
        files = exchange.get("files")
        if isinstance(files, dict) and self.uploads is not None:
            problems.extend(_files(self.uploads, files))
        return problems

    def _send(self, request: JsonObject) -> tuple[int, str, bytes, float | None]:
        method, path = str(request["method"]), self._swap(str(request["path"]), url=True)
        headers = {str(k): str(v) for k, v in _object(request.get("headers", {})).items()}
        body = self._swap(body_text(request.get("body"))).encode("utf-8", "surrogatepass")
        content = body if method not in ("GET", "DELETE") or body else None
        chunks, first = [], None
        with httpx2.Client(base_url=self.url, timeout=self.timeout) as client:
            started = time.monotonic()
            with client.stream(method, path, content=content, headers=headers) as answer:
                for chunk in answer.iter_raw():
                    if chunk and first is None:
                        first = time.monotonic() - started
                    chunks.append(chunk)
                return answer.status_code, answer.headers.get("content-type", ""), b"".join(chunks), first

    def _learn(self, reason: str, expected: object, actual: object) -> None:
        strings = isinstance(expected, str) and isinstance(actual, str)
        if reason.startswith("minted") and strings and expected != actual and len(str(expected)) >= 8:
            self.minted[str(expected)] = str(actual)

    def _swap(self, text: str, url: bool = False) -> str:
        for fork, rein in self.minted.items():
            text = text.replace(quote(fork, safe="") if url else fork, quote(rein, safe="") if url else rein)
        return text


def _timing(expected: JsonObject, raw: bytes, first_byte: float | None) -> list[str]:
    """A heartbeat the fork's answer started with, soon enough."""
    found = []
    within = expected.get("firstByteWithinMs")
    if isinstance(within, int) and (first_byte is None or first_byte * 1000 > within):
        shown = "never" if first_byte is None else f"after {first_byte * 1000:.0f} ms"
        found.append(f"the first byte came {shown}, the fork's within {within} ms")
    start = expected.get("firstBytes")
    if isinstance(start, str) and not raw.startswith(start.encode()):
        found.append(f"the body starts {_excerpt(raw[: len(start) + 8])}, the fork's with {start!r}")
    return found


def _self_hash(value: object) -> list[str]:
    """A full tree in an answer (history, a compaction without a patch) hashes to its treeHash."""
    found = []
    for item in _answers(value):
        entries, answered = item.get("entries"), item.get("treeHash")
        if isinstance(entries, list) and isinstance(answered, str):
            chain = [entry for entry in entries if isinstance(entry, dict)]
            if tree_hash(chain) != answered:
                found.append(f"treeHash {answered[:12]} is not the hash of its {len(entries)} entries")
    return found


def _answers(value: object) -> Iterator[JsonObject]:
    if isinstance(value, dict):
        yield value
    elif isinstance(value, list):
        yield from (e["data"] for e in value if isinstance(e, dict) and isinstance(e.get("data"), dict))


def _files(uploads: Path, files: Mapping[str, object]) -> list[str]:
    """Each path, under the upload directory or a user's folder in it (rein keeps users apart), holds
    the content given, or is not there (null)."""
    roots = (
        [uploads, *(d for d in sorted(uploads.iterdir()) if d.is_dir())] if uploads.is_dir() else [uploads]
    )
    found = []
    for relative, content in files.items():
        present = [root / relative for root in roots if (root / relative).is_file()]
        if content is None and present:
            found.append(f"{relative}: saved as {present[0]}, the fork refused it")
        elif content is not None and not present:
            found.append(f"{relative}: not saved under {uploads}")
        elif content is not None and present[0].read_text(encoding="utf-8") != content:
            found.append(f"{relative}: saved with other content")
    return found


def _excerpt(raw: bytes) -> str:
    return repr(raw[:200].decode("utf-8", "replace"))


def _show(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 160 else text[:157] + "..."


def _list(value: object) -> list[object]:
    assert isinstance(value, list), f"not a list: {_show(value)}"
    return value


def _object(value: object) -> JsonObject:
    assert isinstance(value, dict), f"not an object: {_show(value)}"
    return value


# the server under replay --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Served:
    url: str
    restart: Callable[[], None]
    """Stop the server and start it again on the same port and store."""
    uploads: Path


@contextmanager
def rein_server(tmp: Path, upstream_url: str, token: str | None, db: str | None = None) -> Iterator[Served]:
    """`rein serve` calling the fake upstream as an OpenAI-compatible provider, its uploads in
    `tmp/uploads`."""
    args = (
        "--port", str(free_port()), "--provider", "openai", "--model", SERVER_MODEL,
        "--base-url", upstream_url,
    )  # fmt: skip
    uploads = tmp / "uploads"
    env = {"OPENAI_API_KEY": "test", "REIN_SERVER_UPLOAD_DIR": str(uploads)}
    stack = ExitStack()

    def start() -> str:
        return stack.enter_context(running_server(tmp, db=db, token=token, env=env, args=args))

    def restart() -> None:
        stack.close()
        start()

    try:
        yield Served(start(), restart, uploads)
    finally:
        stack.close()
