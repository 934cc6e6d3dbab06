"""`rein acp` end to end: a real `rein acp` process, the SDK's client side on its stdio, the faux
provider's scripted replies as the model."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("acp", reason="the acp extra (agent-client-protocol) is not installed")

from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.schema import (
    AgentMessageChunk,
    AvailableCommandsUpdate,
    CurrentModeUpdate,
    PermissionOption,
    ToolCallUpdate,
)

from rein.ai import TextContent, ToolCall
from rein.ai.testing import Reply, SseServer, chat_reply
from rein.session import list_sessions
from tests.acp.client import Answer, RecordingClient, faux_script, rein_acp
from tests.cli.helpers import rein_env

pytestmark = pytest.mark.slow

FAUX = ("--provider", "faux")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    return cwd.resolve()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def allow(option_id: str) -> Answer:
    def answer(call: ToolCallUpdate, options: list[PermissionOption]) -> str | None:
        return option_id

    return answer


def test_a_prompt_streams_text_and_thoughts(project: Path, home: Path, tmp_path: Path) -> None:
    asyncio.run(_a_prompt_streams_text_and_thoughts(project, home, tmp_path))


async def _a_prompt_streams_text_and_thoughts(project: Path, home: Path, tmp_path: Path) -> None:
    reply = "Hello from rein, streamed to the editor in small chunks."
    script = faux_script(tmp_path / "s.json", [[{"thinking": "the user greets"}, {"text": reply}]])
    client = RecordingClient()
    async with rein_acp(client, *FAUX, cwd=project, home=home, script=script) as conn:
        init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        assert init.agent_capabilities is not None and init.agent_capabilities.load_session
        assert init.agent_info is not None and init.agent_info.name == "rein"
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await client.until(lambda: any(isinstance(u, AvailableCommandsUpdate) for u in client.updates))
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        assert response.stop_reason == "end_turn"
        await client.until(lambda: client.text() == reply)
        chunks = [u for u in client.updates if isinstance(u, AgentMessageChunk)]
        assert len(chunks) > 3  # streamed, not sent whole
        assert client.thoughts() == "the user greets"
    commands = next(u for u in client.updates if isinstance(u, AvailableCommandsUpdate))
    assert {"compact", "help"} <= {c.name for c in commands.available_commands}
    # an ordinary rein session: listed for this directory, with the prompt and the reply in it
    (info,) = list_sessions(home, str(project))
    assert info.id == session.session_id and info.first_prompt == "hi"


def test_a_tool_call_asks_permission_and_runs_once_allowed(project: Path, home: Path, tmp_path: Path) -> None:
    asyncio.run(_a_tool_call_asks_permission_and_runs_once_allowed(project, home, tmp_path))


async def _a_tool_call_asks_permission_and_runs_once_allowed(
    project: Path, home: Path, tmp_path: Path
) -> None:
    script = faux_script(
        tmp_path / "s.json",
        [
            [{"tool": "bash", "id": "c1", "arguments": {"command": "echo made > marker.txt && echo ok"}}],
            [{"text": "Made it."}],
        ],
    )
    client = RecordingClient(allow("Allow once"))
    async with rein_acp(client, *FAUX, "--approve", "ask", cwd=project, home=home, script=script) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("make it")])
        assert response.stop_reason == "end_turn"
        await client.until(lambda: "completed" in client.statuses("c1") and client.text() == "Made it.")
    (asked, options) = client.permissions[0]
    assert asked.tool_call_id == "c1" and "echo made" in (asked.title or "")
    assert {(o.name, o.kind) for o in options} == {
        ("Allow once", "allow_once"),
        ("Allow for this session", "allow_always"),
        ("Always allow in this project", "allow_always"),
        ("Deny", "reject_once"),
    }
    # pending until allowed, then in progress (its output as it comes), then completed
    assert list(dict.fromkeys(client.statuses("c1"))) == ["pending", "in_progress", "completed"]
    assert "ok" in client.tool_output("c1")
    assert (project / "marker.txt").read_text() == "made\n"
    # the call was shown before it was asked about
    start = next(i for i, u in enumerate(client.updates) if client.tool_updates("c1")[0] is u)
    assert start < client.updates.index(("permission", "c1"))


def test_a_denied_tool_call_never_runs(project: Path, home: Path, tmp_path: Path) -> None:
    asyncio.run(_a_denied_tool_call_never_runs(project, home, tmp_path))


async def _a_denied_tool_call_never_runs(project: Path, home: Path, tmp_path: Path) -> None:
    script = faux_script(
        tmp_path / "s.json",
        [[{"tool": "bash", "id": "c1", "arguments": {"command": "touch marker.txt"}}], [{"text": "ok"}]],
    )
    client = RecordingClient(allow("Deny"))
    async with rein_acp(client, *FAUX, cwd=project, home=home, script=script) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("touch it")])
        await client.until(lambda: "failed" in client.statuses("c1"))
    assert not (project / "marker.txt").exists()
    assert "the user denied this bash call" in client.tool_output("c1")
    assert "[rein] [approval] not run: the user denied this bash call." in client.text()  # said once
    assert "in_progress" not in client.statuses("c1")


def test_the_editor_s_mode_picker_switches_approval(project: Path, home: Path, tmp_path: Path) -> None:
    asyncio.run(_the_editor_s_mode_picker_switches_approval(project, home, tmp_path))


async def _the_editor_s_mode_picker_switches_approval(project: Path, home: Path, tmp_path: Path) -> None:
    def call(id: str, name: str) -> list[dict[str, object]]:
        return [{"tool": "bash", "id": id, "arguments": {"command": f"touch {name}"}}]

    script = faux_script(
        tmp_path / "s.json", [call("c1", "one"), [{"text": "ok"}], call("c2", "two"), [{"text": "ok"}]]
    )
    client = RecordingClient(allow("Allow once"))
    async with rein_acp(client, *FAUX, "--approve", "ask", cwd=project, home=home, script=script) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        sid = session.session_id
        assert session.modes is not None and session.modes.current_mode_id == "ask"
        assert [(m.id, m.name) for m in session.modes.available_modes] == [
            ("ask", "Ask"),
            ("auto", "Auto"),
            ("deny", "Read only"),
        ]
        await conn.set_session_mode(session_id=sid, mode_id="deny")
        await conn.prompt(session_id=sid, prompt=[text_block("make one")])
        await client.until(lambda: "failed" in client.statuses("c1"))
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        await conn.prompt(session_id=sid, prompt=[text_block("make two")])
        await client.until(lambda: "completed" in client.statuses("c2"))
        await conn.prompt(session_id=sid, prompt=[text_block("/approve ask")])  # typed: the picker follows
        with pytest.raises(RequestError, match="Invalid params"):
            await conn.set_session_mode(session_id=sid, mode_id="sometimes")
    assert client.permissions == []  # neither mode asks
    assert not (project / "one").exists() and (project / "two").exists()
    assert "approve is set to deny" in client.tool_output("c1")
    switched = [u.current_mode_id for u in client.updates if isinstance(u, CurrentModeUpdate)]
    assert switched == ["deny", "auto", "ask"]


def test_a_steering_block_shows_its_reason(project: Path, home: Path, tmp_path: Path) -> None:
    asyncio.run(_a_steering_block_shows_its_reason(project, home, tmp_path))


async def _a_steering_block_shows_its_reason(project: Path, home: Path, tmp_path: Path) -> None:
    command = "git push --force origin main && touch marker.txt"
    script = faux_script(
        tmp_path / "s.json",
        [[{"tool": "bash", "id": "c1", "arguments": {"command": command}}], [{"text": "Understood."}]],
    )
    client = RecordingClient(allow("Allow once"))
    async with rein_acp(client, *FAUX, "--approve", "auto", cwd=project, home=home, script=script) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("push it")])
        assert response.stop_reason == "end_turn"
        await client.until(lambda: "failed" in client.statuses("c1") and "Understood." in client.text())
    reason = "[steering:no-force-push@defaults]"
    assert reason in client.tool_output("c1")  # on the tool call, as its result
    assert f"[rein] bash not run: {reason}" in client.text()  # and as a notice in the transcript
    assert client.permissions == []  # blocked before anybody is asked
    assert not (project / "marker.txt").exists()


ASK = """
[[rule]]
name = "ask-to-ship"
reason = "Shipping needs the user's yes."
command = "touch"
args = ["shipped"]
verdict = "ask"
"""


@pytest.mark.parametrize("answer", ["Allow once", "Deny"])
def test_a_steering_rule_that_asks_is_a_permission_request(
    project: Path, home: Path, tmp_path: Path, answer: str
) -> None:
    asyncio.run(_a_steering_rule_that_asks_is_a_permission_request(project, home, tmp_path, answer))


async def _a_steering_rule_that_asks_is_a_permission_request(
    project: Path, home: Path, tmp_path: Path, answer: str
) -> None:
    (project / ".rein").mkdir()
    (project / ".rein" / "steering.toml").write_text(ASK)
    script = faux_script(
        tmp_path / "s.json",
        [[{"tool": "bash", "id": "c1", "arguments": {"command": "touch shipped"}}], [{"text": "Done."}]],
    )
    client = RecordingClient(allow(answer))
    async with rein_acp(client, *FAUX, "--approve", "ask", cwd=project, home=home, script=script) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("ship it")])
        ended = "completed" if answer == "Allow once" else "failed"
        await client.until(lambda: ended in client.statuses("c1") and "Done." in client.text())
    ((asked, options),) = client.permissions  # once: approval does not ask again after a yes
    assert asked.tool_call_id == "c1" and "touch shipped" in (asked.title or "")
    assert [(o.name, o.kind) for o in options] == [("Allow once", "allow_once"), ("Deny", "reject_once")]
    assert (project / "shipped").exists() == (answer == "Allow once")
    if answer == "Deny":
        said = client.tool_output("c1")
        assert said.startswith("[steering:ask-to-ship@user]") and "the user was asked and denied it" in said


def test_a_stream_rule_cut_is_a_notice_and_the_reply_is_retried(
    project: Path, home: Path, tmp_path: Path
) -> None:
    asyncio.run(_a_stream_rule_cut_is_a_notice_and_the_reply_is_retried(project, home, tmp_path))


async def _a_stream_rule_cut_is_a_notice_and_the_reply_is_retried(
    project: Path, home: Path, tmp_path: Path
) -> None:
    rules = project / ".rein" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-word.md").write_text("---\ncondition: forbidden\nscope: text\n---\nNever say that word.\n")
    script = faux_script(
        tmp_path / "s.json", [[{"text": "This is forbidden talk."}], [{"text": "Clean answer."}]]
    )
    client = RecordingClient()
    async with rein_acp(client, *FAUX, cwd=project, home=home, script=script) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("talk")])
        await client.until(lambda: client.text().endswith("Clean answer."))
    assert "[rein] stream rule: no-word" in client.text()


def test_cancel_stops_the_run(project: Path, home: Path, tmp_path: Path) -> None:
    asyncio.run(_cancel_stops_the_run(project, home, tmp_path))


async def _cancel_stops_the_run(project: Path, home: Path, tmp_path: Path) -> None:
    long = "word " * 400
    script = faux_script(tmp_path / "s.json", [[{"text": long}]], delay=0.02)
    client = RecordingClient()
    async with rein_acp(client, *FAUX, cwd=project, home=home, script=script) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        running = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("talk a lot")])
        )
        await client.until(lambda: len(client.text()) >= 20)
        await conn.cancel(session_id=session.session_id)
        response = await asyncio.wait_for(running, 20)
        assert response.stop_reason == "cancelled"
        # the session takes the next prompt (the echo script answers once the script is used up)
        again = await conn.prompt(session_id=session.session_id, prompt=[text_block("and now?")])
        assert again.stop_reason == "end_turn"
    assert len(client.text()) < len(long)


def test_a_session_reloads_with_its_history_and_goes_on(project: Path, home: Path, tmp_path: Path) -> None:
    asyncio.run(_a_session_reloads_with_its_history_and_goes_on(project, home, tmp_path))


async def _a_session_reloads_with_its_history_and_goes_on(project: Path, home: Path, tmp_path: Path) -> None:
    first = faux_script(tmp_path / "first.json", [[{"text": "The first answer."}]])
    client = RecordingClient()
    async with rein_acp(client, *FAUX, cwd=project, home=home, script=first) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("the first question")])
    second = faux_script(tmp_path / "second.json", [[{"text": "The second answer."}]])
    again = RecordingClient()
    async with rein_acp(again, *FAUX, cwd=project, home=home, script=second) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        listed = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed.sessions] == [session.session_id]
        loaded = await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        assert loaded is not None and loaded.modes is not None and loaded.modes.current_mode_id == "ask"
        await again.until(lambda: again.text() == "The first answer.")  # replayed
        assert again.user_text() == "the first question"
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("and then?")])
        assert response.stop_reason == "end_turn"
        await again.until(lambda: again.text().endswith("The second answer."))
    (info,) = list_sessions(home, str(project))  # the same file went on, no new session
    saved = info.path.read_text()
    for said in ("the first question", "The first answer.", "and then?", "The second answer."):
        assert said in saved


def test_loading_an_unknown_session_is_an_error(project: Path, home: Path) -> None:
    asyncio.run(_loading_an_unknown_session_is_an_error(project, home))


async def _loading_an_unknown_session_is_an_error(project: Path, home: Path) -> None:
    client = RecordingClient()
    async with rein_acp(client, *FAUX, cwd=project, home=home) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        with pytest.raises(RequestError) as caught:
            await conn.load_session(cwd=str(project), session_id="nope", mcp_servers=[])
    assert "no session 'nope'" in str(caught.value.data)


def test_through_an_openai_compatible_server_the_model_reads_the_block(
    project: Path, home: Path, tmp_path: Path
) -> None:
    asyncio.run(_through_an_openai_compatible_server_the_model_reads_the_block(project, home, tmp_path))


async def _through_an_openai_compatible_server_the_model_reads_the_block(
    project: Path, home: Path, tmp_path: Path
) -> None:
    push = ToolCall(id="call_1", name="bash", arguments={"command": "git push --force origin main"})
    replies = [
        Reply(steps=chat_reply(TextContent(text="Pushing now."), push, finish_reason="tool_calls")),
        Reply(steps=chat_reply(TextContent(text="I will not force-push."))),
    ]
    client = RecordingClient()
    async with SseServer(replies) as server:
        model = ("--provider", "openai", "--base-url", f"{server.url}/v1", "--model", "m")
        async with rein_acp(client, *model, cwd=project, home=home) as conn:
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("push")])
            assert response.stop_reason == "end_turn"
            await client.until(lambda: client.text().endswith("I will not force-push."))
        sent = [r.body.get("messages") if isinstance(r.body, dict) else None for r in server.requests]
    assert len(sent) == 2
    second = sent[1]
    assert isinstance(second, list)
    (result,) = [m for m in second if isinstance(m, dict) and m.get("role") == "tool"]
    assert "[steering:no-force-push@defaults]" in str(result.get("content"))
    assert client.text().startswith("Pushing now.")
    assert "failed" in client.statuses("call_1")


def test_a_slash_command_runs_and_answers_in_the_transcript(project: Path, home: Path) -> None:
    asyncio.run(_a_slash_command_runs_and_answers_in_the_transcript(project, home))


async def _a_slash_command_runs_and_answers_in_the_transcript(project: Path, home: Path) -> None:
    client = RecordingClient()
    async with rein_acp(client, *FAUX, cwd=project, home=home) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("/help")])
        assert response.stop_reason == "end_turn"
        await client.until(lambda: "/compact" in client.text())
    assert client.text().lstrip().startswith("[rein]")


def test_a_new_session_s_updates_follow_its_response(project: Path, home: Path) -> None:
    asyncio.run(_a_new_session_s_updates_follow_its_response(project, home))


async def _a_new_session_s_updates_follow_its_response(project: Path, home: Path) -> None:
    """On the wire: an editor drops an update for a session id it has not been told yet."""
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "rein.cli", "acp", *FAUX),
        cwd=project,
        env=rein_env(home),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": str(project), "mcpServers": []},
        },
    ]
    process.stdin.write(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
    await process.stdin.drain()
    lines = [json.loads(await asyncio.wait_for(process.stdout.readline(), 20)) for _ in range(3)]
    process.stdin.close()
    assert await asyncio.wait_for(process.wait(), 20) == 0
    assert [line.get("id", line.get("method")) for line in lines] == [1, 2, "session/update"]
    assert lines[2]["params"]["sessionId"] == lines[1]["result"]["sessionId"]
