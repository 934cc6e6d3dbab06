"""The screen's state and what the keys do to it: the editor, the live area, the questions, the
prompt queue. The layout (`_layout`) draws it; the key bindings (`_keys`) call its methods; the loop
(`_loop`) takes prompts from `prompts` and runs them.

Every method here is synchronous and runs on the event loop, so a key is handled completely before
the next one is read: nothing typed is lost or sent to the wrong place.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import Completer, DynamicCompleter
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import History

from rein.tui._dialogs import GRACE, Ask, Menu, answered, start
from rein.tui._live import Live
from rein.tui._scrollback import Scrollback

EXIT_HINT = "Press Ctrl-C again to exit"
HINT_SECONDS = 3.0
"""How long a second Ctrl-C at the empty prompt counts as "again"."""


class Screen:
    def __init__(self, out: Scrollback, history: History) -> None:
        self.out = out
        self.completer: Completer | None = None
        """Set by the loop once the session (its commands, its directory) exists."""
        self.editor = Buffer(
            multiline=True,
            history=history,
            completer=DynamicCompleter(lambda: self.completer),
            complete_while_typing=True,
        )
        self.live = Live()
        self.menu: Menu | None = None
        self.ask: Ask | None = None
        self.answer = Buffer(multiline=False)
        """The line a text question is answered in."""
        self.prompts: asyncio.Queue[str | None] = asyncio.Queue()
        self.exiting = False
        self.app: Application[None] | None = None
        self.abort_run: Callable[[], None] = lambda: None
        """Set by the loop to the session's abort."""
        self.focus_changed: Callable[[], None] = self.invalidate
        """Set by the layout: moves the focus between the editor and a question's input line."""
        self._questions = asyncio.Lock()

    def invalidate(self) -> None:
        if self.app is not None:
            self.app.invalidate()

    # -- the editor ---------------------------------------------------------------------------

    def submit(self) -> None:
        """Enter: send the editor's text now, or queue it while a run streams."""
        text = self.editor.text.strip()
        if not text:
            return
        self.editor.append_to_history()
        self.clear_editor()
        if self.live.running:
            self.live.queued.append(text)
        else:
            self.prompts.put_nowait(text)
        self.invalidate()

    def clear_editor(self) -> None:
        self.editor.reset()
        # `reset` empties the editor's view of the history until the next redraw reloads it; load
        # it now, so an Up pressed right away already finds what was just sent.
        self.editor.load_history_if_not_yet_loaded()

    def interrupt(self) -> None:
        """Ctrl-C: dismiss a question, abort a run, clear the editor, or (twice) exit."""
        if self.menu is not None or self.ask is not None:
            self.dismiss()
            self.abort()
        elif self.live.running:
            self.abort()
        elif self.editor.text:
            self.clear_editor()
        elif self.live.current_hint() == EXIT_HINT:
            self.request_exit()
        else:
            self.live.show_hint(EXIT_HINT, HINT_SECONDS)
        self.invalidate()

    def escape(self) -> None:
        """Esc: close the completion menu, dismiss a question, or abort the run; idle, nothing."""
        if self.editor.complete_state is not None:
            self.editor.cancel_completion()
        elif self.menu is not None or self.ask is not None:
            self.dismiss()
        elif self.live.running:
            self.abort()
        self.invalidate()

    def request_exit(self) -> None:
        """Ctrl-D at the empty prompt, the second Ctrl-C: end after the run in progress is aborted."""
        self.exiting = True
        self.dismiss()
        if self.live.running:
            self.abort()
        self.prompts.put_nowait(None)

    def abort(self) -> None:
        if not self.live.running:
            return
        self.live.abort_requested = True
        self.abort_run()
        if self.live.queued:
            # Stopping means stopping: queued prompts go back to the editor instead of running next.
            kept = [*self.live.queued, *([self.editor.text] if self.editor.text.strip() else [])]
            self.live.queued.clear()
            self.editor.text = "\n".join(kept)
            self.editor.cursor_position = len(self.editor.text)

    # -- questions ----------------------------------------------------------------------------

    def accepting(self) -> bool:
        """Whether a question can be answered: the screen is up and not closing."""
        return self.app is not None and self.app.is_running and not self.exiting

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        if not options:
            return None
        async with self._questions:
            future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
            self.menu = Menu(title=title, options=tuple(options), answer=future, index=start(options))
            self.invalidate()
            asyncio.get_running_loop().call_later(GRACE, self.invalidate)  # show the help then
            try:
                answer = await future
            finally:
                self.menu = None
                self.invalidate()
            self.out.write(answered(title, answer))
            return answer

    async def input(self, title: str, placeholder: str = "") -> str | None:
        async with self._questions:
            future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
            self.ask = Ask(title=title, placeholder=placeholder, answer=future)
            self.answer.reset()
            self.focus_changed()
            try:
                answer = await future
            finally:
                self.ask = None
                self.focus_changed()
            self.out.write(answered(title, answer))
            return answer

    def pick(self, index: int | None = None) -> None:
        menu = self.menu
        if menu is not None and not menu.answer.done():
            menu.answer.set_result(menu.options[menu.index if index is None else index])

    def answer_ask(self) -> None:
        ask = self.ask
        if ask is not None and not ask.answer.done():
            ask.answer.set_result(self.answer.text)

    def dismiss(self) -> None:
        for question in (self.menu, self.ask):
            if question is not None and not question.answer.done():
                question.answer.set_result(None)

    # -- the bottom lines ---------------------------------------------------------------------

    def question(self) -> StyleAndTextTuples:
        if self.menu is not None:
            return self.menu.fragments()
        if self.ask is not None:
            return [("class:menu.title", self.ask.title)]
        return []
