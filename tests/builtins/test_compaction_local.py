"""Compaction end to end on the real local model: its window overflows, llama.cpp refuses the request,
rein learns the window from the error, compacts with the same model as summarizer (chunked to its small
window) and the retried request goes through."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rein.agent import AgentMessage
from rein.ai import AssistantMessage, AssistantStream, Context, Model, StreamOptions
from rein.ai.providers.local import LocalProvider
from rein.session import AgentSession, CompactionEntry, MessageEntry, Session
from tests.ai.helpers import run
from tests.builtins.conftest import RecordingUI

pytestmark = [pytest.mark.local, pytest.mark.slow]

N_CTX = 1024
"""llama.cpp's real context for this test: small, so a few replies overflow it."""
PROMPTS = [f"List ten facts about the number {n}, one per line." for n in (7, 12, 42, 99, 100, 256, 1000)]


@dataclass
class SmallContext:
    """The local provider with llama.cpp loaded at `N_CTX`, while rein is told nothing of it: the
    session's model has no window, so rein believes the bundled model's 8k until an overflow teaches
    it the real one."""

    local: LocalProvider = field(default_factory=LocalProvider)
    contexts: list[Context] = field(default_factory=list)

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        self.contexts.append(context)
        return self.local.stream(dataclasses.replace(model, context_window=N_CTX), context, options)


def test_the_local_models_overflow_is_compacted_and_retried(project: tuple[Path, Path]) -> None:
    cwd, home = project
    store = Session.create(str(cwd), home=home)
    provider = SmallContext()
    session = AgentSession(
        store=store,
        provider=provider,
        model=Model(provider="local", id="smollm2"),
        cwd=str(cwd),
        ui=RecordingUI(),
        options=StreamOptions(temperature=0.0, max_tokens=160),
    )

    async def scenario() -> list[AgentMessage]:
        added: list[AgentMessage] = []
        for prompt in PROMPTS:
            added += await session.prompt(prompt)
        return added

    added = run(scenario(), timeout=600)
    provider.local.join(timeout=10)
    replies = [m for m in added if isinstance(m, AssistantMessage)]
    overflows = [r for r in replies if r.stop_reason == "error"]
    assert overflows, "the small context never overflowed: the test proves nothing"
    assert session.compactor.learned_window == N_CTX
    assert any(isinstance(e, CompactionEntry) for e in store.tree.active_path())
    # every prompt got a reply in the end, and no failed reply stayed on the branch
    last_of_each = [m for m in replies if m.stop_reason != "error"]
    assert len(last_of_each) >= len(PROMPTS)
    on_branch = [e for e in store.tree.active_path() if isinstance(e, MessageEntry)]
    assert not any(e.message.get("stop_reason") == "error" for e in on_branch)
    # the last request went through, inside the real window as llama.cpp counted it
    assert replies[-1].stop_reason != "error"
    assert 0 < replies[-1].usage.input <= N_CTX
