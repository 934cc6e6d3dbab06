"""Completion of `/commands`, their arguments, and `@paths`."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from rein.extensions import Command
from rein.tui._complete import EditorCompleter


def handler(args: str, ctx: object) -> None:
    return None


COMMANDS = {
    "help": Command(name="help", description="List the commands", handler=handler),
    "history": Command(name="history", description="Past prompts", handler=handler),
    "timebox": Command(name="timebox", description="Budget", handler=handler, completions=("15m", "status")),
}


def complete(text: str, cwd: Path | str = ".") -> list[tuple[str, str, str]]:
    completer = EditorCompleter(lambda: COMMANDS, lambda: str(cwd))
    found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return [(c.text, c.display_text, c.display_meta_text) for c in found]


def test_commands_with_their_descriptions() -> None:
    assert complete("/h") == [
        ("/help ", "/help", "List the commands"),
        ("/history ", "/history", "Past prompts"),
    ]
    assert complete("/ti") == [("/timebox ", "/timebox", "Budget")]
    assert complete("/nothing") == []
    assert complete("not a /command") == []
    assert complete("first line\n/h") == []


def test_a_commands_declared_arguments() -> None:
    assert [c[0] for c in complete("/timebox s")] == ["status"]
    assert [c[0] for c in complete("/timebox ")] == ["15m", "status"]
    assert complete("/help ") == []


def test_paths_after_an_at_sign(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("")
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / ".hidden").write_text("")
    assert [c[0] for c in complete("read @s", tmp_path)] == ["setup.cfg", "src/"]
    assert [c[0] for c in complete("read @src/", tmp_path)] == ["src/app.py"]
    assert [c[0] for c in complete("@.h", tmp_path)] == [".hidden"]
    assert [c[0] for c in complete("@", tmp_path)] == ["setup.cfg", "src/"]  # hidden ones need a dot
    assert complete("@missing/", tmp_path) == []
    assert complete("mail me@host", tmp_path) == []  # only a word that starts with @
