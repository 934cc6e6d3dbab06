"""Stream rules end to end on the real local model: SmolLM2 writes `console.log(` on its own, the rule
cuts the reply, the provider stops sampling, and the retry sees the rule instead of the cut text.

Sampling is greedy (temperature 0), so the model's reply is the same on every run.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rein.agent import AgentEvent, AgentMessage, CustomMessage
from rein.agent.tools import builtin_tools
from rein.ai import (
    AssistantMessage,
    AssistantStream,
    Context,
    Model,
    StreamOptions,
    TextContent,
    UserMessage,
)
from rein.ai.providers.local import LocalProvider
from rein.ai.providers.local_files import SYSTEM_PROMPT
from rein.builtins import load_extensions
from rein.session import AgentSession, Session
from rein.ttsr import Rule
from tests.ai.helpers import run
from tests.builtins.conftest import RecordingUI

pytestmark = [
    pytest.mark.local,
    pytest.mark.slow,
]

PROMPT = "Write a JavaScript function that prints the total of item.price to the console."
RULE_BODY = "Do not print with the console; use the project's logger."
"""Says neither `console.log(` nor anything the rule matches, so the retried context can be checked."""
SLACK = 3
"""Tokens the cut generation may sample past the matching delta: the worker reads the stop flag between
tokens, so it finishes the token it is computing when the rule fires, and one or two more may already
wait in the queue, unread, while the event loop runs the rule's hook and writes the session entry."""


@dataclass
class RecordingProvider:
    """The local provider, recording the context of every request."""

    local: LocalProvider = field(default_factory=LocalProvider)
    contexts: list[Context] = field(default_factory=list)
    avoided: list[tuple[str, ...]] = field(default_factory=list)

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        self.contexts.append(context)
        self.avoided.append(options.avoid if options else ())
        return self.local.stream(model, context, options)


@dataclass
class Fired:
    deltas: int
    """Text deltas the session had received when the rule fired, the matching one included."""
    text: str
    at: float
    rules: list[str]


def test_a_stream_rule_cuts_the_local_models_reply_and_the_retry_follows_it(
    project: tuple[Path, Path],
) -> None:
    cwd, home = project
    rules = cwd / ".rein" / "rules"
    rules.mkdir(parents=True)
    (rules / "no-console-log.md").write_text(
        f"---\ncondition: 'console\\.log\\('\nscope: text\n---\n{RULE_BODY}\n"
    )
    store = Session.create(str(cwd), home=home)
    provider = RecordingProvider()
    session = AgentSession(
        store=store,
        provider=provider,
        model=Model(provider="local", id="smollm2"),
        cwd=str(cwd),
        ui=RecordingUI(),
        # No bash: offered it, the model's ```bash blocks would become commands run in this machine's
        # tmp project. The rule is about prose, so the other built-in tools are enough.
        tools=[tool for tool in builtin_tools() if tool.name != "bash"],
        system_prompt=SYSTEM_PROMPT,
        options=StreamOptions(temperature=0.0, max_tokens=200),
    )
    load_extensions(session, cwd=str(cwd), home=str(home), settings={}, discovered=False)
    events: list[AgentEvent] = []
    received: list[str] = []
    fired: list[Fired] = []

    def on_event(event: AgentEvent) -> None:
        events.append(event)
        if event.type == "message_update" and event.delta is not None and event.delta.source == "text":
            received.append(event.delta.delta)

    def on_notice(name: str, payload: object) -> None:
        # Sent from the rule's stream hook, right after the session got the delta that matched.
        if name == "ttsr_triggered":
            names = (
                [rule.name for rule in payload if isinstance(rule, Rule)]
                if isinstance(payload, tuple)
                else []
            )
            fired.append(Fired(len(received), "".join(received), time.perf_counter(), names))

    session.subscribe(on_event)
    session.subscribe_notices(on_notice)

    async def scenario() -> list[AgentMessage]:
        await session.start()
        return await session.prompt(PROMPT)

    added = run(scenario(), timeout=180)  # generous: the CPU is shared; about 3 s alone
    provider.local.join(timeout=10)
    generations = provider.local.generations

    # The rule fired once, on text the model wrote: the streamed deltas up to the match.
    assert [f.rules for f in fired] == [["no-console-log"]]
    (match,) = fired
    assert match.text.endswith("console.log("), match.text
    assert "console.log(" not in match.text[: -len("console.log(")], "it fired on the first occurrence"
    assert "console.log(" not in PROMPT, "the text came from the model, not from the prompt"

    # The retry happened: two generations, one stream_retry, and the cut one stopped at the match.
    assert len(generations) == 2, generations
    cut, retry = generations
    assert [e.type for e in events].count("stream_retry") == 1
    assert cut.aborted and cut.stopped_at is not None and retry.stopped_at is not None
    assert match.deltas <= cut.tokens <= match.deltas + SLACK, (
        f"{cut.tokens} tokens sampled, {match.deltas} streamed when the rule fired"
    )
    assert cut.stopped_at < retry.stopped_at

    # The retried request holds the rule and not the cut text; the first one held neither.
    assert len(provider.contexts) == 2
    first, retried = provider.contexts
    assert len(first.messages) == 1 and isinstance(first.messages[0], UserMessage)
    assert retried.system_prompt == first.system_prompt == SYSTEM_PROMPT
    sent = [m for m in retried.messages if isinstance(m, UserMessage)]
    assert len(retried.messages) == len(sent) == 2, "the cut reply is dropped, the injection is appended"
    injected = "".join(block.text for block in sent[1].content if isinstance(block, TextContent))
    assert '<system-interrupt reason="rule_violation" rule="no-console-log"' in injected
    assert RULE_BODY in injected
    assert "console.log(" not in str(retried), "the cut text is not sent back"

    # The session kept the user prompt, the hidden injection and the retried reply, not the cut one.
    assert [type(m).__name__ for m in added] == ["UserMessage", "CustomMessage", "AssistantMessage"]
    injection, final = added[1], added[2]
    assert isinstance(injection, CustomMessage) and not injection.display
    assert isinstance(final, AssistantMessage) and final.stop_reason in ("stop", "length")
    # The retry was asked to avoid the text the rule matched, and llama.cpp kept it out.
    assert provider.avoided == [(), ("console.log(",)]
    assert "console.log(" not in final.text
    assert (final.usage.input, final.usage.output) == (retry.prompt_tokens, retry.tokens)

    # The session file records the injection, with the rule, before the retried reply.
    assert store.path is not None
    stored = [json.loads(line) for line in store.path.read_text().splitlines()[1:]]
    order = [(e["type"], e.get("custom_type")) for e in stored]
    assert order == [
        ("message", None),
        ("custom", "ttsr_injection"),
        ("custom_message", "ttsr-injection"),
        ("message", None),
    ]
    assert stored[1]["data"]["rules"] == ["no-console-log"]
    assert stored[1]["data"]["records"][0]["rule"] == "no-console-log"
    assert stored[3]["message"]["role"] == "assistant"
    assert stored[3]["message"]["usage"]["output"] == retry.tokens, "the stored reply is the retried one"
