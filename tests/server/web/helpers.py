"""The web page's API as the page uses it, against a real `rein serve`: the CSRF token read from `/`,
the event stream read on a thread (as the page reads it with `fetch`), a faux script for the runs.

    with web_server(tmp_path, replies=[[{"text": "hi"}]]) as web:
        sid = web.new_session()
        with web.events(sid) as events:
            web.post(f"/sessions/{sid}/prompt", {"text": "hello"}, status=202)
            events.wait_for(lambda e: e == IDLE)
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from tests.server.helpers import running_server

Event = dict[str, object]
IDLE: Event = {"type": "run", "state": "idle"}
WAIT = 30.0

BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
"""What a browser asks `GET /` for: the page (any other client gets the fork's JSON answer)."""


class EventReader:
    """The session's events, read on a thread into `events` (`delta` events included)."""

    def __init__(self, client: httpx2.Client, path: str) -> None:
        self.events: list[Event] = []
        self.ids: list[int] = []
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._opened = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(client, path), daemon=True)

    def _read(self, client: httpx2.Client, path: str) -> None:
        try:
            with client.stream("GET", path, timeout=httpx2.Timeout(60.0)) as stream:
                self._opened.set()
                for line in stream.iter_lines():
                    if self._stop.is_set():
                        return
                    if line.startswith("id: "):
                        self.ids.append(int(line[4:]))
                    if line.startswith("data: "):
                        with self._changed:
                            self.events.append(json.loads(line[6:]))
                            self._changed.notify_all()
        except httpx2.HTTPError:
            return
        finally:
            self._opened.set()

    def wait_for(self, match: Callable[[Event], bool], count: int = 1, timeout: float = WAIT) -> list[Event]:
        """Wait until `count` events match; returns the matching events."""
        found: list[Event] = []

        def enough(events: list[Event]) -> bool:
            found[:] = [event for event in events if match(event)]
            return len(found) >= count

        self.wait_until(enough, timeout)
        return found

    def wait_until(self, check: Callable[[list[Event]], bool], timeout: float = WAIT) -> None:
        """Wait until `check(all events so far)` holds, re-checked at each new event."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not check(self.events):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"not reached in {timeout} s; events: {self.events}")
                self._changed.wait(left)

    def of(self, kind: str) -> list[Event]:
        with self._changed:
            return [event for event in self.events if event.get("type") == kind]


@dataclass
class Web:
    url: str
    client: httpx2.Client
    csrf: str
    tmp: Path
    seen: dict[str, int] = field(default_factory=dict)
    """Session id -> the last event id a reader got: the next reader starts after it."""

    def get(self, path: str, status: int = 200, **params: object) -> dict[str, object]:
        answer = self.client.get(f"/web/api{path}", params={k: str(v) for k, v in params.items()})
        assert answer.status_code == status, answer.text
        body: dict[str, object] = answer.json()
        return body

    def post(self, path: str, body: Mapping[str, object], status: int = 200) -> dict[str, object]:
        answer = self.client.post(f"/web/api{path}", json=dict(body), headers={"X-Rein-CSRF": self.csrf})
        assert answer.status_code == status, answer.text
        result: dict[str, object] = answer.json()
        return result

    def new_session(self) -> str:
        return str(self.post("/sessions", {}, status=201)["id"])

    @contextmanager
    def events(self, sid: str, after: int | None = None) -> Iterator[EventReader]:
        """Read the session's events after `after` (default: after those earlier readers got)."""
        start = self.seen.get(sid, 0) if after is None else after
        reader = EventReader(self.client, f"/web/api/sessions/{sid}/events?after={start}")
        reader._thread.start()
        reader._opened.wait(WAIT)
        try:
            yield reader
        finally:
            reader._stop.set()
            self.seen[sid] = max([start, *reader.ids])

    def run(self, sid: str, text: str) -> EventReader:
        """Prompt and wait until the run is idle again; the reader holds its events."""
        with self.events(sid) as reader:
            self.post(f"/sessions/{sid}/prompt", {"text": text}, status=202)
            reader.wait_for(lambda e: e == IDLE)
            return reader


def csrf_of(html: str) -> str:
    found = re.search(r'<meta name="rein-csrf" content="([^"]+)"', html)
    assert found is not None, html[:400]
    return found.group(1)


@contextmanager
def web_server(
    tmp: Path,
    *,
    replies: Sequence[object] = (),
    delay: float = 0.0,
    args: Sequence[str] = ("--approve", "auto"),
    token: str | None = None,
) -> Iterator[Web]:
    """`rein serve` in `tmp` (its default directory) with a faux script of `replies`."""
    tmp.mkdir(parents=True, exist_ok=True)
    script = tmp / "faux-script.json"
    script.write_text(json.dumps({"delay": delay, "chunkSize": 4, "replies": list(replies)}))
    env = {"REIN_FAUX_SCRIPT": str(script)}
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with (
        running_server(tmp, env=env, args=args, token=token) as url,
        httpx2.Client(base_url=url, timeout=30, headers=headers) as client,
    ):
        page = client.get("/", headers=BROWSER)
        assert page.status_code == 200
        yield Web(url=url, client=client, csrf=csrf_of(page.text), tmp=tmp)
