"""The screen with scripted model replies (the local SSE server, through the real OpenAI SDK): the
reply streams in place, thinking and tool calls fold, Esc and Ctrl-C abort a reply and keep what was
typed ahead, approvals ask, a stream-rule cut is a notice, the status line stays live."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rein.ai.testing import Reply, openai_http_error
from tests.tui.sse_thread import ServerThread, slow_text, text, thinking_then_text, tool_call
from tests.tui.tmux_driver import Pane, rein_in_tmux

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("tmux")]

IDLE = "Tab completes"
BUSY = "Esc aborts | Enter queues"


@contextlib.contextmanager
def session(
    project: tuple[Path, Path], *replies: Reply, args: tuple[str, ...] = ()
) -> Iterator[tuple[Pane, ServerThread]]:
    cwd, home = project
    with ServerThread(*replies) as server:
        env = {"OPENAI_API_KEY": "test"}
        with rein_in_tmux(*server.args(), *args, cwd=cwd, home=home, env=env) as pane:
            pane.wait_for(IDLE)
            yield pane, server


def editor_line(screen: str) -> str:
    lines = screen.splitlines()
    marks = [i for i, line in enumerate(lines) if line.startswith("-----")]
    return lines[marks[-1] + 1] if marks and marks[-1] + 1 < len(lines) else ""


def status_line(screen: str) -> str:
    return next((line for line in screen.splitlines() if line.startswith("openai/test-model")), "")


def test_the_reply_streams_in_place(project: tuple[Path, Path]) -> None:
    words = " ".join(f"word{i}" for i in range(20))
    with session(project, slow_text(words, pause=0.1, chunk=8)) as (pane, _):
        pane.type("talk")
        pane.send("Enter")
        partial = pane.wait_for(lambda s: "word3" in s and BUSY in s)
        assert "word19" not in partial  # seen while it streams, not all at once
        done = pane.wait_for(lambda s: "word19" in s and IDLE in s)
        assert "[aborted]" not in done and "[error]" not in done
        assert re.search(r"openai/test-model \| 30 tokens \| 0 rule firings", done)


def test_thinking_and_a_tool_call_are_folded(project: tuple[Path, Path]) -> None:
    call = tool_call("bash", json.dumps({"command": "seq 1 12"}), before="Let me count.")
    after = thinking_then_text("I should check the numbers first.\nThey look fine.", "Twelve numbers.")
    with session(project, call, after) as (pane, server):
        pane.type("count")
        pane.send("Enter")
        pane.wait_for("Esc dismisses")  # the menu takes keys
        pane.send("1")
        screen = pane.wait_for(lambda s: "Twelve numbers." in s and IDLE in s)
        assert "[bash] seq 1 12\n  1\n  2\n  3\n  4\n  ... 8 more lines" in screen
        assert "[thinking] I should check the numbers first. ..." in screen
        assert "They look fine." not in screen  # folded to its first line
        results = server.tool_results(1)
        assert results and "12" in results[0]


def test_esc_aborts_a_slow_reply_and_keeps_the_text_typed_ahead(project: tuple[Path, Path]) -> None:
    slow = slow_text("one two three four five six seven eight nine ten " * 5, pause=0.2)
    with session(project, slow, text("second answer")) as (pane, server):
        pane.type("first")
        pane.send("Enter")
        pane.wait_for(lambda s: "one two" in s and BUSY in s)
        pane.type("typed while it streams")
        pane.wait_for(lambda s: editor_line(s) == "> typed while it streams")
        pane.send("Escape")
        screen = pane.wait_for(lambda s: "[aborted]" in s and IDLE in s)
        assert editor_line(screen) == "> typed while it streams"
        assert "Traceback" not in pane.history()
        pane.send("Enter")
        pane.wait_for("second answer")
        assert server.messages(-1)[-1]["content"] == "typed while it streams"


def test_ctrl_c_aborts_a_reply_without_a_traceback(project: tuple[Path, Path]) -> None:
    slow = slow_text("alpha beta gamma delta epsilon " * 10, pause=0.2)
    with session(project, slow, text("still here")) as (pane, _):
        pane.type("go")
        pane.send("Enter")
        pane.wait_for(lambda s: "alpha" in s and BUSY in s)
        pane.send("C-c")
        pane.wait_for(lambda s: "[aborted]" in s and IDLE in s)
        pane.type("again")
        pane.send("Enter")
        pane.wait_for("still here")
        pane.send("C-d")
        assert pane.wait_exit() == 0
        assert "Traceback" not in pane.history()


def test_a_prompt_sent_during_a_reply_is_queued(project: tuple[Path, Path]) -> None:
    slow = slow_text("a b c d e f g h i j k l m n o p", pause=0.15, chunk=2)
    with session(project, slow, text("queued answer")) as (pane, _):
        pane.type("first")
        pane.send("Enter")
        pane.wait_for(lambda s: BUSY in s)
        pane.type("next one")
        pane.send("Enter")
        pane.wait_for("queued: next one")
        screen = pane.wait_for(lambda s: "queued answer" in s and IDLE in s)
        assert screen.index("o p") < screen.index("> next one") < screen.index("queued answer")


def test_approval_denied_with_a_reason(project: tuple[Path, Path]) -> None:
    call = tool_call("bash", json.dumps({"command": "rm -rf build"}))
    with session(project, call, text("Understood, I will not.")) as (pane, server):
        pane.type("clean up")
        pane.send("Enter")
        menu = pane.wait_for("Esc dismisses")
        assert "Allow the agent to run: rm -rf build?" in menu
        assert "> 1. Allow once" in menu and "  4. Deny" in menu
        pane.send("Down", "Down", "Down")
        pane.wait_for("> 4. Deny")
        pane.send("Enter")
        pane.wait_for("Why deny this bash call?")
        pane.type("not on this branch")
        pane.send("Enter")
        screen = pane.wait_for(lambda s: "Understood, I will not." in s and IDLE in s)
        assert "Allow the agent to run: rm -rf build? Deny" in screen
        assert "not on this branch" in screen
        assert "not on this branch" in server.tool_results(1)[0]


def test_the_status_line_counts_down_during_a_reply(project: tuple[Path, Path]) -> None:
    slow = slow_text("tick " * 40, pause=0.15, chunk=5)
    with session(project, slow) as (pane, _):
        pane.type("/timebox 30m")
        pane.send("Enter")
        pane.wait_for(lambda s: "Timebox:" in status_line(s))
        pane.type("work")
        pane.send("Enter")
        first = status_line(pane.wait_for(lambda s: BUSY in s and "Timebox:" in status_line(s)))
        later = status_line(
            pane.wait_for(lambda s: BUSY in s and status_line(s) != first and "Timebox:" in status_line(s))
        )
        assert re.search(r"Timebox: 29m \d+s left", first) and re.search(r"Timebox: 29m \d+s left", later)


def test_a_stream_rule_cut_is_a_notice(project: tuple[Path, Path]) -> None:
    cwd, _ = project
    rules = cwd / ".rein" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-console.md").write_text("---\ncondition: 'console\\.log\\('\n---\nUse the logger.\n")
    with session(project, text("function f() { console.log(x) }"), text("log.info(x)")) as (pane, _):
        pane.type("write f")
        pane.send("Enter")
        screen = pane.wait_for(lambda s: "log.info(x)" in s and IDLE in s)
        assert "[cut] stream rule: no-console: the reply is dropped and retried" in screen
        assert "1 rule firing" in status_line(screen)
        assert "[error]" not in screen and "[aborted]" not in screen


def test_a_failed_reply_is_one_red_line(project: tuple[Path, Path]) -> None:
    failure = openai_http_error(400, "the model does not exist")
    with session(project, failure, text("fine now")) as (pane, _):
        pane.type("hi")
        pane.send("Enter")
        screen = pane.wait_for(lambda s: "[error]" in s and IDLE in s)
        errors = [line for line in screen.splitlines() if "[error]" in line]
        assert len(errors) == 1 and "the model does not exist" in errors[0]
        pane.type("again")
        pane.send("Enter")
        pane.wait_for("fine now")
