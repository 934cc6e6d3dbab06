"""An extension asks the person through `ctx.ui.select` and `ctx.ui.input`, and hears None when nobody
is there; `/new`'s switch tells extensions in order: shutdown, start, `session_switched`."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rein.ai import FauxProvider, Model
from rein.extensions import ExtensionAPI, ExtensionContext, Level
from rein.session import AgentSession, ReadOnlySessionError, Session, SessionTree


@dataclass
class ScriptedUI:
    answers: list[str | None] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def notify(self, message: str, level: Level = "info") -> None:
        self.notices.append(message)

    def set_status(self, key: str, text: str | None) -> None: ...

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        answer = self.answers.pop(0) if self.answers else None
        assert answer is None or answer in options
        return answer

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return self.answers.pop(0) if self.answers else None


def extension(rein: ExtensionAPI) -> None:
    async def order(args: str, ctx: ExtensionContext) -> None:
        size = await ctx.ui.select("Size?", ["small", "large"])
        if size is None:
            ctx.ui.notify("nothing ordered: nobody answered")
            return
        note = await ctx.ui.input("A note for the kitchen?", "none")
        ctx.ui.notify(f"ordered {size}" + (f" ({note})" if note else ""))

    rein.register_command("order", "Order something", order)


def session(tmp_path: Path, ui: ScriptedUI) -> AgentSession:
    store = Session.create(str(tmp_path), home=tmp_path / "home")
    made = AgentSession(
        store=store, provider=FauxProvider(), model=Model(provider="faux", id="f"), cwd=str(tmp_path), ui=ui
    )
    made.load_extension("orders", extension)
    return made


def test_a_command_asks_and_gets_the_answers(tmp_path: Path) -> None:
    ui = ScriptedUI(answers=["large", "no onions"])
    asyncio.run(session(tmp_path, ui).prompt("/order"))
    assert ui.notices == ["ordered large (no onions)"]


def test_with_nobody_there_the_answer_is_none(tmp_path: Path) -> None:
    ui = ScriptedUI()
    asyncio.run(session(tmp_path, ui).prompt("/order"))
    assert ui.notices == ["nothing ordered: nobody answered"]


def test_switching_the_store_tells_extensions_in_order(tmp_path: Path) -> None:
    ui = ScriptedUI()
    agent = session(tmp_path, ui)
    seen: list[tuple[str, str]] = []
    api = agent.api("watcher")
    for name in ("session_start", "session_shutdown", "session_switched"):
        api.on(name, lambda event, ctx: seen.append((event.name, ctx.session.cwd)))
    listened: list[object] = []
    agent.subscribe_notices(
        lambda name, payload: listened.append(payload) if name == "session_switched" else None
    )
    first = agent.store
    other = Session.create(str(tmp_path), home=tmp_path / "home")
    asyncio.run(agent.switch_store(other))
    assert agent.store is other and first is not other
    assert [name for name, _ in seen] == ["session_shutdown", "session_start", "session_switched"]
    assert listened == [other]


def test_a_store_rein_only_reads_is_refused_before_anything_changes(tmp_path: Path) -> None:
    ui = ScriptedUI()
    agent = session(tmp_path, ui)
    seen: list[str] = []
    agent.api("watcher").on("session_shutdown", lambda event, ctx: seen.append("shutdown"))
    current = agent.store
    read_only = Session(header=current.header, tree=SessionTree(), path=None, writable=False)
    with pytest.raises(ReadOnlySessionError):
        asyncio.run(agent.switch_store(read_only))
    assert agent.store is current and seen == []
