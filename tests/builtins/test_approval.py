"""Approval of the tool calls that change things, in a session on the faux provider: the person's
answers are scripted on the recording UI."""

from __future__ import annotations

import asyncio

import pytest

from rein.agent import Block, ToolCallInfo
from rein.ai import AssistantMessage, Context, Model, TextContent, ToolCall, ToolResultMessage
from rein.ai.providers.faux import FauxTurn
from rein.builtins.approval import (
    ALLOW_ONCE,
    ALLOW_SESSION,
    DENY,
    PROJECT_OPTIONS,
    ApprovalExtension,
    ApproveMode,
    programs,
)
from rein.extensions import ExtensionContext, ToolCallEvent
from tests.builtins.conftest import Harness, MakeHarness


def bash(id: str, command: str) -> ToolCall:
    return ToolCall(id=id, name="bash", arguments={"command": command})


def write(id: str, path: str, content: str = "x\n") -> ToolCall:
    return ToolCall(id=id, name="write", arguments={"path": path, "content": content})


def results(h: Harness) -> list[ToolResultMessage]:
    return [m for m in h.session.messages if isinstance(m, ToolResultMessage)]


def run(h: Harness, *prompts: str) -> None:
    async def go() -> None:
        await h.session.start()
        for prompt in prompts:
            await h.session.prompt(prompt)

    asyncio.run(go())


def test_allow_once_runs_the_call_and_the_next_one_asks_again(harness: MakeHarness) -> None:
    h = harness(
        [
            [bash("1", "touch one")],
            [TextContent(text="ok")],
            [bash("2", "touch two")],
            [TextContent(text="ok")],
        ],
        approve="ask",
    )
    h.ui.answers = [ALLOW_ONCE]
    run(h, "make one", "make two")
    assert (h.project / "one").exists() and not (h.project / "two").exists()
    assert [options for _, options in h.ui.asked] == [PROJECT_OPTIONS, PROJECT_OPTIONS]
    assert h.ui.asked[0][0].startswith("Allow the agent to run: touch one?")
    assert not results(h)[0].is_error and results(h)[1].is_error


def test_allow_for_the_session_remembers_the_programs_of_the_command(harness: MakeHarness) -> None:
    h = harness(
        [
            [bash("1", "touch a && mkdir d")],
            [bash("2", "mkdir e; touch b")],  # only remembered programs: not asked
            [bash("3", "cp a c")],  # cp was never allowed: asked (and nobody answers)
            [TextContent(text="done")],
        ],
        approve="ask",
    )
    h.ui.answers = [ALLOW_SESSION]
    run(h, "go")
    assert len(h.ui.asked) == 2
    assert "run only: touch, mkdir" in h.ui.asked[0][0] and "cp a c" in h.ui.asked[1][0]
    assert all((h.project / name).exists() for name in ("a", "b", "d", "e"))
    assert not (h.project / "c").exists()


def test_a_command_whose_program_is_not_known_is_never_remembered(harness: MakeHarness) -> None:
    # Steering blocks such a command before approval sees it; approval stays safe on its own.
    h = harness([])
    approval = ApprovalExtension(
        h.session.api("approval-alone"), h.session, mode="ask", interactive=True, home=str(h.home)
    )
    context = ExtensionContext(ui=h.ui, session=h.session, abort=lambda: None)
    event = ToolCallEvent(info=ToolCallInfo(call=bash("1", 'touch a; "$MAKER" b'), tool=None))
    h.ui.answers = [ALLOW_SESSION, ALLOW_SESSION]

    async def twice() -> list[Block | None]:
        return [await approval.on_tool_call(event, context), await approval.on_tool_call(event, context)]

    assert asyncio.run(twice()) == [None, None]
    assert len(h.ui.asked) == 2 and "allows later commands" not in h.ui.asked[0][0]
    assert approval.programs == set()
    message = "approval: which programs this command runs is not known; it was allowed once"
    assert h.ui.notices == [(message, "info"), (message, "info")]


def test_write_and_edit_are_remembered_by_tool_and_asked_one_at_a_time(harness: MakeHarness) -> None:
    edit = ToolCall(id="3", name="edit", arguments={"path": "a.txt", "old_string": "x", "new_string": "y"})
    # Two writes to different files run in parallel: the second waits for the first question.
    h = harness([[write("1", "a.txt"), write("2", "b.txt")], [edit], [TextContent(text="ok")]], approve="ask")
    h.ui.answers = [ALLOW_SESSION, ALLOW_ONCE]
    run(h, "go")
    assert [title.splitlines()[:2] for title, _ in h.ui.asked] == [
        ["Allow the agent to write a.txt?", f"{ALLOW_SESSION} allows every later write call"],
        ["Allow the agent to edit a.txt?", f"{ALLOW_SESSION} allows every later edit call"],
    ]
    assert (h.project / "a.txt").read_text() == "y\n" and (h.project / "b.txt").exists()


def test_deny_sends_the_persons_reason_to_the_model(harness: MakeHarness) -> None:
    def answer(context: Context) -> FauxTurn:
        last = context.messages[-1]
        assert isinstance(last, ToolResultMessage)
        return [TextContent(text=f"I read: {last.text}")]

    h = harness([[bash("1", "touch x")], answer], approve="ask")
    h.ui.answers = [DENY, "  use the Makefile  "]
    run(h, "go")
    assert not (h.project / "x").exists()
    assert h.ui.asked[1] == ("Why deny this bash call? (the model reads it)", ())
    (result,) = results(h)
    assert result.is_error
    assert result.text == "[approval] not run: the user denied this bash call. Their reason: use the Makefile"
    reply = h.session.messages[-1]
    assert isinstance(reply, AssistantMessage) and reply.text == f"I read: {result.text}"


def test_deny_without_a_reason(harness: MakeHarness) -> None:
    h = harness([[bash("1", "touch x")], [TextContent(text="ok")]], approve="ask")
    h.ui.answers = [DENY, ""]
    run(h, "go")
    assert results(h)[0].text == "[approval] not run: the user denied this bash call."


def test_a_call_steering_blocks_is_never_asked_about(harness: MakeHarness) -> None:
    h = harness([[bash("1", "git push --force origin main")], [TextContent(text="ok")]], approve="ask")
    h.ui.answers = [ALLOW_ONCE]
    run(h, "push")
    assert h.ui.asked == []
    assert "[steering:no-force-push@defaults]" in results(h)[0].text


def test_with_nobody_to_ask_the_call_is_denied_and_the_reason_says_how_to_allow(
    harness: MakeHarness,
) -> None:
    h = harness([[bash("1", "touch x")], [TextContent(text="ok")]], approve="ask", interactive=False)
    run(h, "go")
    assert not (h.project / "x").exists() and h.ui.asked == []
    text = results(h)[0].text
    assert text.startswith("[approval] not run: this bash call needs approval and nobody approved it")
    assert '--approve auto or set approve = "auto" in the [rein] group of .rein/settings.toml' in text


def test_a_dismissed_question_says_so_and_suggests_no_setting(harness: MakeHarness) -> None:
    h = harness([[bash("1", "touch x")], [TextContent(text="ok")]], approve="ask")
    run(h, "go")  # the recording UI has no answers: `select` says None, as Esc on the question does
    assert not (h.project / "x").exists() and len(h.ui.asked) == 1
    text = results(h)[0].text
    assert text.startswith("[approval] not run: the approval question for this bash call was dismissed")
    assert "Take that as a denial" in text and "--approve" not in text and "print" not in text


def test_auto_runs_without_asking_and_deny_blocks_without_asking(harness: MakeHarness) -> None:
    h = harness([[bash("1", "touch x")], [TextContent(text="ok")]], approve="auto")
    run(h, "go")
    assert (h.project / "x").exists() and h.ui.asked == []

    h = harness([[bash("1", "touch y"), write("2", "z")], [TextContent(text="ok")]], approve="deny")
    run(h, "go")
    assert not (h.project / "y").exists() and not (h.project / "z").exists() and h.ui.asked == []
    assert all(r.text.startswith("[approval] not run: approve is set to deny;") for r in results(h))


def test_read_only_tools_never_ask(harness: MakeHarness) -> None:
    calls = [
        ToolCall(id="1", name="read", arguments={"path": "f.txt"}),
        ToolCall(id="2", name="ls", arguments={}),
        ToolCall(id="3", name="grep", arguments={"pattern": "hi"}),
        ToolCall(id="4", name="find", arguments={"pattern": "*.txt"}),
    ]
    h = harness([calls, [TextContent(text="ok")]], approve="ask", interactive=False)
    (h.project / "f.txt").write_text("hi\n")
    run(h, "look")
    assert h.ui.asked == [] and not any(r.is_error for r in results(h))


def test_the_mode_comes_from_settings_and_a_bad_value_denies(harness: MakeHarness) -> None:
    h = harness(
        [[bash("1", "touch x")], [TextContent(text="ok")]],
        approve=None,
        settings={"rein": {"approve": "auto"}},
    )
    run(h, "go")
    assert (h.project / "x").exists()

    h = harness(
        [[bash("1", "touch y")], [TextContent(text="ok")]],
        approve=None,
        settings={"rein": {"approve": "yes"}},
    )
    run(h, "go")
    assert not (h.project / "y").exists() and h.ui.asked == []
    said = (
        "settings: [rein] approve = 'yes' is not one of ask, auto, deny; bash, write, edit and MCP tool calls"
    )
    assert (f"{said} are denied", "error") in h.ui.notices

    h = harness([[bash("1", "touch z")], [TextContent(text="ok")]], approve=None, interactive=False)
    run(h, "go")  # no setting, no option: ask, and nobody is there
    assert not (h.project / "z").exists()


@pytest.mark.parametrize(
    ("approve", "interactive", "says"),
    [
        ("ask", True, "{may}; each such call asks you first (approve: ask)."),
        (
            "ask",
            False,
            "{may}; nobody is asked here, so those calls are denied unless you pass --approve auto.",
        ),
        ("auto", False, "{may} without asking you (approve: auto)."),
        (
            "deny",
            True,
            "The local model may read files in {cwd}; its bash, write, edit and MCP tool calls are"
            " denied (approve: deny).",
        ),
    ],
)
def test_the_local_model_says_what_it_may_do(
    harness: MakeHarness, approve: ApproveMode, interactive: bool, says: str
) -> None:
    h = harness(
        [[TextContent(text="hi")]],
        approve=approve,
        interactive=interactive,
        model=Model(provider="local", id="smollm2"),
    )
    run(h)
    may = f"The local model may run bash, write and edit files and call MCP tools in {h.project}"
    assert [message for message, _ in h.ui.notices] == [says.format(may=may, cwd=h.project)]


def test_other_models_say_nothing_at_start(harness: MakeHarness) -> None:
    h = harness([[TextContent(text="hi")]], approve="ask")
    run(h)
    assert h.ui.notices == []


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status && rm -rf build", ("git", "rm")),
        ("sudo rm x", ("sudo", "rm")),
        ("FOO=1 make test | tee log", ("make", "tee")),
        ("bash -c 'ls; cat a'", ("bash", "ls", "cat")),
        ("echo $(whoami)", ("whoami", "echo")),
        ("/usr/bin/git status", ("/usr/bin/git",)),
        ('"$CMD" x', None),
        ("", None),
        ("if then fi (", None),
    ],
)
def test_programs_are_the_first_words_of_every_command(
    command: str, expected: tuple[str, ...] | None
) -> None:
    assert programs(command, cwd="/tmp", home="/home/u") == expected


def test_approve_switches_the_mode_for_the_rest_of_the_session_and_says_so(harness: MakeHarness) -> None:
    h = harness(
        [
            [bash("1", "touch one")],
            [TextContent(text="ok")],
            [bash("2", "touch two")],
            [TextContent(text="ok")],
        ],
        approve="deny",
    )
    run(h, "/approve", "make one", "/approve auto", "make two", "/approve sometimes")
    assert not (h.project / "one").exists() and (h.project / "two").exists()
    assert h.ui.asked == []
    assert [n for n in h.notices if n[0] == "approval_mode"] == [
        ("approval_mode", "deny"),
        ("approval_mode", "auto"),
    ]
    said = [text for text, _ in h.ui.notices if "approve" in text]
    assert said == [
        "approve: deny (bash, write, edit and MCP tool calls are refused; the agent only reads)",
        "approve: auto (bash, write, edit and MCP tool calls run without asking (steering still applies))",
        "/approve sometimes: not one of ask, auto, deny",
    ]
    assert "approve" in h.session.registry.commands
