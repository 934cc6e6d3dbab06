"""The session both demos run: a scratch project with one stream rule, rein's built-in extensions, and
the prompts of a `Setup`, shown as they stream."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from rein.agent import AgentMessage
from rein.agent.tools import builtin_tools
from rein.ai import Model, Provider, StreamOptions
from rein.builtins import load_extensions
from rein.builtins.ttsr import INJECTION_ENTRY
from rein.cli._render import Printer, TerminalUI
from rein.session import AgentSession, Session

Report = Callable[[list[AgentMessage]], None]
"""Called after each prompt has run, with the messages it added: says what really happened."""

RULE = """---
description: No console.log in application code
condition: 'console\\.log\\b'
scope: text, tool:write(*.js)
---
Do not use console.log in application code. Use the project's logger:
`import { log } from "./log.js"` and `log.info(...)`.
"""


@dataclass(frozen=True, slots=True)
class Setup:
    """What differs between the two demos: the model, its options and the prompts."""

    title: str
    provider: Provider
    model: Model
    prompts: tuple[str, ...]
    options: StreamOptions = field(default_factory=StreamOptions)
    system_prompt: str = ""
    max_repeated_calls: int = 4


async def run_session(console: Console, setup: Setup, watch: Callable[[AgentSession], Report] | None) -> int:
    """One demo session in a scratch project holding the `no-console-log` rule; `watch` subscribes to
    it and reports, after each prompt, what really happened."""
    with tempfile.TemporaryDirectory(prefix="rein-demo-") as scratch:
        home = Path(scratch) / "home"
        project = home / "shop"
        (project / ".rein" / "rules").mkdir(parents=True)
        (project / ".rein" / "rules" / "no-console-log.md").write_text(RULE)
        store = Session.create(str(project), home=home)
        session = AgentSession(
            store=store,
            provider=setup.provider,
            model=setup.model,
            cwd=str(project),
            ui=TerminalUI(console),
            tools=builtin_tools(),
            system_prompt=setup.system_prompt,
            options=setup.options,
            max_repeated_calls=setup.max_repeated_calls,
        )
        # The demo is scripted and runs in a scratch directory, with nobody to answer an approval
        # question: its tool calls run without asking, so steering alone decides, as it shows.
        load_extensions(
            session, cwd=str(project), home=str(home), settings={}, discovered=False, approve="auto"
        )
        printer = Printer(console)
        session.subscribe(printer.event)
        session.subscribe_notices(printer.notice)
        report = watch(session) if watch else None
        await session.start()
        console.rule(f"[bold]rein demo[/] ({setup.title})")
        console.print(
            f"[dim]rule file: .rein/rules/no-console-log.md; session: {escape(str(store.path))}[/]\n"
        )
        for prompt in setup.prompts:
            console.print(f"[bold green]you:[/] {escape(prompt)}")
            added = await session.prompt(prompt)
            if report:
                report(added)
            console.print()
        await session.shutdown()
        entries = len(store.path.read_text().splitlines()) - 1 if store.path else 0
        injections = len(session.custom_entries(INJECTION_ENTRY))
        console.print(
            f"[dim]{entries} session entries written; ttsr_injection records among them: {injections}.[/]"
        )
    return 0
