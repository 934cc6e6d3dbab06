"""Steering in the stream: the real `rein proxy` checks each held tool call with rein's steering (the
default packs, a project's `.rein/steering.toml`) before the client receives it. The official openai
(Chat Completions, Responses) and anthropic SDKs as clients, the local SSE server as the upstream
scripting a force push, then, on the retry, a harmless call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from anthropic import AsyncAnthropic
from openai import APIError, AsyncOpenAI, UnprocessableEntityError

from rein.ai import JsonValue, TextContent, ToolCall
from rein.ai.testing import Reply, SseServer, anthropic_reply, chat_reply, responses_reply
from tests.ai.helpers import run
from tests.cli.helpers import run_rein
from tests.proxy.conftest import RunningProxy, sent_list, start_proxy

pytestmark = pytest.mark.slow

PUSH = "git push --force origin main"
REASON = "[steering:no-force-push@defaults]"
STATUS = ToolCall(id="call_2", name="bash", arguments={"command": "git status"})


def openai_sdk(proxy: RunningProxy, **headers: str) -> AsyncOpenAI:
    return AsyncOpenAI(
        base_url=f"{proxy.url}/v1", api_key="sk-test", max_retries=0, timeout=20, default_headers=headers
    )


async def chat_calls(proxy: RunningProxy, **headers: str) -> tuple[list[tuple[str, str]], str]:
    """The tool calls (name, arguments) and the prose the client received from one streamed chat."""
    calls: dict[int, list[str]] = {}
    text: list[str] = []
    async with openai_sdk(proxy, **headers) as client:
        stream = await client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "ship it"}], stream=True
        )
        async for chunk in stream:
            for choice in chunk.choices:
                text.append(choice.delta.content or "")
                for call in choice.delta.tool_calls or []:
                    entry = calls.setdefault(call.index, ["", ""])
                    if call.function is not None:
                        entry[0] += call.function.name or ""
                        entry[1] += call.function.arguments or ""
    return [(name, arguments) for name, arguments in calls.values()], "".join(text)


async def logged(proxy: RunningProxy, event: str) -> list[dict[str, JsonValue]]:
    """The proxy's log records of `event`, once there is one (it logs a request after its reply ends)."""
    for _ in range(250):
        if found := proxy.records(event):
            return found
        await asyncio.sleep(0.02)
    return []


def injected(messages: list[JsonValue]) -> str:
    """The hidden message a retry ends with."""
    return json.dumps(messages[-1])


def test_chat_a_force_push_never_reaches_the_client_and_the_retry_carries_the_reason(tmp_path: Path) -> None:
    push = ToolCall(id="call_1", name="bash", arguments={"command": PUSH})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=chat_reply(TextContent(text="Pushing."), push, finish_reason="tool_calls")),
                Reply(steps=chat_reply(STATUS, finish_reason="tool_calls")),
            )
            async with start_proxy(server.url, tmp_path) as proxy:
                calls, text = await chat_calls(proxy)
                status = proxy.status()
                records = await logged(proxy, "steering")
            retry = sent_list(server, 1, "messages")
        assert calls == [("bash", '{"command": "git status"}')]
        assert text == "Pushing."
        assert len(server.requests) == 2
        assert retry[-2] == {"role": "assistant", "content": "Pushing."}
        assert REASON in injected(retry) and PUSH in injected(retry)
        assert status["steering_blocks"] == {"no-force-push": 1} and status["retries"] == 1
        assert [(r["rule"], r["tool"], r["command"], r["action"]) for r in records] == [
            ("no-force-push", "bash", PUSH, "retry")
        ]

    run(scenario(), timeout=30)


def test_responses_codex_shell_argv_is_read_as_its_command_line(tmp_path: Path) -> None:
    push = ToolCall(id="call_1", name="shell", arguments={"command": ["bash", "-lc", PUSH], "workdir": "."})
    fine = ToolCall(id="call_2", name="shell", arguments={"command": ["git", "status"]})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(steps=responses_reply(push)), Reply(steps=responses_reply(fine)))
            async with (
                start_proxy(server.url, tmp_path) as proxy,
                openai_sdk(proxy) as client,
                client.responses.stream(model="gpt-test", input="ship it") as stream,
            ):
                events = [event async for event in stream]
                response = await stream.get_final_response()
            retry = sent_list(server, 1, "input")
        assert PUSH not in repr(events)
        calls = [item for item in response.output if item.type == "function_call"]
        assert [(c.call_id, c.name, json.loads(c.arguments)) for c in calls] == [
            ("call_2", "shell", {"command": ["git", "status"]})
        ]
        assert REASON in injected(retry)

    run(scenario(), timeout=30)


def test_messages_claude_code_bash_is_replaced_by_the_retry(tmp_path: Path) -> None:
    push = ToolCall(id="toolu_1", name="Bash", arguments={"command": PUSH, "description": "push"})
    fine = ToolCall(id="toolu_2", name="Bash", arguments={"command": "git status"})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=anthropic_reply(TextContent(text="Pushing."), push, stop_reason="tool_use")),
                Reply(steps=anthropic_reply(fine, stop_reason="tool_use", message_id="msg_2")),
            )
            async with (
                start_proxy(server.url, tmp_path) as proxy,
                AsyncAnthropic(base_url=proxy.url, api_key="k", max_retries=0, timeout=20) as client,
                client.messages.stream(
                    model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "ship it"}]
                ) as stream,
            ):
                events = [event async for event in stream]
                message = await stream.get_final_message()
            retry = sent_list(server, 1, "messages")
        assert PUSH not in repr(events)
        assert [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"] == [
            ("toolu_2", "Bash", {"command": "git status"})
        ]
        assert [b.type for b in message.content] == ["text", "tool_use"]
        assert message.id == "msg_test" and message.stop_reason == "tool_use"
        assert REASON in injected(retry)

    run(scenario(), timeout=30)


def test_error_mode_ends_the_reply_with_the_reason_and_no_call(tmp_path: Path) -> None:
    push = ToolCall(id="call_1", name="bash", arguments={"command": PUSH})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=chat_reply(TextContent(text="Pushing."), push, finish_reason="tool_calls"))
            )
            async with start_proxy(server.url, tmp_path, args=["--steering", "error"]) as proxy:
                received: list[str] = []
                with pytest.raises(APIError) as raised:
                    async with openai_sdk(proxy) as client:
                        stream = await client.chat.completions.create(
                            model="gpt-test", messages=[{"role": "user", "content": "go"}], stream=True
                        )
                        async for chunk in stream:
                            received.append(chunk.model_dump_json())
                status = proxy.status()
            assert len(server.requests) == 1
        assert received and PUSH not in "".join(received) and '"tool_calls":[' not in "".join(received)
        assert REASON in str(raised.value.message) and PUSH in str(raised.value.message)
        assert status["steering_blocks"] == {"no-force-push": 1} and status["retries"] == 0

    run(scenario(), timeout=30)


def test_error_mode_on_messages_is_the_stream_error_the_sdk_raises(tmp_path: Path) -> None:
    push = ToolCall(id="toolu_1", name="Bash", arguments={"command": PUSH})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(steps=anthropic_reply(push, stop_reason="tool_use")))
            async with (
                start_proxy(server.url, tmp_path, args=["--steering", "error"]) as proxy,
                AsyncAnthropic(base_url=proxy.url, api_key="k", max_retries=0, timeout=20) as client,
            ):
                with pytest.raises(Exception, match="no-force-push") as raised:
                    async with client.messages.stream(
                        model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "go"}]
                    ) as stream:
                        async for _ in stream:
                            pass
        assert "rein steering refused" in str(raised.value)

    run(scenario(), timeout=30)


def test_a_non_shell_tool_goes_through_the_rules_on_any_tool(tmp_path: Path) -> None:
    steering = (
        '[[rule]]\nname = "no-prod-writes"\nreason = "The database is read-only: query it."\n'
        'tool = "mcp__postgres__*"\nfield = "sql"\nsql = ["write"]\n'
    )
    (tmp_path / "project" / ".rein").mkdir(parents=True)
    (tmp_path / "project" / ".rein" / "steering.toml").write_text(steering, encoding="utf-8")
    drop = ToolCall(id="call_1", name="mcp__postgres__query", arguments={"sql": "DELETE FROM users"})
    read = ToolCall(id="call_2", name="mcp__postgres__query", arguments={"sql": "SELECT count(*) FROM users"})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=chat_reply(drop, finish_reason="tool_calls")),
                Reply(steps=chat_reply(read, finish_reason="tool_calls")),
            )
            async with start_proxy(server.url, tmp_path) as proxy:
                calls, _ = await chat_calls(proxy)
                status = proxy.status()
            retry = sent_list(server, 1, "messages")
        assert calls == [("mcp__postgres__query", '{"sql": "SELECT count(*) FROM users"}')]
        assert "[steering:no-prod-writes@user]" in injected(retry)
        assert status["steering_blocks"] == {"no-prod-writes": 1}

    run(scenario(), timeout=30)


def test_an_allowed_command_passes_untouched(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(steps=chat_reply(STATUS, finish_reason="tool_calls")))
            async with start_proxy(server.url, tmp_path) as proxy:
                calls, _ = await chat_calls(proxy)
                status = proxy.status()
            assert len(server.requests) == 1
        assert calls == [("bash", '{"command": "git status"}')]
        assert status["steering_blocks"] == {} and status["retries"] == 0

    run(scenario(), timeout=30)


def test_off_checks_no_tool_call(tmp_path: Path) -> None:
    push = ToolCall(id="call_1", name="bash", arguments={"command": PUSH})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(steps=chat_reply(push, finish_reason="tool_calls")))
            async with start_proxy(server.url, tmp_path, args=["--steering", "off"]) as proxy:
                calls, _ = await chat_calls(proxy)
                status = proxy.status()
        assert calls == [("bash", json.dumps({"command": PUSH}))]
        assert status["steering_blocks"] == {}

    run(scenario(), timeout=30)


def test_the_cwd_header_picks_the_project_whose_steering_applies(tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / ".rein").mkdir(parents=True)
    rule = '[[rule]]\nname = "no-make-deploy"\nreason = "CI deploys."\ncommand = "make"\nargs = "deploy"\n'
    (other / ".rein" / "steering.toml").write_text(rule, encoding="utf-8")
    deploy = ToolCall(id="call_1", name="bash", arguments={"command": "make deploy"})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=chat_reply(deploy, finish_reason="tool_calls")),
                Reply(steps=chat_reply(deploy, finish_reason="tool_calls")),
                Reply(steps=chat_reply(STATUS, finish_reason="tool_calls")),
            )
            async with start_proxy(server.url, tmp_path) as proxy:
                here, _ = await chat_calls(proxy)
                there, _ = await chat_calls(proxy, **{"x-rein-cwd": str(other)})
            assert len(server.requests) == 3
            retry = sent_list(server, 2, "messages")
            assert all("x-rein-cwd" not in request.headers for request in server.requests)
        assert here == [("bash", '{"command": "make deploy"}')]
        assert there == [("bash", '{"command": "git status"}')]
        assert "[steering:no-make-deploy@user]" in injected(retry)

    run(scenario(), timeout=30)


def completion_with(call: ToolCall) -> JsonValue:
    """A non-streamed Chat Completions reply making one tool call."""
    function: JsonValue = {"name": call.name, "arguments": call.arguments_text}
    message: JsonValue = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call.id, "type": "function", "function": function}],
    }
    return {
        "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }  # fmt: skip


def test_a_non_streamed_reply_is_checked_whole_retried_or_refused(tmp_path: Path) -> None:
    push = ToolCall(id="call_1", name="bash", arguments={"command": PUSH})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(body=completion_with(push)), Reply(body=completion_with(STATUS)))
            async with start_proxy(server.url, tmp_path) as proxy, openai_sdk(proxy) as client:
                done = await client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "go"}]
                )
            retry = sent_list(server, 1, "messages")
            calls = done.choices[0].message.tool_calls or []
            assert [(c.id, c.function.arguments) for c in calls if c.type == "function"] == [
                ("call_2", '{"command": "git status"}')
            ]
            assert REASON in injected(retry)
            server.push(Reply(body=completion_with(push)))
            async with (
                start_proxy(server.url, tmp_path / "error", args=["--steering", "error"]) as proxy,
                openai_sdk(proxy) as client,
            ):
                with pytest.raises(UnprocessableEntityError, match="no-force-push"):
                    await client.chat.completions.create(
                        model="m", messages=[{"role": "user", "content": "go"}]
                    )
            assert len(server.requests) == 3

    run(scenario(), timeout=30)


def test_error_mode_on_responses_fails_the_response_with_the_reason(tmp_path: Path) -> None:
    push = ToolCall(id="call_1", name="exec_command", arguments={"cmd": PUSH})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(steps=responses_reply(push)))
            async with (
                start_proxy(server.url, tmp_path, args=["--steering", "error"]) as proxy,
                openai_sdk(proxy) as client,
            ):
                stream = await client.responses.create(model="gpt-test", input="go", stream=True)
                events = [event async for event in stream]
        assert [e.type for e in events][-2:] == ["error", "response.failed"]
        assert PUSH not in repr(events[:-2])
        assert not [e for e in events if e.type == "response.output_item.added"]
        last = events[-1]
        assert last.type == "response.failed" and last.response.error is not None
        assert REASON in last.response.error.message

    run(scenario(), timeout=30)


def test_past_max_retries_the_reply_ends_without_the_call(tmp_path: Path) -> None:
    push = ToolCall(id="call_1", name="bash", arguments={"command": PUSH})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=chat_reply(TextContent(text="Pushing."), push, finish_reason="tool_calls"))
            )
            async with start_proxy(server.url, tmp_path, args=["--max-retries", "0"]) as proxy:
                calls, text = await chat_calls(proxy)
                status = proxy.status()
                requests = await logged(proxy, "request")
            assert len(server.requests) == 1
        assert calls == [] and text == "Pushing."
        assert status["ended_early"] == 1 and status["steering_blocks"] == {"no-force-push": 1}
        assert [r["outcome"] for r in requests] == ["ended: steering no-force-push"]

    run(scenario(), timeout=30)


def test_the_setting_chooses_the_mode_and_a_bad_flag_is_a_usage_error(tmp_path: Path) -> None:
    settings = tmp_path / "project" / ".rein" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('[proxy]\nsteering = "off"\n', encoding="utf-8")
    push = ToolCall(id="call_1", name="bash", arguments={"command": PUSH})

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(steps=chat_reply(push, finish_reason="tool_calls")))
            async with start_proxy(server.url, tmp_path) as proxy:
                calls, _ = await chat_calls(proxy)
                assert "rein proxy: steering: off" in proxy.log()
        assert calls == [("bash", json.dumps({"command": PUSH}))]

    run(scenario(), timeout=30)
    result = run_rein("proxy", "--upstream", "http://x", "--steering", "ask", cwd=tmp_path, home=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == "rein proxy: --steering 'ask': use one of retry, error, off"
