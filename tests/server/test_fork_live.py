"""The pi-server fork's own client code against `rein serve`: `tests/server/fork/drive.ts` drives its
session through the fork's unmodified `pi-server-client.ts`, `pi-server-request.ts` and pi-client's
`send.js`, run from a checkout of the fork with its own tsx, and each step must go as it went against
the fork's server (the `client` steps of `compat/recorded/client-session.json`): the same requests
with the same statuses, the same outcome, the client's own `hashPiServerSessionEntries` of its
entries equal to the treeHash rein answered, and the same model calls (model, token limit,
temperature, reasoning effort) in the same order.

Optional: it runs when REIN_PI_FORK names a checkout of the fork with `npm ci --ignore-scripts` done
(REIN_PI_NODE may name a directory holding the node binary to use). CI replays the recorded
exchanges instead (`test_recorded.py`), which needs no node.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.server.compat._choices import upstream_fields
from tests.server.compat._recorded import RECORDED
from tests.server.compat._replayer import rein_server
from tests.server.fork.recorder import TOKEN, run_drive
from tests.server.fork.upstream import Upstream

FORK = os.environ.get("REIN_PI_FORK", "")
SAME = ("ok", "status", "events", "reconciled", "stopReason", "text", "firstKeptEntryId", "kept")
"""What a step saw that must be as on the fork; error wording, hashes and paths may differ."""
TRUE = ("hashesMatch", "serverOwnHash", "sameEntries", "patched")
"""What must hold whenever the fork's step reported it."""


def _missing() -> str | None:
    if not FORK:
        return (
            "REIN_PI_FORK is not set: name a checkout of the pi-server fork (Averyyy/pi-client, "
            "`npm ci --ignore-scripts` done) to run its own client against rein serve"
        )
    if not (Path(FORK) / "node_modules" / ".bin" / "tsx").exists():
        return f"REIN_PI_FORK={FORK} has no node_modules/.bin/tsx: run `npm ci --ignore-scripts` there"
    return None


MISSING = _missing()


@pytest.mark.slow
@pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
def test_the_fork_client_against_rein(tmp_path: Path) -> None:
    recorded = json.loads((RECORDED / "client-session.json").read_text(encoding="utf-8"))
    scratch = tmp_path / "drive"
    scratch.mkdir()
    with Upstream() as upstream, rein_server(tmp_path / "rein", upstream.base_url, TOKEN) as served:
        calls = StepCalls(upstream)
        live = run_drive(Path(FORK), served.url, upstream.base_url, served.restart, scratch, calls.start)
        calls.start("")
    steps = live["steps"]
    assert isinstance(steps, list)
    problems = step_differences(recorded["client"]["steps"], steps)
    fork_calls: dict[str, list[object]] = {}
    compactions: set[str] = set()
    for exchange in recorded["exchanges"]:
        fork_calls.setdefault(exchange["name"], []).extend(exchange.get("upstream", []))
        if str(exchange.get("request", {}).get("path", "")).endswith("/compact"):
            compactions.add(exchange["name"])
    for step, theirs in fork_calls.items():  # the token limit under one name: rein's choice (`_choices`)
        ours, compaction = calls.by_step.get(step, []), step in compactions
        if step != "restart" and upstream_fields(ours, compaction) != upstream_fields(theirs, compaction):
            problems.append(f"{step}: the model calls {ours}, on the fork {theirs}")
    assert not problems, f"{len(problems)} steps went otherwise than on the fork:\n" + "\n".join(problems)


class StepCalls:
    """The fields of the model calls the upstream got, by the drive's step that made them."""

    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream
        self.step = ""
        self.by_step: dict[str, list[object]] = {}

    def start(self, name: str) -> None:
        """`name` starts (the previous step is over); "" at the end."""
        if self.step:
            self.by_step.setdefault(self.step, []).extend(self.upstream.take())
        self.step = name


def step_differences(fork: list[dict[str, object]], rein: list[dict[str, object]]) -> list[str]:
    names = [step["name"] for step in fork]
    if names != [step["name"] for step in rein]:
        return [f"the steps ran were {[step['name'] for step in rein]}, on the fork {names}"]
    problems = []
    for theirs, ours in zip(fork, rein, strict=True):
        where = str(theirs["name"])
        if ours["exchanges"] != theirs["exchanges"]:
            problems.append(f"{where}: exchanges {ours['exchanges']}, on the fork {theirs['exchanges']}")
        problems.extend(
            f"{where}: {key} {ours.get(key)!r}, on the fork {theirs[key]!r}"
            for key in SAME
            if key in theirs and ours.get(key) != theirs[key]
        )
        problems.extend(
            f"{where}: {key} is {ours.get(key)!r}"
            for key in TRUE
            if theirs.get(key) and ours.get(key) is not True
        )
        if theirs["ok"] and not ours["ok"]:
            problems.append(f"{where}: failed: {ours.get('error')}")
    return problems
