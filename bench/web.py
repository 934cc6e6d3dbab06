"""Benchmark the web page of `rein serve` in a real browser: `python -m bench.web`.

Starts `rein serve` on a temporary SQLite file, writes a 10,000-entry session through the protocol
API (`tree/append` in batches of 500: user prompts, assistant replies with a bash call, tool results,
300 to 600 bytes each, as bench/server.py writes them; four side branches and five labels) and a
100-entry one for contrast, then loads `#/s/<id>` in headless Chromium (Debian's /usr/bin/chromium,
driven by Playwright) five times each. Time to first render is navigation start to the conversation
having its entries (`performance.now()` once `[data-testid=conversation] article` exists); the tree and
rules rows are a tab click to its content. Prints the median and the maximum; the target is < 1 s.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page
from tests.server.helpers import running_server
from tests.server.web.browser import CHROMIUM, browser_page, write_project

from bench.server import CONTEXT, entry

LOADS = 5
BATCH = 500
TARGET_MS = 1000.0
SIZES = (("big", 10_000), ("small", 100))
FORKS = (2_000, 4_000, 6_000, 8_000)
FORK_LENGTH = 6
SERVE_ARGS = ("--rate-per-minute", "0")


@dataclass(frozen=True, slots=True)
class Row:
    session: str
    entries: int
    view: str
    samples: list[float]


def _post(url: str, path: str, body: object) -> None:
    data = json.dumps(body).encode()
    request = urllib.request.Request(
        f"{url}{path}", data, {"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"{path}: {error.code} {error.read()[:300]!r}") from None


def _label(n: int, parent: str, target: str) -> dict[str, object]:
    return {
        "type": "label", "id": f"label{n}", "parentId": parent, "targetId": target,
        "label": f"checkpoint {n // 1000}", "timestamp": "2026-01-01T00:00:00.000Z",
    }  # fmt: skip


def session_entries(count: int) -> list[dict[str, object]]:
    """A main branch of `count` entries (a label every 2,000), plus side branches off it."""
    rng = random.Random(count)
    entries: list[dict[str, object]] = []
    parent: str | None = None
    for n in range(count):
        item = _label(n, str(parent), str(parent)) if n % 2000 == 1000 else entry(rng, n, parent)
        entries.append(item)
        parent = str(item["id"])
        if n in FORKS:  # a retried turn: a short branch left behind
            side = parent
            for k in range(FORK_LENGTH):
                branch = entry(rng, 3 * k, side, prefix=f"fork{n}-")
                entries.append(branch)
                side = str(branch["id"])
    return entries


def create(url: str, sid: str, cwd: Path, count: int) -> int:
    _post(url, "/api/session/init", {"sessionId": sid, "staticContext": CONTEXT, "cwd": str(cwd)})
    entries = session_entries(count)
    for start in range(0, len(entries), BATCH):
        batch = entries[start : start + BATCH]
        leaf = next(str(e["id"]) for e in reversed(batch) if not str(e["id"]).startswith("fork"))
        _post(url, "/api/session/tree/append", {"sessionId": sid, "entries": batch, "leafId": leaf})
    return len(entries)


def _clicked(page: Page, tab: str, ready: str) -> float:
    started = float(page.evaluate("performance.now()"))
    page.click(f'[data-testid="{tab}"]')
    page.wait_for_selector(ready)
    return float(page.evaluate("performance.now()")) - started


def measure(page: Page, url: str, sid: str) -> dict[str, list[float]]:
    views: dict[str, list[float]] = {"conversation": [], "tree": [], "rules": []}
    tabs: dict[str, Callable[[], float]] = {
        "tree": lambda: _clicked(page, "tab-tree", '[data-testid="tree"] li'),
        "rules": lambda: _clicked(page, "tab-rules", '[data-testid="rules"] h2'),
    }
    for _ in range(LOADS):
        page.goto("about:blank")
        page.goto(f"{url}/#/s/{sid}")
        page.wait_for_selector('[data-testid="conversation"] article')
        views["conversation"].append(float(page.evaluate("performance.now()")))
        for name, run in tabs.items():
            views[name].append(run())
    return views


def main() -> int:
    if not CHROMIUM.exists():
        print(f"web page: skipped, {CHROMIUM} is missing (install Debian's chromium)")
        return 0
    started = time.perf_counter()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        project = write_project(tmp / "project")
        with running_server(tmp, args=SERVE_ARGS) as url, browser_page(tmp) as page:
            for name, count in SIZES:
                total = create(url, name, project, count)
                for view, samples in measure(page, url, name).items():
                    rows.append(Row(name, total, view, samples))
    print(
        f"web page: time to first render in headless Chromium, {LOADS} loads, Python {sys.version.split()[0]}"
    )
    print(
        "{:<8} {:>8} {:<14} {:>10} {:>8} {:>7}".format(
            "session", "entries", "view", "median ms", "max ms", "< 1 s"
        )
    )
    for row in rows:
        median, worst = statistics.median(row.samples), max(row.samples)
        verdict = "yes" if worst < TARGET_MS else "NO"
        print(f"{row.session:<8} {row.entries:>8,} {row.view:<14} {median:>10.0f} {worst:>8.0f} {verdict:>7}")
    print("conversation: navigation start to the entries shown; tree, rules: tab click to the content")
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
