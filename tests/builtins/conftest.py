"""A session on the faux provider with the built-in extensions, in a tmp project and home."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rein.agent import AgentEvent
from rein.agent.tools import builtin_tools
from rein.ai import Context, FauxProvider, Model
from rein.ai.providers.faux import FauxTurn
from rein.builtins import ApproveMode, load_extensions
from rein.extensions import Level
from rein.session import AgentSession, Session
from rein.session.compaction import CompactionSettings


@dataclass
class RecordingUI:
    notices: list[tuple[str, Level]] = field(default_factory=list)
    status: dict[str, str | None] = field(default_factory=dict)
    answers: list[str | None] = field(default_factory=list)
    """Scripted answers to `select` and `input`, in the order asked; None (nobody there) after them."""
    asked: list[tuple[str, Sequence[str]]] = field(default_factory=list)
    """Every question: its title and options (none for `input`)."""

    def notify(self, message: str, level: Level = "info") -> None:
        self.notices.append((message, level))

    def set_status(self, key: str, text: str | None) -> None:
        self.status[key] = text

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        self.asked.append((title, tuple(options)))
        return self.answers.pop(0) if self.answers else None

    async def input(self, title: str, placeholder: str = "") -> str | None:
        self.asked.append((title, ()))
        return self.answers.pop(0) if self.answers else None


@dataclass
class Harness:
    project: Path
    home: Path
    store: Session
    session: AgentSession
    ui: RecordingUI
    faux: FauxProvider
    events: list[AgentEvent]
    notices: list[tuple[str, object]]


Script = Sequence[FauxTurn | Callable[[Context], FauxTurn]]
MakeHarness = Callable[..., Harness]


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    return project, home


@pytest.fixture
def harness(project: tuple[Path, Path]) -> MakeHarness:
    cwd, home = project

    def make(
        script: Script,
        *,
        settings: dict[str, dict[str, object]] | None = None,
        store: Session | None = None,
        approve: ApproveMode | None = "auto",
        interactive: bool = True,
        model: Model | None = None,
    ) -> Harness:
        """`approve` is "auto" unless a test is about approval: the other tests run their tools."""
        store = store or Session.create(str(cwd), home=home)
        ui = RecordingUI()
        faux = FauxProvider(script, chunk_size=3)
        session = AgentSession(
            store=store,
            provider=faux,
            model=model or Model(provider="faux", id="faux-1"),
            cwd=str(cwd),
            ui=ui,
            tools=builtin_tools(),
            compaction=CompactionSettings.from_mapping((settings or {}).get("compaction", {})),
        )
        load_extensions(
            session,
            cwd=str(cwd),
            home=str(home),
            settings=settings or {},
            discovered=False,
            approve=approve,
            interactive=interactive,
        )
        events: list[AgentEvent] = []
        notices: list[tuple[str, object]] = []
        session.subscribe(events.append)
        session.subscribe_notices(lambda name, payload: notices.append((name, payload)))
        return Harness(cwd, home, store, session, ui, faux, events, notices)

    return make
