"""A store that cannot write ends the agent's run: the loop swallows listener errors, so the failure
travels as an abort and comes out of `prompt` as `SessionWriteError` once the loop has stopped."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rein.agent import AgentEvent
from rein.agent.tools import Ls
from rein.ai import AssistantMessage, FauxProvider, Model, TextContent, ToolCall
from rein.extensions import Level
from rein.session import AgentSession, ReadOnlySessionError, Session, SessionWriteError
from tests.session.helpers import TS

FULL = "No space left on device"


@dataclass
class QuietUI:
    notices: list[tuple[str, Level]] = field(default_factory=list)

    def notify(self, message: str, level: Level = "info") -> None:
        self.notices.append((message, level))

    def set_status(self, key: str, text: str | None) -> None:
        pass

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        return None

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return None


def agent(store: Session, faux: FauxProvider, cwd: Path) -> AgentSession:
    return AgentSession(
        store=store,
        provider=faux,
        model=Model(provider="faux", id="faux-1"),
        cwd=str(cwd),
        ui=QuietUI(),
        tools=[Ls()],
    )


def entries(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def test_a_failed_save_aborts_the_run_and_reaches_the_caller(tmp_path: Path) -> None:
    store = Session.create(str(tmp_path), home=tmp_path / "home")
    assert store.path is not None
    path = store.path
    faux = FauxProvider(
        [
            [TextContent(text="listing"), ToolCall(id="c1", name="ls", arguments={})],
            [TextContent(text="never asked for")],
        ]
    )
    session = agent(store, faux, tmp_path)
    aside = path.with_suffix(".saved")

    def fill_the_disk_after_the_prompt(event: AgentEvent) -> None:
        prompt_saved = event.type == "message_end" and not isinstance(event.message, AssistantMessage)
        if prompt_saved and not aside.exists():  # the reply will not be saved
            path.rename(aside)
            path.symlink_to("/dev/full")

    session.subscribe(fill_the_disk_after_the_prompt)
    with pytest.raises(SessionWriteError) as caught:
        asyncio.run(session.prompt("list the files"))
    assert str(caught.value) == (
        f"cannot save the session to {path}: {FULL}; the session stops here (entries before this turn"
        " are saved)"
    )
    assert faux.calls == 1  # the abort stopped the loop before a second reply
    saved = entries(aside)
    assert [e["message"]["role"] for e in saved] == ["user"]  # type: ignore[index]
    with pytest.raises(SessionWriteError, match=FULL):  # a broken store runs nothing more
        asyncio.run(session.prompt("again"))
    assert faux.calls == 1


class SyncCounting(Session):
    """A real store that also records, at each fsync, how many lines the file has."""

    synced: list[int]

    def sync(self) -> None:
        super().sync()
        assert self.path is not None
        self.synced = [*getattr(self, "synced", []), len(self.path.read_text().splitlines())]


def test_each_turn_is_synced_and_a_clean_run_writes_every_message(tmp_path: Path) -> None:
    store = SyncCounting.create(str(tmp_path), home=tmp_path / "home")
    assert isinstance(store, SyncCounting) and store.path is not None
    faux = FauxProvider([[ToolCall(id="c1", name="ls", arguments={})], [TextContent(text="done")]])
    asyncio.run(agent(store, faux, tmp_path).prompt("go"))
    roles = [e["message"]["role"] for e in entries(store.path)]  # type: ignore[index]
    assert roles == ["user", "assistant", "tool_result", "assistant"]
    assert store.synced == [4, 5, 5]  # header + 3 at the first turn's end, + 1 at the second's, agent_end
    assert store.write_error is None


def test_a_session_rein_only_reads_is_refused_before_any_run(tmp_path: Path) -> None:
    path = tmp_path / "future.jsonl"
    header = {"type": "session", "format": "rein", "version": 99, "id": "s", "timestamp": TS, "cwd": "/"}
    path.write_text(json.dumps(header) + "\n")
    faux = FauxProvider()
    with pytest.raises(ReadOnlySessionError, match="written by a newer rein"):
        agent(Session.open(path), faux, tmp_path)
    assert faux.calls == 0 and path.read_text() == json.dumps(header) + "\n"
