"""What every host adapter shares (`rein.hooks._run`): of several calls in one request, a block wins
over an ask, whatever their order."""

from __future__ import annotations

from rein.hooks._run import Outcome, Request, act
from rein.steering import ToolCall
from tests.hooks.conftest import Dirs

ASKS = ToolCall(tool="bash", command="shipit prod", id="a")
BLOCKS = ToolCall(tool="bash", command="git reset --hard", id="b")
FINE = ToolCall(tool="bash", command="ls", id="c")


def decide(dirs: Dirs, *calls: ToolCall) -> Outcome:
    request = Request(session="s1", cwd=str(dirs.project), calls=calls)
    return act("codex", "before", request, dirs.home, [])


def test_a_block_wins_over_an_ask_in_either_order(asking: Dirs) -> None:
    for calls in ((ASKS, BLOCKS), (BLOCKS, ASKS)):
        outcome = decide(asking, *calls)
        assert outcome.block and not outcome.ask
        assert outcome.reason.startswith("[steering:no-reset-hard@defaults]")


def test_an_ask_among_allowed_calls_asks_and_still_blocks_for_hosts_that_read_only_block(
    asking: Dirs,
) -> None:
    outcome = decide(asking, FINE, ASKS, FINE)
    assert outcome.block and outcome.ask and not outcome.failed
    assert outcome.reason.startswith("[steering:ask-to-ship@user]")
    assert decide(asking, FINE) == Outcome()
