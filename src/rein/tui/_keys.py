"""The keys: prompt_toolkit's Emacs-style editing (without its Alt+character bindings), and rein's:

    Enter            send (queued while a run streams); with a completion picked, take it
    Alt-Enter, Ctrl-J   a new line (Shift-Enter too, where the terminal sends it as Alt-Enter)
    Esc              close completions, dismiss a question, or abort the run
    Ctrl-C           dismiss a question and abort, abort the run, clear the editor, or exit (twice)
    Ctrl-D           exit at an empty prompt
    Up/Down, 1-9     in a question's menu (after a short grace, see `_dialogs.GRACE`)

Why no Alt+character: a terminal sends Alt-x as Esc then x, so with such bindings an Esc pressed
shortly before typing joins the next key (Esc then `/help` became Alt-/ and `help`). Here Esc and a
character are always a bare Esc and that character, however fast the next key comes; Alt-Enter and
Alt-Backspace, which are not characters, stay.
"""

from __future__ import annotations

from prompt_toolkit.buffer import Buffer, CompletionState
from prompt_toolkit.completion import CompleteEvent, get_common_complete_suffix
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, KeyPressEvent, merge_key_bindings
from prompt_toolkit.key_binding.defaults import load_key_bindings
from prompt_toolkit.keys import Keys

from rein.tui._dialogs import option_at
from rein.tui._screen import Screen


def esc_then_character(screen: Screen) -> KeyBindings:
    """prompt_toolkit's defaults bind Alt+character (Esc then a character: Alt-/ completes, Alt-b
    moves a word back). Each is overridden here by a bare Esc followed by the character as typed."""
    kb = KeyBindings()
    for binding in load_key_bindings().bindings:
        keys = binding.keys
        if len(keys) == 2 and keys[0] == Keys.Escape and _is_character(keys[1]):
            kb.add(*keys)(lambda event: _replay(screen, event))
    return kb


def _replay(screen: Screen, event: KeyPressEvent) -> None:
    screen.escape()
    event.app.key_processor.feed(event.key_sequence[1], first=True)


def _is_character(key: object) -> bool:
    return isinstance(key, str) and len(key) == 1 and key.isprintable()


def screen_bindings(screen: Screen) -> KeyBindings:
    kb = KeyBindings()
    # A menu takes its keys once it is ready; before that they go on to the editor (see GRACE).
    menu = Condition(lambda: screen.menu is not None and screen.menu.ready())
    ask = Condition(lambda: screen.ask is not None)
    editing = has_focus(screen.editor) & ~menu & ~ask
    empty = Condition(lambda: not screen.editor.text)

    @kb.add("tab", filter=editing)
    def _complete(event: KeyPressEvent) -> None:
        complete(screen.editor)

    @kb.add("enter", filter=editing)
    def _enter(event: KeyPressEvent) -> None:
        state = screen.editor.complete_state
        if state is not None and state.current_completion is not None:
            screen.editor.apply_completion(state.current_completion)
            if not screen.editor.text.startswith("/"):
                return  # a path or an argument was picked: keep editing
        screen.submit()

    @kb.add("escape", "enter", filter=editing)
    @kb.add("c-j", filter=editing)
    def _newline(event: KeyPressEvent) -> None:
        screen.editor.newline(copy_margin=False)

    @kb.add("escape")
    def _escape(event: KeyPressEvent) -> None:
        screen.escape()

    @kb.add("c-c")
    @kb.add(Keys.SIGINT)
    def _interrupt(event: KeyPressEvent) -> None:
        screen.interrupt()

    @kb.add("c-d", filter=editing & empty)
    def _exit(event: KeyPressEvent) -> None:
        screen.request_exit()

    @kb.add("up", filter=menu)
    @kb.add("s-tab", filter=menu)
    def _up(event: KeyPressEvent) -> None:
        if screen.menu is not None:
            screen.menu.move(-1)

    @kb.add("down", filter=menu)
    @kb.add("tab", filter=menu)
    def _down(event: KeyPressEvent) -> None:
        if screen.menu is not None:
            screen.menu.move(1)

    @kb.add("enter", filter=menu)
    def _pick(event: KeyPressEvent) -> None:
        screen.pick()

    @kb.add(Keys.Any, filter=menu)
    def _number(event: KeyPressEvent) -> None:
        index = option_at(screen.menu.options, event.data) if screen.menu is not None else None
        if index is not None:
            screen.pick(index)
        elif len(event.data) == 1 and event.data.isprintable():
            screen.editor.insert_text(event.data)  # not a choice: type-ahead goes on in the editor

    @kb.add("enter", filter=ask)
    def _answer(event: KeyPressEvent) -> None:
        screen.answer_ask()

    return kb


def complete(editor: Buffer) -> None:
    """Tab: the next completion when the menu is open; else complete now, synchronously. (The
    default Tab is dropped while a completion started by typing is still being computed, so a Tab
    typed right after a character did nothing.)"""
    if editor.complete_state is not None:
        editor.complete_next()
        return
    event = CompleteEvent(completion_requested=True)
    found = list(editor.completer.get_completions(editor.document, event))
    if len(found) == 1:
        editor.apply_completion(found[0])
        return
    common = get_common_complete_suffix(editor.document, found)
    if common:
        editor.insert_text(common)
    elif found:
        editor.complete_state = CompletionState(original_document=editor.document, completions=found)
        editor.go_to_completion(0)


def key_bindings(screen: Screen) -> KeyBindingsBase:
    """The application's bindings; they take priority over prompt_toolkit's defaults."""
    return merge_key_bindings([esc_then_character(screen), screen_bindings(screen)])
