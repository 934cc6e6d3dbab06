"""The timebox in rein's own agent session on the faux provider (spec 10.3, automated): commands as
the user types them, real runs of the loop, a session file reopened as a reload does."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from rein.ai import AssistantMessage, Context, FauxProvider, Model, TextContent
from rein.ai.providers.faux import FauxTurn
from rein.builtins.timebox import TimeboxExtension
from rein.extensions import ExtensionAPI, Factory, Level
from rein.session import AgentSession, Session
from tests.timebox.rein_harness import T0, Clock, Scheduler


class UI:
    def __init__(self) -> None:
        self.notices: list[tuple[Level, str]] = []
        self.status: dict[str, str | None] = {}

    def notify(self, message: str, level: Level = "info") -> None:
        self.notices.append((level, message))

    def set_status(self, key: str, text: str | None) -> None:
        self.status[key] = text

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        return None

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return None


class Rein:
    """One rein process: an agent session on `store`, the timebox loaded, every system prompt kept."""

    def __init__(self, store: Session, clock: Clock) -> None:
        self.ui = UI()
        self.prompts: list[str] = []
        self.session = AgentSession(
            store=store,
            provider=FauxProvider(self.reply),
            model=Model(provider="faux", id="faux-1"),
            cwd=str(store.header.cwd),
            ui=self.ui,
            system_prompt="BASE",
        )
        self.session.load_extension("timebox", self.load(clock))
        asyncio.run(self.session.start())

    def load(self, clock: Clock) -> Factory:
        def factory(rein: ExtensionAPI) -> None:
            TimeboxExtension(rein, clock=clock, scheduler=Scheduler(), run_on_stop=lambda _: None).register()

        return factory

    def reply(self, context: Context) -> FauxTurn:
        self.prompts.append(context.system_prompt or "")
        return [TextContent(text="done")]

    def send(self, text: str) -> None:
        asyncio.run(self.session.prompt(text))

    def levels(self) -> list[Level]:
        return [level for level, _ in self.ui.notices]


def test_turns_2_three_prompts_nudge_on_the_second_stop_on_the_third(tmp_path: Path) -> None:
    rein = Rein(Session.create(str(tmp_path), home=tmp_path), Clock(T0))
    rein.send("/timebox turns:2")
    assert rein.levels() == ["info"]
    rein.send("one")
    assert rein.prompts == ["BASE"]
    rein.send("two")
    assert rein.levels() == ["info", "warning"]
    assert rein.prompts[-1].startswith("BASE\n\nCRITICAL TIMEBOX WARNING")
    rein.send("three")
    assert rein.levels() == ["info", "warning", "error"]
    assert rein.ui.notices[-1][1].startswith("Timebox budget spent (2 turns). Used 2 turns")
    replies = [m for m in rein.session.messages if isinstance(m, AssistantMessage)]
    assert [reply.stop_reason for reply in replies] == ["stop", "stop"]  # the third never reached the model
    assert rein.ui.status["timebox"] == "Timebox: spent (2 turns)"
    rein.send("four")  # the chat continues
    assert rein.levels()[-1] == "error" and rein.prompts[-1] == "BASE"


def test_a_reload_mid_budget_restores_it(tmp_path: Path) -> None:
    clock = Clock(T0)
    first = Rein(Session.create(str(tmp_path), home=tmp_path), clock)
    first.send("/timebox 10m turns:3")
    first.send("one")
    asyncio.run(first.session.shutdown())
    path = first.session.store.path
    assert path is not None
    clock.advance(60_000)
    again = Rein(Session.open(path), clock)
    assert again.ui.notices == [
        ("info", "Timebox restored. Timebox: 9m 0s left (10m budget) | 2 turns left (1/3)"),
    ]
    again.send("two")
    again.send("three")
    assert again.levels() == ["info", "warning"]
    again.send("four")
    assert again.levels() == ["info", "warning", "error"]
