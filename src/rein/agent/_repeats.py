"""The same tool call, again and again: a model that sends one call with the same arguments many times
in a row (a small model re-running a command it did not understand) is stopped. Past
`AgentConfig.max_repeated_calls` identical calls in a row, the next is not run; its result is a
notice the model reads, and the run ends after that turn, so the person decides what comes next."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rein.ai import ToolCall


def notice(call: ToolCall, times: int) -> str:
    return (
        f"not run: this {call.name} call, with these same arguments, already ran"
        f"{'' if times == 1 else f' {times} times in a row'} and its result will not change. "
        "Do not send it again: try something else, or say what is in the way. The turn ends here."
    )


class Repeats:
    """Counts identical calls in a row across a run's replies (a different call starts again)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.last: str | None = None
        self.streak = 0
        self.refused = False
        """Whether a call was refused: the run ends after this turn."""

    def check(self, calls: Sequence[ToolCall]) -> dict[str, int]:
        """The ids of `calls` (in the order the model sent them) not to run, with how many times the
        same call ran before; none when the limit is 0 (no limit)."""
        refused: dict[str, int] = {}
        for call in calls:
            key = call.name + "\0" + json.dumps(call.arguments, sort_keys=True, default=str)
            self.streak = self.streak + 1 if key == self.last else 1
            self.last = key
            if self.limit and self.streak > self.limit:
                refused[call.id] = self.limit
        self.refused = self.refused or bool(refused)
        return refused
