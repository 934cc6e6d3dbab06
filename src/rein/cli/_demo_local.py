"""The demo session on the embedded local model: nothing the model writes is scripted, so what it does
after a cut and after a blocked command is reported as it happened."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.markup import escape

from rein.agent import AgentEvent, AgentMessage, CustomMessage
from rein.ai import AssistantMessage, Model, StreamOptions, ToolResultMessage, get_provider
from rein.ai.providers.local_files import BUNDLED, SYSTEM_PROMPT
from rein.builtins.ttsr import INJECTION_MESSAGE
from rein.cli._demo_session import Report, Setup
from rein.session import AgentSession

PROMPTS = (
    "Write a JavaScript function total(items) that adds up item.price and prints the total to the console.",
    "Start the development server with npm run dev. Write the command in a bash code block.",
)
MAX_TURNS = 3
"""Turns one prompt may take: a small model may answer a blocked command with another command."""


def local_setup() -> Setup:
    return Setup(
        title="SmolLM2-135M through llama.cpp, on this machine: nothing is scripted",
        provider=get_provider("local"),
        model=Model(provider="local", id=BUNDLED),
        prompts=PROMPTS,
        # Greedy sampling: the same build of llama.cpp gives the same replies, run after run.
        options=StreamOptions(temperature=0.0, max_tokens=200),
        system_prompt=SYSTEM_PROMPT,
        # A small model sends a blocked command again, word for word: the second time, loop detection
        # answers instead of running it (`[rein] max_repeated_calls`, 4 by default).
        max_repeated_calls=1,
    )


def local_report(console: Console) -> Callable[[AgentSession], Report]:
    return lambda session: LocalReport(session, console)


class LocalReport:
    """Shows each injected rule as it is sent, caps the turns of a prompt, and says after each prompt
    whether the rule fired, whether the model then followed it, and what steering blocked."""

    def __init__(self, session: AgentSession, console: Console) -> None:
        self.session = session
        self.console = console
        self.turns = 0
        session.subscribe(self.event)

    def event(self, event: AgentEvent) -> None:
        message = event.message
        if event.type == "turn_start":
            self.turns += 1
            if self.turns > MAX_TURNS:
                self.console.print(f"[yellow]rein demo: stopping after {MAX_TURNS} turns.[/]")
                self.session.abort()
        elif (
            event.type == "message_end"
            and isinstance(message, CustomMessage)
            and message.custom_type == INJECTION_MESSAGE
        ):
            self.console.print("[magenta]injected (the model reads this; the cut text is gone):[/]")
            self.console.print(f"[dim]{escape(message.content)}[/]")

    def __call__(self, added: list[AgentMessage]) -> None:
        self.turns = 0
        cuts = sum(isinstance(m, CustomMessage) and m.custom_type == INJECTION_MESSAGE for m in added)
        replies = [m for m in added if isinstance(m, AssistantMessage)]
        blocked = [m for m in added if isinstance(m, ToolResultMessage) and "[steering:" in m.text]
        calls = [m for m in added if isinstance(m, ToolResultMessage)]
        repeated = [m for m in calls if m.text.startswith("not run: this ")]
        lines: list[str] = []
        if cuts:
            final = replies[-1].text if replies else ""
            lines.append(
                f"The stream rule cut the reply {cuts} time(s) and the turn was retried. "
                + (
                    "The retried reply writes console.log again: a 135M model does not always follow an"
                    " injected rule, and a rule fires once per session by default, so this reply was kept."
                    if "console.log" in final
                    else "The retried reply does not use console.log: the rule is in the model's context,"
                    " and llama.cpp kept the cut text out of every token it sampled (a grammar)."
                )
            )
        if blocked:
            lines.append(
                f"Steering blocked {len(blocked)} of the {len(calls)} command(s) the model wrote;"
                " the model read each reason as the tool's result."
            )
        elif calls:
            lines.append(f"The model wrote {len(calls)} command(s); steering allowed them.")
        if repeated:
            lines.append(
                "The model then sent a command again, word for word: loop detection answered instead"
                " of running it, and the run ended."
            )
        if not cuts and not calls:
            lines.append("The model wrote nothing a rule watches for this time, so nothing fired.")
        for line in lines:
            self.console.print(f"[bold]what happened:[/] {escape(line)}")
