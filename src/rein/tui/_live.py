"""What the screen shows besides the scrollback: the live area of a run, the status numbers, and
the run's bookkeeping. Plain state: the event view writes it, the layout reads it at every redraw."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(slots=True)
class Live:
    running: bool = False
    started: float = 0.0
    """`time.monotonic()` when the run started (the footer's elapsed time)."""
    text: str = ""
    """The reply's text not yet moved to the scrollback (its last lines, still streaming)."""
    thinking: str = ""
    """The thinking block streaming now (shown as one dim line)."""
    forming: str = ""
    """The summary of the tool call the model is still writing."""
    tools: dict[str, tuple[str, float]] = field(default_factory=dict)
    """Running tool calls by id: summary and start time."""
    queued: list[str] = field(default_factory=list)
    """Prompts submitted while a run streams; each runs after it, in order."""
    tokens: int = 0
    """Tokens of the model's context on the active branch: the last reply's reported usage plus
    estimates for what followed it (`_replay.context_tokens`), the same before and after a resume."""
    firings: int = 0
    """Stream rules fired since this session was opened here."""
    statuses: dict[str, str] = field(default_factory=dict)
    """Extensions' status texts by key (`ui.set_status`), e.g. the timebox countdown."""
    hint: str = ""
    hint_until: float = 0.0
    abort_requested: bool = False
    """An abort asked for in this run; repeated when the run's first event comes, because an abort
    issued before the run began (input handlers still working) would reach no run."""

    def begin(self) -> None:
        self.running = True
        self.started = time.monotonic()
        self.abort_requested = False
        self.clear_stream()

    def end(self) -> None:
        self.running = False
        self.clear_stream()
        self.tools.clear()

    def clear_stream(self) -> None:
        self.text = ""
        self.thinking = ""
        self.forming = ""

    def show_hint(self, text: str, seconds: float) -> None:
        self.hint = text
        self.hint_until = time.monotonic() + seconds

    def current_hint(self) -> str:
        return self.hint if time.monotonic() < self.hint_until else ""
