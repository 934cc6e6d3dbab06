"""rein in a real Google ADK agent: `LlmAgent(**rein_callbacks(guard))` run by a real `Runner` with an
`InMemorySessionService`, its Gemini model (google-genai) pointed at the Gemini API mock the host tests
use (`tests/hosts/_gemini_api.py`), a real bash tool in a temporary git project.

The three scenarios: a force push is blocked and the model reads rein's reason as the function
response; a reply that breaks a stream rule is cut and re-issued with the rule injected (streamed and
not); the timebox stops the run.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

pytest.importorskip("google.adk", reason="the adk extra is not installed (pip install 'rein[adk]')")

from google.adk.agents.llm_agent import LlmAgent
from google.adk.agents.run_config import RunConfig, StreamingMode  # type: ignore[attr-defined]  # ADK docs import it here
from google.adk.events.event import Event as AdkEvent
from google.adk.models.google_llm import Gemini
from google.adk.runners import Runner
from google.adk.sessions.in_memory_session_service import InMemorySessionService
from google.genai import types

from rein.ai import JsonValue
from rein.ai.testing import Event, Reply, Request
from rein.integrations import Guard
from rein.integrations.adk import AdkCallbacks, ReinAdk, rein_callbacks
from tests.hosts._common import BLOCKED, LIST, LISTED, MARKER, TAG
from tests.hosts._gemini_api import Call, GeminiApi, shell

pytestmark = pytest.mark.slow

APP, USER = "rein-test", "user"
RULES = {
    "no-word": ("forbidden", "Answer without the word f-o-r-b-i-d-d-e-n."),
    "no-other": ("verboten", "Answer without the word v-e-r-b-o-t-e-n."),
}
"""Stream rules as a project writes them: name -> (condition, body). The bodies spell the words out, so
the injection a request carries does not match the conditions themselves."""
CLEAN = "Here is a clean answer."
MODES = [StreamingMode.SSE, StreamingMode.NONE]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    subprocess.run(["git", "init", "-q", "-b", "feature", str(root)], check=True)
    (root / LISTED).write_text("listed\n")
    rules = root / ".rein" / "rules"
    rules.mkdir(parents=True)
    for name, (condition, body) in RULES.items():
        (rules / f"{name}.md").write_text(f"---\nname: {name}\ncondition: {condition}\n---\n{body}\n")
    return root


class RuleApi(GeminiApi):
    """Replies by which rule bodies the request already carries: the first reply missing from
    `replies` is sent (a request carrying all of them gets `CLEAN`)."""

    def __init__(self, replies: Sequence[tuple[str, str]]) -> None:
        super().__init__({})
        self.replies = replies

    def _next(self, body: object) -> list[JsonValue]:
        said = json.dumps(body)
        text = next((reply for rule, reply in self.replies if RULES[rule][1] not in said), CLEAN)
        return [{"text": text}]

    def model_bodies(self) -> list[str]:
        assert self.unexpected == []
        return [json.dumps(r.body) for r in self.requests if "Content" in r.path]


class ChunkedApi(RuleApi):
    """Streams each text reply in `pieces`-sized chunks, the usage on the last."""

    def __init__(self, replies: Sequence[tuple[str, str]], pieces: int) -> None:
        super().__init__(replies)
        self.pieces = pieces

    def _route(self, request: Request) -> Reply:
        if ":streamGenerateContent" not in request.path:
            return super()._route(request)
        (part,) = self._next(request.body)
        assert isinstance(part, dict)
        text = str(part["text"])
        chunks = [text[i : i + self.pieces] for i in range(0, len(text), self.pieces)]
        steps = [Event(data=_chunk(chunk, last=i == len(chunks) - 1)) for i, chunk in enumerate(chunks)]
        return Reply(steps=steps)


def _chunk(text: str, *, last: bool) -> JsonValue:
    candidate: dict[str, JsonValue] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    if not last:
        return {"candidates": [candidate]}
    candidate["finishReason"] = "STOP"
    return {"candidates": [candidate], "usageMetadata": {"totalTokenCount": 15}}


def agent_for(api: GeminiApi, project: Path, adk: ReinAdk | AdkCallbacks) -> LlmAgent:
    def run_shell_command(command: str, description: str = "") -> dict[str, object]:
        """Run a shell command in the project (named as `shell()` calls it)."""
        done = subprocess.run(
            command, check=False, shell=True, cwd=project, capture_output=True, text=True, timeout=30
        )
        return {"output": done.stdout + done.stderr, "exit_code": done.returncode}

    model = Gemini(model="gemini-test", base_url=api.url, client_kwargs={"api_key": "test-key"})
    callbacks = adk.callbacks() if isinstance(adk, ReinAdk) else adk
    return LlmAgent(
        name="coder", model=model, instruction="You code.", tools=[run_shell_command], **callbacks
    )


def run(agent: LlmAgent, prompt: str, mode: StreamingMode) -> tuple[list[AdkEvent], list[AdkEvent]]:
    """The events `run_async` yielded and the events the session kept."""

    async def go() -> tuple[list[AdkEvent], list[AdkEvent]]:
        service = InMemorySessionService()
        runner = Runner(agent=agent, app_name=APP, session_service=service)
        session = await service.create_session(app_name=APP, user_id=USER)
        message = types.Content(role="user", parts=[types.Part(text=prompt)])
        config = RunConfig(streaming_mode=mode)
        seen = [e async for e in runner.run_async(user_id=USER, session_id=session.id, new_message=message,
                                                   run_config=config)]  # fmt: skip
        kept = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
        assert kept is not None
        return seen, list(kept.events)

    return asyncio.run(go())


def texts(events: Sequence[AdkEvent]) -> list[str]:
    return [p.text for e in events if e.content for p in e.content.parts or () if p.text and e.author != USER]


def responses(events: Sequence[AdkEvent]) -> list[Mapping[str, object]]:
    return [dict(r.response or {}) for e in events for r in e.get_function_responses()]


@pytest.mark.parametrize("mode", MODES)
def test_a_blocked_call_never_runs_and_the_model_reads_the_reason(project: Path, mode: StreamingMode) -> None:
    adk = ReinAdk(Guard(project, home=project))
    with GeminiApi({"go": [shell(BLOCKED), shell(LIST)]}) as api:
        _, kept = run(agent_for(api, project, adk), "go", mode)
    assert api.unexpected == []
    blocked, listed = responses(kept)
    assert not (project / MARKER).exists()
    assert str(blocked["error"]).startswith(TAG)
    assert LISTED in str(listed["output"])
    last = json.dumps(api.requests[-1].body)
    assert TAG in last and LISTED in last  # what the model read next


def test_a_call_without_a_readable_command_is_refused(project: Path) -> None:
    adk = rein_callbacks(Guard(project, home=project))
    with GeminiApi({"go": [Call("run_shell_command", {"script": 3, "why": 4})]}) as api:
        _, kept = run(agent_for(api, project, adk), "go", StreamingMode.SSE)
    (refused,) = responses(kept)
    assert "cannot find the command" in str(refused["error"])


@pytest.mark.parametrize("mode", MODES)
def test_a_reply_that_breaks_a_rule_is_retried_with_the_rule(project: Path, mode: StreamingMode) -> None:
    adk = ReinAdk(Guard(project, home=project))
    with RuleApi([("no-word", "This is forbidden text.")]) as api:
        seen, kept = run(agent_for(api, project, adk), "go", mode)
    first, retry = api.model_bodies()
    assert RULES["no-word"][1] not in first and RULES["no-word"][1] in retry
    assert json.loads(retry)["contents"][-1]["role"] == "user"
    assert texts(kept) == [CLEAN]
    assert not any("forbidden" in text for text in texts([e for e in seen if not e.partial]))
    assert [m.rule.name for cut in adk.cuts for m in cut.matches] == ["no-word"]


def test_a_streamed_cut_stops_the_partial_events_at_the_match(project: Path) -> None:
    adk = ReinAdk(Guard(project, home=project))
    reply = "Fine so far, and then the forbidden word, and more after it."
    with ChunkedApi([("no-word", reply)], pieces=6) as api:
        seen, kept = run(agent_for(api, project, adk), "go", StreamingMode.SSE)
    streamed = "".join(texts([e for e in seen if e.partial]))
    assert reply.startswith(streamed) and "forb" in streamed and "forbidden" not in streamed
    assert texts([e for e in seen if not e.partial]) == texts(kept) == [CLEAN]
    assert adk.tokens == 15 + 15  # the cut call's usage arrives with its dropped last chunk


def test_each_rule_the_retry_breaks_is_injected_in_turn(project: Path) -> None:
    adk = ReinAdk(Guard(project, home=project))
    with RuleApi([("no-word", "forbidden"), ("no-other", "verboten")]) as api:
        _, kept = run(agent_for(api, project, adk), "go", StreamingMode.SSE)
    assert len(api.model_bodies()) == 3
    assert texts(kept) == [CLEAN]


def test_a_reply_still_breaking_rules_after_the_retries_is_withheld(project: Path) -> None:
    adk = ReinAdk(Guard(project, home=project), max_retries=1)
    with RuleApi([("no-word", "forbidden"), ("no-other", "verboten")]) as api:
        _, kept = run(agent_for(api, project, adk), "go", StreamingMode.SSE)
    assert len(api.model_bodies()) == 2
    (withheld,) = texts(kept)
    assert withheld.startswith("[rein] reply withheld") and "no-other" in withheld


def test_later_calls_of_the_run_keep_the_injection(project: Path) -> None:
    adk = ReinAdk(Guard(project, home=project))

    class Api(RuleApi):
        def _next(self, body: object) -> list[JsonValue]:
            said = json.dumps(body)
            if "functionResponse" in said:
                return [{"text": CLEAN}]
            if RULES["no-word"][1] in said:
                return [{"functionCall": {"name": "run_shell_command", "args": {"command": LIST}}}]
            return [{"text": "forbidden"}]

    with Api([]) as api:
        _, kept = run(agent_for(api, project, adk), "go", StreamingMode.SSE)
    _, _, after_tool = (json.loads(body) for body in api.model_bodies())
    assert RULES["no-word"][1] in json.dumps(after_tool["systemInstruction"])
    assert texts(kept) == [CLEAN]


def test_a_tool_call_whose_arguments_break_a_rule_is_retried_before_it_runs(project: Path) -> None:
    adk = ReinAdk(Guard(project, home=project))

    class Api(RuleApi):
        def _next(self, body: object) -> list[JsonValue]:
            if RULES["no-word"][1] in json.dumps(body):
                return [{"text": CLEAN}]
            call: JsonValue = {"name": "run_shell_command", "args": {"command": f"echo forbidden > {MARKER}"}}
            return [{"functionCall": call}]

    with Api([]) as api:
        _, kept = run(agent_for(api, project, adk), "go", StreamingMode.SSE)
    assert len(api.model_bodies()) == 2
    assert not (project / MARKER).exists() and responses(kept) == []
    assert texts(kept) == [CLEAN]


@pytest.mark.parametrize("budget", ["turns:1", "tokens:10"])
def test_the_timebox_stops_the_run(project: Path, budget: str) -> None:
    adk = ReinAdk(Guard(project, home=project, timebox=budget))
    with GeminiApi({"go": [shell(LIST), shell(LIST)]}) as api:
        _, kept = run(agent_for(api, project, adk), "go", StreamingMode.SSE)
    assert len(api.requests) == 1  # the second model call was never sent
    (listed,) = responses(kept)
    assert LISTED in str(listed["output"])
    (notice,) = texts(kept)
    assert "timebox" in notice.lower()
