"""The two questions an extension may ask (`ui.select`, `ui.input`), as small inline dialogs above
the editor: one at a time, answered with the keys, None when dismissed (Esc or Ctrl-C)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.processors import Processor, Transformation, TransformationInput

from rein.builtins import CURRENT_MARK

GRACE = 0.4
"""Seconds after a menu appears during which Enter and the number keys still go to the editor: a
key typed for the prompt (Enter, type-ahead) must not answer a question that appeared under it,
such as an approval whose first option is "Allow once"."""


@dataclass(slots=True, kw_only=True)
class Menu:
    """A pick-one list: arrows move, Enter picks, 1-9 pick directly (once it is `ready`)."""

    title: str
    options: tuple[str, ...]
    answer: asyncio.Future[str | None]
    index: int = 0
    shown: float = field(default_factory=time.monotonic)

    def ready(self) -> bool:
        return time.monotonic() - self.shown >= GRACE

    def move(self, step: int) -> None:
        self.index = (self.index + step) % len(self.options)

    def selected_row(self) -> int:
        """The row of the selected option, so a long menu in a short window scrolls to it."""
        return self.title.count("\n") + 1 + self.index

    def fragments(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = [("class:menu.title", self.title)]
        for number, option in enumerate(self.options, 1):
            chosen = number - 1 == self.index
            mark = ">" if chosen else " "
            style = "class:menu.selected" if chosen else "class:menu.option"
            out.append(("", "\n"))
            out.append((style, f"{mark} {number}. {option}" if number < 10 else f"{mark}    {option}"))
        last = min(len(self.options), 9)
        if self.ready():  # the help shows when the keys answer
            out.append(("class:menu.help", f"\nUp/Down and Enter, or 1-{last}; Esc dismisses"))
        return out


@dataclass(slots=True, kw_only=True)
class Ask:
    """A one-line text question (typed in the screen's answer line): Enter answers, Esc dismisses."""

    title: str
    placeholder: str
    answer: asyncio.Future[str | None]


class Placeholder(Processor):
    """Dim text in an empty input line, saying what to type."""

    def __init__(self, text: Callable[[], str]) -> None:
        self.text = text

    def apply_transformation(self, ti: TransformationInput) -> Transformation:
        text = self.text()
        if ti.document.text or ti.lineno != 0 or not text:
            return Transformation(ti.fragments)
        return Transformation([*ti.fragments, ("class:placeholder", text)])


def answered(title: str, answer: str | None) -> StyleAndTextTuples:
    """What stays in the scrollback after a question: the question's first line and the answer."""
    first = title.strip().splitlines()[0] if title.strip() else ""
    shown = "(dismissed)" if answer is None else answer or "(empty)"
    return [("class:menu.title", first), ("", " "), ("class:answer", shown)]


def start(options: Sequence[str]) -> int:
    """Where a menu's selection starts: on the option marked current (`/tree`'s leaf), else the first."""
    return next((i for i, option in enumerate(options) if option.endswith(CURRENT_MARK)), 0)


def option_at(options: Sequence[str], key: str) -> int | None:
    """The index a number key picks, if there is such an option."""
    if key.isdigit() and 1 <= int(key) <= min(len(options), 9):
        return int(key) - 1
    return None
