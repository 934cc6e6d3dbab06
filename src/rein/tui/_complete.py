"""Completion in the editor: `/command` names (with their descriptions), a command's declared
argument completions, and file paths after `@` (relative to the session's directory)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from rein.extensions import Command

MAX_PATHS = 200
"""Entries listed from one directory at most (a huge directory stays responsive)."""


class EditorCompleter(Completer):
    def __init__(self, commands: Callable[[], Mapping[str, Command]], cwd: Callable[[], str]) -> None:
        self._commands = commands
        self._cwd = cwd

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and "\n" not in before:
            yield from self._command(before)
            return
        word = before.split()[-1] if before and not before[-1].isspace() else ""
        if word.startswith("@"):
            yield from self._paths(word[1:])

    def _command(self, before: str) -> Iterable[Completion]:
        commands = self._commands()
        name, space, arg = before[1:].partition(" ")
        if not space:
            for found in sorted(commands):
                if found.startswith(name):
                    yield Completion(
                        f"/{found} ",
                        start_position=-len(before),
                        display=f"/{found}",
                        display_meta=commands[found].description,
                    )
            return
        command = commands.get(name)
        for option in command.completions if command else ():
            if option.startswith(arg) and option != arg:
                yield Completion(option, start_position=-len(arg))

    def _paths(self, typed: str) -> Iterable[Completion]:
        folder, _, prefix = typed.rpartition("/")
        base = Path(self._cwd()) / Path(folder).expanduser() if folder else Path(self._cwd())
        if folder == "" and typed.startswith("/"):
            base = Path("/")
        try:
            names = sorted(entry.name for entry in base.iterdir())
        except OSError:
            return
        shown = 0
        for name in names:
            if not name.startswith(prefix) or (name.startswith(".") and not prefix.startswith(".")):
                continue
            is_dir = (base / name).is_dir()
            text = f"{folder}/{name}" if folder or typed.startswith("/") else name
            yield Completion(
                text + ("/" if is_dir else ""),
                start_position=-len(typed),
                display=name + ("/" if is_dir else ""),
            )
            shown += 1
            if shown >= MAX_PATHS:
                return
