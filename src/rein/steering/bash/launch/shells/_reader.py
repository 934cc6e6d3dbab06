"""A foreign shell's program as the bash script that runs the same commands: fish, csh and tcsh,
PowerShell, nushell and elvish.

Every simple command is kept, with its words as the shell hands them over; a block's keywords are
dropped and its body read as statements (every branch may run); a builtin whose arguments are data
(fish's `set`, nushell's `where`, a PowerShell `Verb-Noun` cmdlet) runs nothing. What the shell runs
in a way rein does not follow is a note, which makes the launch unknown: `eval` or
`Invoke-Expression` of a value built at run time, a command whose name is, a .NET process call.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rein.steering.bash.launch._folding import MAX_DEPTH
from rein.steering.bash.launch._launch import RUNTIME
from rein.steering.bash.launch.shells import _dialects as d
from rein.steering.bash.launch.shells._emit import Statement, join, line, statements
from rein.steering.bash.launch.shells._lex import Dialect, Mark, Word, lex

Result = tuple[str, list[str]]
"""A bash script and why parts of it are unknown."""

_POWERSHELL_DANGER = re.compile(
    r"Diagnostics\.Process|ProcessStartInfo|\[scriptblock\]|::Create\(|\.Invoke\w*\(|InvokeCommand|AddScript|"
    r"NewScriptBlock|Add-Type|\bcsc\b",
    re.IGNORECASE,
)
_VERB_NOUN = re.compile(r"[A-Za-z]+-[A-Za-z][\w.]*\Z")


def translate(text: str, dialect: Dialect, depth: int = 0) -> Result:
    if depth > MAX_DEPTH:
        return "", [f"the {dialect.name} program nests too deeply to read"]
    lexed = lex(text, dialect)
    notes: list[str] = [f"the {dialect.name} program is too long to read"] if lexed.overflow else []
    if dialect is d.POWERSHELL and _POWERSHELL_DANGER.search(text):
        notes.append("the PowerShell program calls .NET or compiles code, which may start a process")
    commands: list[tuple[str, str]] = []
    for inner in lexed.inner:
        script, more = translate(inner, dialect, depth + 1)
        commands.append((script, "\n"))
        notes.extend(more)
    rule = _RULES[dialect.name]
    for statement in statements(lexed.tokens, dict(dialect.redirects)):
        command, more = rule(statement, depth)
        if not command:
            command = _written(statement, dialect)
        commands.append((command, statement.after))
        notes.extend(more)
    return join(commands), notes


def _written(statement: Statement, dialect: Dialect) -> str:
    """A builtin that runs nothing may still write a file: `echo ... > f` as bash writes it, any other
    with content rein does not know (`string ... > f`, `Set-Content f`, `... | save f`)."""
    head = _lower(statement.words[0]) if statement.words else ""
    if statement.redirects and head in ("echo", "printf") and dialect.name in ("fish", "csh"):
        return line(statement.words, statement.redirects)
    targets = list(statement.redirects)
    if dialect is d.POWERSHELL and head in _PS_WRITERS:
        paths = _operands(statement.words[1:], ("path", "filepath", "literalpath"))
        targets += [f"> {_word(paths[0])}"] if paths else []
    if dialect is d.NU and head == "save" and len(statement.words) > 1:
        targets.append(f"> {_word(statement.words[1])}")
    return f'cat "{RUNTIME}" ' + " ".join(targets) if targets else ""


_PS_WRITERS = frozenset({
    "set-content", "sc", "add-content", "ac", "out-file", "new-item", "ni", "tee-object",
})  # fmt: skip
"""PowerShell cmdlets that write a file their `-Path` (or first operand) names."""


def _lower(word: Word | None) -> str:
    text = word.text if word is not None else None
    return text.lower() if text is not None else ""


def _emit(statement: Statement, words: list[Word], shell: str) -> Result:
    if not words:
        return "", []
    head = words[0]
    if head.text is None and any(isinstance(part, Mark) and part is not Mark.HOME for part in head.parts):
        return line(words, statement.redirects), [f"{shell} runs a command whose name is built at run time"]
    return line(words, statement.redirects), []


def _eval(words: list[Word], dialect: Dialect, depth: int) -> Result:
    texts = [word.text for word in words]
    if any(text is None for text in texts):
        return "", [f"{dialect.name} evaluates code built at run time"]
    return translate(" ".join(text for text in texts if text is not None), dialect, depth + 1)


def _fish(statement: Statement, depth: int) -> Result:
    words = statement.words
    while words and _lower(words[0]) in d.FISH_PREFIXES:
        words = words[1:]
    head = _lower(words[0]) if words else ""
    if head in d.FISH_DATA:
        return "", []
    if head == "eval":
        return _eval(words[1:], d.FISH, depth)
    return _emit(statement, words, "fish")


def _csh(statement: Statement, depth: int) -> Result:
    words = statement.words
    head = _lower(words[0]) if words else ""
    if head in ("if", "else", "while"):
        braced, words = _condition(words)
        command, notes = _csh(Statement(words, statement.redirects, "\n"), depth) if words else ("", [])
        return join([(line(braced), "\n"), (command, "\n")]), notes
    while words and _lower(words[0]) in (*d.CSH_PREFIXES, "(", ")"):
        words = words[1:]
    words = [word for word in words if _lower(word) not in ("(", ")")]
    head = _lower(words[0]) if words else ""
    if head == "repeat":
        words = words[2:]
    elif head == "nice" and len(words) > 1 and (words[1].text or "").startswith("+"):
        words = words[:1] + words[2:]
    elif head == "alias":
        return _eval(words[2:], d.CSH, depth) if len(words) > 2 else ("", [])
    elif head == "eval":
        return _eval(words[1:], d.CSH, depth)
    if head in d.CSH_DATA or head.endswith(":"):
        return "", []
    return _emit(statement, words, "csh")


def _condition(words: list[Word]) -> tuple[list[Word], list[Word]]:
    """`if (expr) cmd`, `if (expr) then`, `else if (...) then`, `while (expr)`: the command in the
    expression's `{ cmd }`, and the command after it (nothing for `then`)."""
    index = 0
    while index < len(words) and _lower(words[index]) in ("if", "else", "while"):
        index += 1
    depth, braced, inside = 0, [], False
    rest: list[Word] = words[index:] if index < len(words) and _lower(words[index]) != "(" else []
    for position in range(index, len(words) if not rest else index):
        text = _lower(words[position])
        depth += (text == "(") - (text == ")")
        if text in ("{", "}"):
            inside = text == "{"
        elif inside:
            braced.append(words[position])
        if depth == 0:
            rest = words[position + 1 :]
            break
    return braced, [] if rest and _lower(rest[-1]) == "then" else rest


def _powershell(statement: Statement, depth: int) -> Result:
    words = statement.words
    variable = len(words) > 1 and words[0].parts[:1] in ((Mark.RUNTIME,), (Mark.SPREAD,))
    if variable and (words[1].text or "").lstrip("+-*/").startswith("="):
        words = words[2:]  # `$x = command args`: the command runs
    head = _lower(words[0]) if words else ""
    if not words or head in d.POWERSHELL_KEYWORDS or head in d.POWERSHELL_DATA:
        return "", []
    first = words[0].parts[0] if words[0].parts else None
    if head in {"&", "."}:
        words = words[1:]
    elif isinstance(first, Mark) or (isinstance(first, tuple) and first[1]):
        return "", []  # an expression (a variable, a string, a group): a value, not a command
    if head in d.POWERSHELL_RUNNERS:
        return _powershell_runner(head, words[1:], statement, depth)
    if head in d.POWERSHELL_REMOVE or (head == "rm" and _switch(words, "recurse")):
        paths = _operands(words[1:], ("path", "literalpath", "lp"))
        flags = ["-rf"] if _switch(words, "recurse") else ["-f"]
        return " ".join(["rm", *flags, *(_word(p) for p in paths)]), []
    if head in d.POWERSHELL_CD:
        paths = _operands(words[1:], ("path", "literalpath", "lp"))
        return ("cd " + _word(paths[0]) if paths else ""), []
    if _VERB_NOUN.match(head):
        return "", []
    return _emit(statement, words, "PowerShell")


def _powershell_runner(head: str, args: list[Word], statement: Statement, depth: int) -> Result:
    if head in ("invoke-expression", "iex"):
        return _eval(_operands(args, ("command",)), d.POWERSHELL, depth)
    if head in ("start-process", "saps", "start"):
        program = _operands(args, ("filepath", "file", "pspath", "path"))[:1]
        listed = _values(args, ("argumentlist", "args", "arguments"))
        if not program or program[0].text is None:
            return "", ["Start-Process starts a program rein cannot tell"]
        texts = [word.text for word in listed]
        if any(text is None for text in texts):
            return line(program), ["Start-Process is given arguments built at run time"]
        joined = " ".join(text.replace(",", " ") for text in texts if text is not None)
        return (line(program) + " " + joined).strip(), []
    if _values(args, ("filepath",)):
        return "", [f"{head} runs a script file rein does not read"]
    return "", []  # a script block: read where it stands


def _switch(words: list[Word], name: str) -> bool:
    return any(
        (text := _lower(word)).startswith("-") and len(text) > 1 and name.startswith(text[1:].split(":")[0])
        for word in words[1:]
    )


def _operands(args: list[Word], names: tuple[str, ...]) -> list[Word]:
    """Positional arguments and the values of the parameters `names` (by a prefix of theirs)."""
    found: list[Word] = []
    index = 0
    while index < len(args):
        text = _lower(args[index])
        if text.startswith("-") and len(text) > 1:
            named = any(name.startswith(text[1:]) for name in names)
            takes = index + 1 < len(args) and not _lower(args[index + 1]).startswith("-")
            if named and takes:
                found.append(args[index + 1])
            index += 2 if takes and (named or text[1:] in _VALUED) else 1
            continue
        found.append(args[index])
        index += 1
    return found


_VALUED = frozenset(
    {"erroraction", "ea", "include", "exclude", "filter", "credential", "stream", "verb", "wait"}
)


def _values(args: list[Word], names: tuple[str, ...]) -> list[Word]:
    for index, word in enumerate(args):
        text = _lower(word)
        if text.startswith("-") and len(text) > 2 and any(name.startswith(text[1:]) for name in names):
            return args[index + 1 : index + 2]
    return []


def _word(value: Word) -> str:
    return line([value])


def _nu(statement: Statement, depth: int) -> Result:
    words = statement.words
    head = _lower(words[0]) if words else ""
    if head.startswith("^"):
        return _emit(statement, [Word(((head[1:], True),)), *words[1:]], "nushell")
    if head in ("run-external", "exec"):
        return _emit(statement, words[1:], "nushell")
    if head in d.NU_DATA or (words and words[0].text is None):
        return "", []
    return _emit(statement, words, "nushell")


def _elvish(statement: Statement, depth: int) -> Result:
    words = statement.words
    head = _lower(words[0]) if words else ""
    if head.startswith("e:"):
        return _emit(statement, [Word(((head[2:], True),)), *words[1:]], "elvish")
    if head == "eval":
        return _eval(words[1:], d.ELVISH, depth)
    if head in d.ELVISH_DATA or ":" in head or (words and words[0].text is None):
        return "", []
    return _emit(statement, words, "elvish")


_RULES: dict[str, Callable[[Statement, int], Result]] = {
    "fish": _fish,
    "csh": _csh,
    "powershell": _powershell,
    "nu": _nu,
    "elvish": _elvish,
}
