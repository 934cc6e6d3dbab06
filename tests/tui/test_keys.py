"""The keys, on the screen's real application fed through a pipe: what Esc, Ctrl-C, Ctrl-D, Enter
and Tab do in each state, and the inline questions."""

from __future__ import annotations

import asyncio

import pytest

from rein.extensions import Command
from rein.tui import _dialogs as dialogs
from rein.tui._complete import EditorCompleter
from rein.tui._screen import EXIT_HINT, Screen
from tests.ai.helpers import run
from tests.tui.screen_harness import running_screen, until

ESC = "\x1b"
ENTER = "\r"
ALT_ENTER = "\x1b\r"
CTRL_C = "\x03"
CTRL_D = "\x04"
UP = "\x1b[A"
DOWN = "\x1b[B"


def test_esc_never_joins_the_next_character() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            pipe.send_text(ESC)
            pipe.send_text("/session")  # in a terminal: Esc then `/` was Alt-/ (complete)
            await until(lambda: screen.editor.text == "/session")
            screen.editor.reset()
            pipe.send_text(ESC + "b")  # even in one read: a bare Esc, then `b`
            await until(lambda: screen.editor.text == "b")

    run(go())


def test_alt_enter_and_ctrl_j_add_a_line_and_enter_sends() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            pipe.send_text("one" + ALT_ENTER + "two\nthree" + ENTER)
            assert await asyncio.wait_for(screen.prompts.get(), 5) == "one\ntwo\nthree"
            assert screen.editor.text == ""

    run(go())


def test_ctrl_c_clears_then_hints_then_exits() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            pipe.send_text("draft")
            await until(lambda: screen.editor.text == "draft")
            pipe.send_text(CTRL_C)
            await until(lambda: screen.editor.text == "")
            assert screen.live.current_hint() == "" and not screen.exiting
            pipe.send_text(CTRL_C)
            await until(lambda: screen.live.current_hint() == EXIT_HINT)
            assert not screen.exiting
            pipe.send_text(CTRL_C)
            assert await asyncio.wait_for(screen.prompts.get(), 5) is None
            assert screen.exiting

    run(go())


def test_ctrl_d_exits_only_at_an_empty_prompt() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            pipe.send_text("ab\x02")  # Ctrl-B: back one, so Ctrl-D has a character to delete
            await until(lambda: screen.editor.cursor_position == 1)
            pipe.send_text(CTRL_D)
            await until(lambda: screen.editor.text == "a")
            assert not screen.exiting
            screen.editor.reset()
            pipe.send_text(CTRL_D)
            assert await asyncio.wait_for(screen.prompts.get(), 5) is None

    run(go())


def running(screen: Screen) -> list[str]:
    """Pretend a run streams; the returned list records each abort."""
    aborts: list[str] = []
    screen.abort_run = lambda: aborts.append("abort")
    screen.live.begin()
    return aborts


def test_during_a_run_enter_queues_and_esc_aborts_and_returns_the_queue() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            aborts = running(screen)
            pipe.send_text("next" + ENTER)
            await until(lambda: screen.live.queued == ["next"])
            assert screen.prompts.empty()
            pipe.send_text("draft")
            await until(lambda: screen.editor.text == "draft")
            pipe.send_text(ESC)
            await until(lambda: aborts == ["abort"])
            assert screen.live.queued == [] and screen.editor.text == "next\ndraft"

    run(go())


def test_ctrl_c_during_a_run_aborts_and_keeps_the_editor() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            aborts = running(screen)
            pipe.send_text("typed ahead")
            await until(lambda: screen.editor.text == "typed ahead")
            pipe.send_text(CTRL_C)
            await until(lambda: aborts == ["abort"])
            assert screen.editor.text == "typed ahead" and not screen.exiting

    run(go())


def test_ctrl_d_during_a_run_aborts_it_and_exits() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            aborts = running(screen)
            pipe.send_text(CTRL_D)
            assert await asyncio.wait_for(screen.prompts.get(), 5) is None
            assert aborts == ["abort"] and screen.exiting

    run(go())


def ask(
    screen: Screen, options: tuple[str, ...] = ("Allow once", "Allow for this session", "Deny")
) -> asyncio.Task[str | None]:
    return asyncio.ensure_future(screen.select("Allow the agent to run: ls?", options))


def test_a_menu_answers_with_arrows_numbers_or_nothing() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            picked = ask(screen)
            await until(lambda: screen.menu is not None and screen.menu.ready())
            pipe.send_text(DOWN + DOWN + UP + ENTER)
            assert await asyncio.wait_for(picked, 5) == "Allow for this session"
            picked = ask(screen)
            await until(lambda: screen.menu is not None and screen.menu.ready())
            pipe.send_text("3")
            assert await asyncio.wait_for(picked, 5) == "Deny"
            picked = ask(screen)
            await until(lambda: screen.menu is not None and screen.menu.ready())
            pipe.send_text("x")  # not a choice: it goes to the editor
            await until(lambda: screen.editor.text == "x")
            pipe.send_text(ESC)
            assert await asyncio.wait_for(picked, 5) is None
            assert screen.menu is None and screen.editor.text == "x"

    run(go())


def test_enter_typed_as_a_menu_appears_goes_to_the_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dialogs, "GRACE", 60.0)  # the keys below come within the grace, however slow

    async def go() -> None:
        async with running_screen() as (screen, pipe):
            running(screen)
            pipe.send_text("next prompt")
            await until(lambda: screen.editor.text == "next prompt")
            picked = ask(screen)
            await until(lambda: screen.menu is not None)
            pipe.send_text(ENTER + "1")  # meant for the prompt: queued and typed, not answers
            await until(lambda: screen.live.queued == ["next prompt"] and screen.editor.text == "1")
            assert not picked.done() and "Esc dismisses" not in _text(screen)
            monkeypatch.setattr(dialogs, "GRACE", 0.0)
            assert "Esc dismisses" in _text(screen)
            pipe.send_text("3")
            assert await asyncio.wait_for(picked, 5) == "Deny"

    run(go())


def _text(screen: Screen) -> str:
    return "".join(fragment[1] for fragment in screen.question())


def test_ctrl_c_in_a_menu_dismisses_it_and_aborts_the_run() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            aborts = running(screen)
            picked = ask(screen)
            await until(lambda: screen.menu is not None and screen.menu.ready())
            pipe.send_text(CTRL_C)
            assert await asyncio.wait_for(picked, 5) is None
            assert aborts == ["abort"]

    run(go())


def test_a_text_question_takes_a_line_or_esc() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            pipe.send_text("my draft")
            await until(lambda: screen.editor.text == "my draft")
            answer = asyncio.ensure_future(screen.input("Why deny?", "a reason"))
            await until(lambda: screen.ask is not None)
            pipe.send_text("not today" + ENTER)
            assert await asyncio.wait_for(answer, 5) == "not today"
            answer = asyncio.ensure_future(screen.input("Why deny?"))
            await until(lambda: screen.ask is not None)
            pipe.send_text("half" + ESC)
            assert await asyncio.wait_for(answer, 5) is None
            assert screen.editor.text == "my draft"  # the editor kept its text throughout

    run(go())


def commands() -> dict[str, Command]:
    def handler(args: str, ctx: object) -> None:
        return None

    return {
        name: Command(name=name, description=f"about {name}", handler=handler, completions=extra)
        for name, extra in (("help", ()), ("history", ()), ("timebox", ("15m", "status", "off")))
    }


def completing(screen: Screen) -> None:
    screen.completer = EditorCompleter(commands, lambda: ".")


def test_tab_right_after_typing_completes() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            completing(screen)
            pipe.send_text("/he\t")  # in one read: no completion from typing has finished yet
            await until(lambda: screen.editor.text == "/help ")
            screen.editor.reset()
            pipe.send_text("/timebox st\t")
            await until(lambda: screen.editor.text == "/timebox status")

    run(go())


def test_enter_on_a_picked_command_runs_it() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            completing(screen)
            pipe.send_text("/h")
            await until(lambda: screen.editor.complete_state is not None)
            pipe.send_text("\t")
            await until(lambda: screen.editor.text == "/help ")
            pipe.send_text(ENTER)
            assert await asyncio.wait_for(screen.prompts.get(), 5) == "/help"

    run(go())


def test_escape_closes_the_completion_menu_and_keeps_the_text() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            completing(screen)
            pipe.send_text("/h")
            await until(lambda: screen.editor.complete_state is not None)
            pipe.send_text(ESC)
            await until(lambda: screen.editor.complete_state is None)
            assert screen.editor.text == "/h"

    run(go())


def test_up_recalls_what_was_sent() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            pipe.send_text("first" + ALT_ENTER + "second" + ENTER)
            await asyncio.wait_for(screen.prompts.get(), 5)
            pipe.send_text(UP)
            await until(lambda: screen.editor.text == "first\nsecond")

    run(go())


def test_a_long_menu_scrolls_to_the_selected_option() -> None:
    async def go() -> None:
        async with running_screen() as (screen, pipe):
            options = tuple(f"session {n}" for n in range(1, 21))
            picked = asyncio.ensure_future(screen.select("Resume which session?\n(newest first)", options))
            await until(lambda: screen.menu is not None and screen.menu.ready())
            pipe.send_text(UP)  # from the first to the last
            await until(lambda: screen.menu is not None and screen.menu.selected_row() == 2 + 19)
            pipe.send_text(ENTER)
            assert await asyncio.wait_for(picked, 5) == "session 20"

    run(go())
