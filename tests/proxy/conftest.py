"""Run the real `rein proxy` as a subprocess, as a user does, in front of a test upstream.

    async with start_proxy(server.url, tmp_path, rules={"no-foo": RULE}) as proxy:
        client = AsyncOpenAI(base_url=f"{proxy.url}/v1", api_key="k")

The proxy runs in `tmp_path/project` with HOME `tmp_path/home`; `rules` become `.rein/rules/<name>.md`
there (none: only rein's built-in rules). Its stderr (the start lines and one JSON line per request
and firing) goes to a file: `proxy.log()` reads it, `proxy.records()` parses the JSON lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rein.ai import JsonValue
from rein.ai.testing import SseServer
from tests.cli.helpers import rein_env

RULE = "---\ncondition: forbidden\n---\nNever write the word. Answer without it.\n"
"""A rule the scripted replies break in prose."""
RM = "---\ncondition: 'rm -rf'\n---\nDo not delete recursively; list the files instead.\n"
"""A rule the scripted replies break in a tool call."""
LISTENING = re.compile(r"rein proxy listening on (http://\S+) ")
STARTUP_SECONDS = 20.0


@dataclass(frozen=True, slots=True)
class RunningProxy:
    process: subprocess.Popen[bytes]
    url: str
    """The proxy's origin, e.g. http://127.0.0.1:41234 (add /v1 for an OpenAI SDK's base URL)."""
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def records(self, event: str | None = None) -> list[dict[str, JsonValue]]:
        """The JSON lines of the log (`event` given: only those)."""
        out: list[dict[str, JsonValue]] = []
        for line in self.log().splitlines():
            if line.startswith("{"):
                record = json.loads(line)
                if event is None or record.get("event") == event:
                    out.append(record)
        return out

    def status(self) -> dict[str, JsonValue]:
        with urllib.request.urlopen(f"{self.url}/rein/status", timeout=5) as response:
            data: dict[str, JsonValue] = json.loads(response.read())
        return data


@contextlib.asynccontextmanager
async def start_proxy(
    upstream: str,
    tmp_path: Path,
    *,
    rules: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
) -> AsyncIterator[RunningProxy]:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".rein" / "rules").mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    for name, text in (rules or {}).items():
        (project / ".rein" / "rules" / f"{name}.md").write_text(text, encoding="utf-8")
    log_path = tmp_path / "proxy.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "rein.cli", "proxy", "--upstream", upstream, "--port", "0", *args],
            cwd=project,
            env=rein_env(home),
            stdout=log,
            stderr=log,
        )
    try:
        url = await _wait_listening(process, log_path)
        yield RunningProxy(process, url, log_path)
    finally:
        process.terminate()
        try:
            await asyncio.to_thread(process.wait, 10)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait)


def sent_list(server: SseServer, attempt: int, key: str) -> list[JsonValue]:
    """The list `key` (`messages`, `input`) of the request upstream received for `attempt` (0: first)."""
    body = server.requests[attempt].body
    assert isinstance(body, dict)
    found = body[key]
    assert isinstance(found, list)
    return found


async def _wait_listening(process: subprocess.Popen[bytes], log_path: Path) -> str:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        found = LISTENING.search(log_path.read_text(encoding="utf-8", errors="replace"))
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise RuntimeError(f"rein proxy exited {process.returncode}: {log_path.read_text()}")
        await asyncio.sleep(0.02)
    raise TimeoutError(f"rein proxy did not start: {log_path.read_text()}")
