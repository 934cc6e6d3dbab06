"""Terminal multiplexers: what `tmux` and `screen` run in a new window, pane or session, or type into
one.

tmux is a runner for `new-session`/`new-window`/`split-window`/`respawn-*`/`display-popup`/`pipe-pane`
(their shell command), `run-shell`, `if-shell`, `detach-client -E`, `send-keys` (the keys it types
form a command line), `bind-key`/`set-hook`/`confirm-before`/`command-prompt` (a tmux command that
runs later), `-c` and `set default-command`; every other command is inert, but a `#(command)` in a
format it expands runs. Commands chain with `;` and abbreviate to a unique prefix, as tmux reads them.
screen runs its operands (`screen -dmS name cmd`) and `-X stuff`/`screen`/`exec` in a session.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rein.steering.bash.commands._console_tables import TMUX_COMMANDS
from rein.steering.bash.commands._guess import parses
from rein.steering.bash.commands._inner import Argv, Call, Inner, Mode, Unwrapped, run, script
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Word

_ALIASES = {alias: name for name, (alias, _) in TMUX_COMMANDS.items() if alias}
_SHELL_COMMANDS = frozenset({
    "new-session", "new-window", "split-window", "respawn-pane", "respawn-window", "display-popup",
    "pipe-pane",
})  # fmt: skip
"""Commands whose operands are a shell command (one word: a string the shell runs; several: an argv)."""
_TMUX_LATER = frozenset({"bind-key", "set-hook", "command-prompt"})
"""Commands that hold a tmux command for later."""
_TMUX_DETACHED = frozenset({*_SHELL_COMMANDS, "send-keys"}) - {"display-popup", "new-session"}
"""Commands whose command runs in a tmux pane, not in the caller's shell, which goes on at once (as
`new-session -d` does; without `-d` it attaches the caller's terminal until the session ends)."""
_MAX_COMMANDS = 32


def tmux_name(word: Word) -> str | None:
    """The tmux command a word names: an exact name or alias, else a unique prefix of a name."""
    if word.dynamic:
        return None
    value = word.value
    if value in TMUX_COMMANDS:
        return value
    if value in _ALIASES:
        return _ALIASES[value]
    found = [name for name in TMUX_COMMANDS if name.startswith(value)] if value else []
    return found[0] if len(found) == 1 else None


def tmux(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, spec("tmux"))
    jobs = _Jobs()
    command = parsed.last("-c")
    if command is not None:
        jobs.add(script("tmux -c", "child", (command,), "tmux -c command"))
    for words in _sequence(argv[parsed.rest :])[:_MAX_COMMANDS]:
        _command(call, words, jobs)
    return Unwrapped(tuple(jobs.inners), tuple(jobs.notes))


class _Jobs:
    def __init__(self) -> None:
        self.inners: list[Inner] = []
        self.notes: list[str] = []

    def add(self, found: Unwrapped) -> None:
        self.inners.extend(found.inners)
        self.notes.extend(found.notes)


def _sequence(words: Argv) -> list[Argv]:
    """Commands separated by a `;` word, or a word ending in an unescaped `;` (`new -d\\;`)."""
    commands: list[Argv] = []
    current: list[Word] = []
    for word in words:
        value = word.value
        if not word.dynamic and value.endswith(";") and not value.endswith("\\;"):
            if value != ";":
                current.append(Word(value=value[:-1], raw=word.raw))
            commands.append(tuple(current))
            current = []
        else:
            current.append(Word(value=value[:-1], raw=word.raw) if value.endswith("\\;") else word)
    commands.append(tuple(current))
    return [command for command in commands if command]


def _command(call: Call, words: Argv, jobs: _Jobs) -> None:
    """One tmux command: what it runs, and the `#(...)` of its arguments."""
    name = tmux_name(words[0])
    if name is None:
        if words[0].dynamic:
            jobs.notes.append(f"tmux command is dynamic: {words[0].raw}")
        return
    parsed = parse(words, 1, spec(f"tmux {name}"))
    operands = words[parsed.rest :]
    label = f"tmux {name}"
    start = len(jobs.inners)
    if name in _SHELL_COMMANDS and operands:
        if len(operands) == 1:
            jobs.add(script(label, "maybe", operands, f"{label} command"))
        else:
            jobs.add(run(label, "maybe", operands))
    elif name == "run-shell" and operands:
        shell = script(label, "maybe", operands[:1], f"{label} command")
        jobs.add(_tmux_string(label, operands[0], "maybe") if parsed.has("-C") else shell)
    elif name == "if-shell" and operands:
        if not parsed.has("-F"):
            jobs.add(script(label, "maybe", operands[:1], f"{label} command"))
        for other in operands[1:3]:
            jobs.add(_tmux_string(label, other))
    elif name == "detach-client":
        jobs.add(script(label, "maybe", tuple(parsed.values("-E")), f"{label} -E command"))
    elif name == "send-keys" and not parsed.has("-X", "-M", "-R"):
        jobs.add(_keys(label, operands, literal=parsed.has("-l"), hexadecimal=parsed.has("-H")))
    elif name == "confirm-before" and operands:
        jobs.add(_tmux_string(label, operands[0], "maybe"))
    elif name in _TMUX_LATER:
        held = operands[1:] if name in ("bind-key", "set-hook") else operands[:1]
        if len(held) == 1:
            jobs.add(_tmux_string(label, held[0]))
        elif held:
            jobs.add(run(label, "later", (Word.literal("tmux"), *held)))
    elif (
        name in ("set-option", "set-window-option")
        and operands[:1]
        and operands[0].value == "default-command"
    ):
        jobs.add(script(label, "later", operands[1:2], f"{label} default-command"))
    detached = {"new-session": "-d", "run-shell": "-b"}.get(name)
    if name in _TMUX_DETACHED or (detached is not None and parsed.has(detached)):
        jobs.inners[start:] = _background(jobs.inners[start:])
    for word in words[1:]:
        for text in _formats(word.value):
            jobs.inners.append(Inner(f"{label} #()", "maybe", script=text))


def _background(inners: list[Inner]) -> list[Inner]:
    return [replace(inner, background=True) for inner in inners]


def _tmux_string(label: str, word: Word, mode: Mode = "later") -> Unwrapped:
    """A tmux command given as one string (`bind x 'run-shell "..."'`): tmux parses it as a command
    line, much as the shell does; a `;` between commands stays a tmux separator."""
    if word.dynamic:
        return Unwrapped(notes=(f"{label} command is dynamic: {word.raw}",))
    text = "tmux " + _SEPARATOR.sub(r"\\;", word.value)
    return Unwrapped((Inner(label, mode, script=text),))


_SEPARATOR = re.compile(r"(?<=\s);(?=\s|$)")


def _formats(text: str) -> list[str]:
    """The commands of the `#(command)` parts of a tmux format, each up to its matching parenthesis
    (or the end, unclosed); one pass over the text."""
    found: list[str] = []
    opened: list[int | None] = []  # where each open parenthesis's command starts; None: a plain one
    index = 0
    while index < len(text) and len(found) < _MAX_COMMANDS:
        if text.startswith("#(", index):
            opened.append(index + 2)
            index += 2
            continue
        if text[index] == "(":
            opened.append(None)
        elif text[index] == ")" and opened:
            start = opened.pop()
            if start is not None:
                found.append(text[start:index])
        index += 1
    found.extend(text[start:] for start in opened if start is not None)
    return found[:_MAX_COMMANDS]


_ENTER = frozenset({"Enter", "C-m", "C-j", "KPEnter"})
"""Keys that submit the line typed so far."""
_KEY_TEXT = {"Space": " ", "Tab": "\t", "C-i": "\t"}
_KEY_NAME = re.compile(
    r"^(?:(?:[CMS]-|\^)+.+|F\d{1,2}|Up|Down|Left|Right|Home|End|PageUp|PgUp|PageDown|PgDn|PPage|NPage"
    r"|DC|IC|Delete|Insert|Escape|BSpace|BTab|KP.+|Any|Mouse.+|WheelUp.+|WheelDown.+)$"
)
"""tmux key names (`C-c`, `M-x`, `Escape`, `F5`): a key, not text; what was typed before it is read
apart from what comes after, as far as rein reads it."""


def _keys(label: str, words: Argv, *, literal: bool, hexadecimal: bool) -> Unwrapped:
    """The text `send-keys` types: its arguments joined, key names read as the keys they are.

    What is typed up to the last Enter (the key, or a newline in the text) is submitted: the pane may
    run a shell, so lines that parse as bash are checked as commands; lines that do not are typed
    into something else (a REPL, an editor) or rejected by the shell, and run nothing. Text typed
    after it does not run now but waits at the prompt for an Enter a later command may type, so it
    is checked as a guess (only a command it certainly holds blocks)."""
    typed: list[str] = []
    submitted = 0
    notes: list[str] = []
    for word in words:
        value = word.value
        if word.dynamic:
            notes.append(f"{label} keys are dynamic: {word.raw}")
            typed.append("\n")
        elif not literal and not hexadecimal and value in _ENTER:
            typed.append("\n")
            submitted = len(typed)
        elif not literal and not hexadecimal and value in _KEY_TEXT:
            typed.append(_KEY_TEXT[value])
        elif (
            hexadecimal and not (re.fullmatch(r"[0-9a-fA-F]{1,6}", value) and int(value, 16) < 0x110000)
        ) or (not literal and not hexadecimal and len(value) > 1 and _KEY_NAME.match(value)):
            typed.append("\n")
        else:  # text, where a newline or carriage return is an Enter too
            text = chr(int(value, 16)) if hexadecimal else value
            line, enter, rest = text.replace("\r", "\n").rpartition("\n")
            if enter:
                typed.append(line + enter)
                submitted = len(typed)
            typed.append(rest)
    return Unwrapped(_typed(label, "".join(typed[:submitted]), "".join(typed[submitted:])), tuple(notes))


def _typed(label: str, lines: str, waiting: str) -> tuple[Inner, ...]:
    inners: list[Inner] = []
    if lines.strip():
        chunks = [lines] if parses(lines) else [line for line in lines.split("\n") if parses(line)]
        inners.extend(Inner(label, "maybe", script=chunk) for chunk in chunks if chunk.strip())
    if waiting.strip():
        why = f"{label} types it without Enter: it waits at the prompt"
        inners.append(Inner(label, "maybe", script=waiting, why=why, speculative=True))
    return tuple(inners)


def screen(call: Call) -> Unwrapped:
    """`screen [options] [cmd args]` runs cmd in a new session (`-dmS name cmd`); `-r`/`-x`/`-ls`
    name a session instead; `-X cmd` sends a screen command to a running session: `stuff TEXT`
    types TEXT, `screen cmd` and `exec cmd` run cmd."""
    argv = call.argv
    index = 1
    attach = False
    detached = False
    forks = False  # `-d -m` forks the session and returns; `-D -m` stays until it ends
    while index < len(argv) and argv[index].value.startswith("-") and not argv[index].dynamic:
        value = argv[index].value
        index += 1
        if value == "--":
            break
        if value in ("-ls", "-list", "-wipe", "-v", "-help"):
            return Unwrapped()
        if value in ("-Logfile", "-fn", "-fa", "-ln"):
            index += value == "-Logfile"
            continue
        if value == "-X":  # what it runs, runs in the session
            return _in_session(_screen_command(argv[index:]))
        for position, letter in enumerate(value[1:], start=1):
            if letter == "X":
                return _in_session(_screen_command(argv[index:]))
            if letter in "cehpsStT":  # takes the rest of the word, or the next word
                index += position + 1 == len(value)
                break
            attach = attach or letter in "rRxD" or letter == "d"
            detached = detached or letter == "m"
            forks = forks or letter == "d"
    if attach and not detached:
        return Unwrapped()
    found = run("screen", "maybe", argv[index:])
    return _in_session(found) if forks and detached else found


def _in_session(found: Unwrapped) -> Unwrapped:
    return Unwrapped(tuple(_background(list(found.inners))), found.notes, found.problems)


def _screen_command(words: Argv) -> Unwrapped:
    """A screen command sent with `-X`."""
    if not words or words[0].dynamic:
        return Unwrapped(notes=(f"screen -X command is dynamic: {words[0].raw}",) if words else ())
    name, rest = words[0].value, words[1:]
    if name == "stuff":
        text = "".join(_screen_escapes(word.value) for word in rest)
        notes = tuple(f"screen -X stuff text is dynamic: {word.raw}" for word in rest if word.dynamic)
        return Unwrapped((Inner("screen -X stuff", "maybe", script=text),) if text.strip() else (), notes)
    if name == "screen":
        while rest and rest[0].value.startswith("-"):
            rest = rest[2:] if rest[0].value in ("-t", "-h", "-T") else rest[1:]
        if rest and rest[0].value.isdigit():
            rest = rest[1:]
        return run("screen -X screen", "maybe", rest)
    if name == "exec":
        if rest and re.fullmatch(r"[.!|:\-0-9]+", rest[0].value):
            rest = rest[1:]
        return run("screen -X exec", "maybe", rest)
    return Unwrapped()


def _screen_escapes(text: str) -> str:
    """screen's string escapes: `\\n`, `\\r`, `^M`, `^J` end a line."""
    for escape in ("\\n", "\\r", "^M", "^J"):
        text = text.replace(escape, "\n")
    return text.replace("\\\\", "\\")
