"""A steering rule that asks (`verdict = "ask"`), inside a session: the person is asked through the UI's
`select` ("Allow once" or "Deny"); no answer blocks with the rule's reason; a yes is not asked again by
approval; `/steering` lists what the person answered."""

from __future__ import annotations

import asyncio

import pytest

from rein.ai import TextContent, ToolCall, ToolResultMessage
from rein.builtins.approval import ALLOW_ONCE, ALLOW_SESSION, DENY, PROJECT_OPTIONS, ApproveMode
from rein.builtins.steering import ASK_OPTIONS
from tests.builtins.conftest import Harness, MakeHarness

ASK = """
[[rule]]
name = "ask-to-ship"
reason = "Shipping needs the user's yes."
command = "touch"
args = ["shipped"]
verdict = "ask"
"""
TAG = "[steering:ask-to-ship@user] Shipping needs the user's yes."


def bash(id: str, command: str) -> ToolCall:
    return ToolCall(id=id, name="bash", arguments={"command": command})


def asking(
    harness: MakeHarness, *calls: ToolCall, approve: ApproveMode = "auto", interactive: bool = True
) -> Harness:
    h = harness(
        [*([call] for call in calls), [TextContent(text="ok")]], approve=approve, interactive=interactive
    )
    (h.project / ".rein").mkdir()
    (h.project / ".rein" / "steering.toml").write_text(ASK)
    return h


def run(h: Harness, *prompts: str) -> list[ToolResultMessage]:
    async def go() -> None:
        await h.session.start()
        for prompt in prompts:
            await h.session.prompt(prompt)

    asyncio.run(go())
    return [m for m in h.session.messages if isinstance(m, ToolResultMessage)]


def decisions(h: Harness) -> list[str]:
    """The `/steering` lines of the latest decisions, below their headings."""
    before = len(h.ui.notices)
    asyncio.run(h.session.prompt("/steering"))
    (text,) = [message for message, _ in h.ui.notices[before:]]
    lines = text.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("latest decisions")))
    assert lines[start + 1].split() == ["steering", "outcome", "tool", "call", "rule"]
    return lines[start + 2 :]


def test_allow_once_runs_the_call(harness: MakeHarness) -> None:
    h = asking(harness, bash("1", "touch shipped"))
    h.ui.answers = [ALLOW_ONCE]
    (result,) = run(h, "ship")
    assert (h.project / "shipped").exists() and not result.is_error
    ((title, options),) = h.ui.asked
    assert options == ASK_OPTIONS == (ALLOW_ONCE, DENY)
    assert title.startswith(TAG) and title.endswith("\nAllow the agent to run: touch shipped?")
    assert [line.split() for line in decisions(h)] == [
        ["ask", "approved", "by", "you", "bash", "touch", "shipped", "ask-to-ship@user"]
    ]


def test_deny_blocks_with_the_reason_and_the_persons_words(harness: MakeHarness) -> None:
    h = asking(harness, bash("1", "touch shipped"))
    h.ui.answers = [DENY, "not on a Friday"]
    (result,) = run(h, "ship")
    assert not (h.project / "shipped").exists() and result.is_error
    assert result.text.startswith(TAG)
    assert result.text.endswith("Not run: the user was asked and denied it. Their reason: not on a Friday")
    assert decisions(h)[0].split()[:4] == ["ask", "denied", "by", "you"]


@pytest.mark.parametrize("interactive", [False, True], ids=["print-mode", "dismissed"])
def test_with_nobody_to_answer_the_call_is_blocked_with_the_reason(
    harness: MakeHarness, interactive: bool
) -> None:
    """Print and JSON modes' UI answers every question with None, as a dismissed question does."""
    h = asking(harness, bash("1", "touch shipped"), interactive=interactive)
    (result,) = run(h, "ship")  # the recording UI has no answers: `select` says None
    assert not (h.project / "shipped").exists() and result.is_error
    assert result.text.startswith(TAG) and result.text.count("[steering:") == 1
    if interactive:
        assert "Not run: the question was dismissed, so nobody approved it" in result.text
        assert decisions(h)[0].split()[:2] == ["ask", "dismissed"]
    else:
        assert "Not run: nobody could answer here (print and JSON modes never ask)" in result.text
        assert decisions(h)[0].split()[:2] == ["ask", "blocked"]


def test_a_yes_is_not_asked_again_by_approval_but_the_next_call_is(harness: MakeHarness) -> None:
    h = asking(harness, bash("1", "touch shipped"), bash("2", "touch other"), approve="ask")
    h.ui.answers = [ALLOW_ONCE, DENY, ""]
    first, second = run(h, "ship", "other")
    assert [options for _, options in h.ui.asked] == [ASK_OPTIONS, PROJECT_OPTIONS, ()]
    assert (h.project / "shipped").exists() and not first.is_error
    assert not (h.project / "other").exists() and second.text.startswith("[approval] not run")


def test_a_call_steering_blocks_outright_is_never_asked_about(harness: MakeHarness) -> None:
    h = asking(harness, bash("1", "touch shipped && git push --force origin main"), approve="ask")
    h.ui.answers = [ALLOW_SESSION]
    (result,) = run(h, "ship")
    assert h.ui.asked == [] and "[steering:no-force-push@defaults]" in result.text
    assert not (h.project / "shipped").exists()


def test_with_approval_set_to_deny_nobody_is_asked(harness: MakeHarness) -> None:
    h = asking(harness, bash("1", "touch shipped"), approve="deny")
    h.ui.answers = [ALLOW_ONCE]
    (result,) = run(h, "ship")
    assert h.ui.asked == [] and not (h.project / "shipped").exists()
    assert result.text.startswith(TAG) and result.text.endswith("approve is set to deny, so nobody is asked.")
    assert decisions(h)[0].split()[:2] == ["block", "blocked"]
