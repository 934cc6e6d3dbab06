"""Drive the web page of a real `rein serve` in Debian's Chromium through Playwright's sync API.

    with running_server(tmp, args=["--cwd", str(project)]) as url, browser_page(tmp) as page:
        seed(url, "s1", cwd=project, messages=[user("hi"), assistant("hello")])
        page.goto(f"{url}/#/s/s1")
        shot(page, tmp, "web-session.png")       # into tmp, and into $REIN_SCREENSHOTS when set

Sessions are seeded through the protocol API (`/api/session/init` with `cwd`, then `tree/append`), as a
client would write them; the faux provider's replies come from a script file (`faux_script`).
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import count
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = (1280, 800)
PHONE = (390, 800)
SCREENSHOTS = "REIN_SCREENSHOTS"
STREAM_RULE = "no-console-log"
STEERING_RULE = "no-rm-rf"
_profiles = count()
_entries = count()


def require_chromium() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium package (.ci/run does)")


@contextmanager
def browser_page(tmp: Path, size: tuple[int, int] = DESKTOP) -> Iterator[Page]:
    """A page in headless Chromium with a fresh user-data dir under `tmp`; an uncaught error in the
    page's script fails the test when the block ends."""
    require_chromium()
    profile = tmp / f"chromium-profile-{next(_profiles)}"
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=LAUNCH_ARGS,
            viewport={"width": size[0], "height": size[1]},
        )
        try:
            context.set_default_timeout(15_000)
            page = context.pages[0] if context.pages else context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            yield page
            assert not errors, f"the page's script failed: {errors}"
        finally:
            context.close()


def shot(page: Page, tmp: Path, name: str) -> Path:
    """Save a PNG of the viewport into `tmp` (and into $REIN_SCREENSHOTS when it names a dir)."""
    path = tmp / name
    page.screenshot(path=str(path))
    target = os.environ.get(SCREENSHOTS)
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(target) / name)
    return path


def sel(name: str) -> str:
    return f'[data-testid="{name}"]'


def write_project(root: Path) -> Path:
    """A project directory with one stream rule (`console.log(` in prose) and one steering rule
    (`rm -rf` is blocked)."""
    rules = root / ".rein" / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / f"{STREAM_RULE}.md").write_text(
        "---\ncondition: console\\.log\\(\n---\nUse the logger from ./log.js, not console.log.\n",
        encoding="utf-8",
    )
    (root / ".rein" / "steering.toml").write_text(
        f'[[rule]]\nname = "{STEERING_RULE}"\ncommand = "rm"\npattern = "-rf"\n'
        'reason = "Deleting trees is not allowed here: move the files to ./trash instead."\n',
        encoding="utf-8",
    )
    return root


def faux_script(tmp: Path, replies: Sequence[object], *, delay: float = 0.0, chunk: int = 4) -> Path:
    """A `REIN_FAUX_SCRIPT` file (see rein.ai.providers.faux_script)."""
    path = tmp / f"faux-{next(_profiles)}.json"
    path.write_text(json.dumps({"delay": delay, "chunkSize": chunk, "replies": list(replies)}), "utf-8")
    return path


def _post(url: str, path: str, body: object, token: str | None) -> object:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(f"{url}{path}", json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        result: object = json.loads(answer.read())
        return result


def seed(
    url: str, sid: str, *, cwd: Path | None, messages: Sequence[dict[str, object]], token: str | None = None
) -> list[str]:
    """Create session `sid` in `cwd` holding `messages` as one linear branch; the entry ids."""
    init: dict[str, object] = {
        "sessionId": sid,
        "staticContext": {"systemPrompt": "You are a coding assistant.", "tools": []},
    }
    if cwd is not None:
        init["cwd"] = str(cwd)
    _post(url, "/api/session/init", init, token)
    entries: list[dict[str, object]] = []
    for message in messages:
        parent = entries[-1]["id"] if entries else None
        entries.append(
            {
                "type": "message",
                "id": f"m{next(_entries)}",
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": message,
            }
        )
    if entries:
        body = {"sessionId": sid, "entries": entries, "leafId": entries[-1]["id"]}
        _post(url, "/api/session/tree/append", body, token)
    return [str(e["id"]) for e in entries]


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text, "timestamp": 1_767_225_600_000}


def assistant(text: str, model: str = "faux-1") -> dict[str, object]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "faux",
        "provider": "faux",
        "model": model,
        "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15},
        "stopReason": "stop",
        "timestamp": 1_767_225_600_000,
    }
