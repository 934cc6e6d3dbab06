"""Edits in place worked out: what `sed -i`, `perl -pi` and `git apply`/`patch` leave in a file, so a
script the line edits and then runs is read as it will be (`sed -i 's/8000/8001/' app.py && python
app.py`), not as content rein cannot know.

The file's text before the edit is what the line wrote into it, else what is on disk. Only edits rein
can apply exactly are applied: `sed` scripts of `s` commands (any delimiter, flags `g`, `i`/`I`, a
count; BRE or `-E` ERE), the same `s///` in a Perl `-pe` one-liner, and unified diffs whose hunks
match. Anything else leaves the content unknown, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._git import subcommand_index
from rein.steering.bash.commands._inner import Call, Value
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._sources import disk_text, file_text, stdin_text
from rein.steering.bash.commands._writers import SED_OPTIONS
from rein.steering.bash.model import UNKNOWN, Unknown, Word

_MAX_TEXT = 256 * 1024
_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "punct": "!-/:-@\\[-`{-~", "xdigit": "0-9A-Fa-f",
    "word": "\\w",
}  # fmt: skip
Substitution = tuple[re.Pattern[str], str, int, bool]
"""A compiled pattern, its replacement (in sed's syntax), the first match to replace (1-based) and
whether every match from there on is replaced (`g`)."""


def before(call: Call, word: Word) -> Value | None:
    """The text of the file `word` names before this command edits it; None when there is certainly
    no such file (the edit fails and writes nothing)."""
    path = join_path(call.state.cwd, word.value) if not word.dynamic else UNKNOWN
    if isinstance(path, Unknown):
        return UNKNOWN
    if path in call.files:
        return call.files[path]
    if call.files_unknown or call.disk is None:
        return UNKNOWN
    if not call.disk.exists(path):
        return None
    text, _ = disk_text(call, path, word.value)
    return text if text is not None and len(text) <= _MAX_TEXT else UNKNOWN


def sed_script(script: str, extended: bool) -> list[Substitution] | None:
    """The `s` commands of a sed script, compiled; None when it holds anything else."""
    found: list[Substitution] = []
    at = 0
    while at < len(script):
        char = script[at]
        if char in " \t\n;":
            at += 1
            continue
        if char != "s" or at + 1 >= len(script):
            return None
        parsed = _substitution(script, at + 1, extended)
        if parsed is None:
            return None
        command, at = parsed
        found.append(command)
    return found


def _substitution(script: str, at: int, extended: bool) -> tuple[Substitution, int] | None:
    delimiter = script[at]
    if delimiter in "\\\n":
        return None
    parts: list[str] = []
    at += 1
    for _ in range(2):
        start = at
        while at < len(script) and script[at] != delimiter:
            at += 2 if script[at] == "\\" else 1
        if at >= len(script):
            return None
        parts.append(script[start:at].replace("\\" + delimiter, delimiter) if delimiter != "\\" else "")
        at += 1
    flags = ""
    while at < len(script) and script[at] not in ";\n}":
        flags += script[at]
        at += 1
    flags = flags.strip()
    if not re.fullmatch(r"[gIi0-9]*", flags):
        return None  # `e`, `p`, `w file`, `m`: not applied here
    pattern = _python_regex(parts[0], extended)
    if pattern is None:
        return None
    try:
        compiled = re.compile(pattern, re.IGNORECASE if "i" in flags.lower() else 0)
    except re.error:
        return None
    digits = "".join(char for char in flags if char.isdigit())
    return (compiled, parts[1], max(int(digits), 1) if digits else 1, "g" in flags), at


def _python_regex(text: str, extended: bool) -> str | None:
    """A POSIX regex (BRE, or ERE with `extended`) as Python's `re` reads it; None when it uses
    something rein does not translate (back-references in the pattern, `\\<`)."""
    out: list[str] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char == "\\" and at + 1 < len(text):
            following = text[at + 1]
            at += 2
            if not extended and following in "(){}|+?":
                out.append(following)
            elif following in ".*[]^$\\/ntwWsSb" or (extended and following in "(){}|+?"):
                out.append("\\" + following)
            else:
                return None
            continue
        if char == "[":
            end = _bracket_end(text, at)
            if end < 0:
                return None
            out.append(_bracket(text[at : end + 1]))
            at = end + 1
            continue
        if not extended and char in "(){}|+?":
            out.append("\\" + char)
        else:
            out.append(char)
        at += 1
    return "".join(out)


def _bracket_end(text: str, at: int) -> int:
    at += 1
    if at < len(text) and text[at] == "^":
        at += 1
    if at < len(text) and text[at] == "]":
        at += 1
    while at < len(text):
        if text.startswith("[:", at):
            close = text.find(":]", at + 2)
            if close < 0:
                return -1
            at = close + 2
            continue
        if text[at] == "]":
            return at
        at += 1
    return -1


def _bracket(text: str) -> str:
    """A POSIX bracket expression as Python reads one: a backslash is literal there, classes named."""
    body = text[1:-1].replace("\\", "\\\\").replace("[", "\\[")
    return "[" + re.sub(r"\\\[:(\w+):\]", lambda m: _CLASSES.get(m.group(1), m.group(0)), body) + "]"


def apply_sed(text: str, commands: Sequence[Substitution]) -> str:
    """`text` after each substitution on every line, as sed runs a script line by line."""
    lines = text.split("\n")
    for index in range(len(lines)):
        for command in commands:
            lines[index] = _substitute(lines[index], command)
    return "\n".join(lines)


def _substitute(line: str, command: Substitution) -> str:
    """One `s` command on one line: the `first`-th match replaced, and every later one with `g`."""
    pattern, replacement, first, every = command
    seen = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal seen
        seen += 1
        chosen = seen == first or (every and seen > first)
        return _replacement(match, replacement) if chosen else match.group(0)

    return pattern.sub(replace, line)


def _replacement(match: re.Match[str], replacement: str) -> str:
    out: list[str] = []
    at = 0
    while at < len(replacement):
        char = replacement[at]
        if char == "&":
            out.append(match.group(0))
        elif char == "\\" and at + 1 < len(replacement):
            at += 1
            following = replacement[at]
            if following.isdigit():
                group = int(following)
                out.append((match.group(group) or "") if group <= (match.re.groups or 0) else "")
            else:
                out.append({"n": "\n", "t": "\t"}.get(following, following))
        else:
            out.append(char)
        at += 1
    return "".join(out)


_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_diff(text: str, hunks: Sequence[list[str]]) -> str | None:
    """`text` with a unified diff's hunks for it applied, where each hunk's old lines are found (at
    their line, else anywhere, as `patch` searches); None when one is not."""
    lines = text.split("\n")
    offset = 0
    for hunk in hunks:
        header = _HUNK.match(hunk[0])
        if header is None:
            return None
        old = [line[1:] for line in hunk[1:] if line[:1] in (" ", "-")]
        new = [line[1:] for line in hunk[1:] if line[:1] in (" ", "+")]
        start = max(int(header.group(1)) - 1, 0) + offset
        if lines[start : start + len(old)] != old:
            found = next((i for i in range(len(lines)) if lines[i : i + len(old)] == old), None)
            if found is None:
                return None
            start = found
        lines[start : start + len(old)] = new
        offset += len(new) - len(old)
    return "\n".join(lines)


def diff_files(diff: str) -> dict[str, list[list[str]]] | None:
    """The files a unified diff changes (`b/` paths, `a/` stripped as `git apply` and `patch -p1`
    do) with their hunks; None when it is no diff rein reads (binary, renames, several forms)."""
    files: dict[str, list[list[str]]] = {}
    current: list[list[str]] | None = None
    for line in diff.split("\n"):
        if line.startswith("+++ "):
            name = line[4:].split("\t")[0].strip()
            if name == "/dev/null":
                return None
            current = files.setdefault(name[2:] if name.startswith(("a/", "b/")) else name, [])
        elif line.startswith("@@") and current is not None:
            current.append([line])
        elif current and line[:1] in (" ", "+", "-", "\\") and not line.startswith(("--- ", "+++ ")):
            if not line.startswith("\\"):
                current[-1].append(line)
        elif line.startswith(("GIT binary patch", "rename ", "copy ")):
            return None
    return files or None


Write = tuple[Word, Value, bool]


def sed_in_place(call: Call) -> tuple[Write, ...]:
    """`sed -i SCRIPT FILES`: each file's new text where the script is `s` commands, else unknown."""
    parsed = parse(call.argv, 1, SED_OPTIONS)
    if not parsed.has("-i", "--in-place"):
        return ()
    scripts = parsed.values("-e", "--expression")
    operands = list(parsed.operands)
    if not scripts and operands:
        scripts = [operands.pop(0)]
    quiet = parsed.has("-n", "--quiet", "--silent", "-z", "--null-data", "--zero-terminated", "-f", "--file")
    extended = parsed.has("-E", "-r", "--regexp-extended")
    commands: list[Substitution] | None = None if quiet or any(word.dynamic for word in scripts) else []
    for word in scripts if commands is not None else ():
        found = sed_script(word.value, extended)
        if found is None or commands is None:
            commands = None
            break
        commands.extend(found)
    return _edits(call, operands, commands)


def _edits(call: Call, files: Sequence[Word], commands: Sequence[Substitution] | None) -> tuple[Write, ...]:
    """Each file's text after the substitutions (unknown where they cannot be applied); a file that
    does not exist is not written."""
    out: list[Write] = []
    for word in files:
        text = before(call, word)
        if text is None:
            continue
        edited = apply_sed(text, commands) if isinstance(text, str) and commands is not None else UNKNOWN
        out.append((word, edited, False))
    return tuple(out)


_PERL_S = re.compile(r"s(\W)((?:\\.|(?!\1).)*)\1((?:\\.|(?!\1).)*)\1([gi]*)\s*;?\s*")


def perl_in_place(call: Call) -> tuple[Write, ...]:
    """`perl -pi -e 's/a/b/g' FILES`: each file's new text where the code is `s///` substitutions."""
    argv = call.argv
    letters, code, files, at = "", [], [], 1
    while at < len(argv):
        value = argv[at].value
        if value == "--" or not value.startswith("-") or value == "-":
            files = list(argv[at + 1 :] if value == "--" else argv[at:])
            break
        if value in ("-e", "-E") and at + 1 < len(argv):
            code.append(argv[at + 1])
            at += 2
            continue
        letters += value[1:]
        at += 1
    if "i" not in letters:
        return ()
    commands: list[Substitution] | None = [] if "p" in letters and code else None
    for word in code if commands is not None else ():
        found = _perl_substitutions(word.value) if not word.dynamic else None
        if found is None or commands is None:
            commands = None
            break
        commands.extend(found)
    if code == [] and files:
        files = files[1:]  # the program is the first operand
    return _edits(call, [word for word in files if not word.value.startswith("-")], commands)


def _perl_substitutions(code: str) -> list[Substitution] | None:
    """Perl `s///` statements as sed substitutions (Perl's regex read by Python's, `$1` as `\\1`)."""
    found: list[Substitution] = []
    at = 0
    code = code.strip()
    while at < len(code):
        match = _PERL_S.match(code, at)
        if match is None or match.group(1) in "{([<":
            return None
        try:
            pattern = re.compile(match.group(2), re.IGNORECASE if "i" in match.group(4) else 0)
        except re.error:
            return None
        replacement = re.sub(r"\$\{?(\d)\}?", r"\\\1", match.group(3).replace("&", "\\&"))
        found.append((pattern, replacement, 1, "g" in match.group(4)))
        at = match.end()
    return found


def applied(call: Call) -> tuple[tuple[Write, ...], bool]:
    """`git apply DIFF` and `patch -pN < DIFF`: the files the diff changes, with their new text where
    every hunk applies, else unknown; files rein cannot name when the diff cannot be read."""
    argv = call.argv
    words = [word.value for word in argv]
    if call.name == "git":
        at = subcommand_index(argv)  # `git -C dir apply x.diff`
        if words[at : at + 1] != ["apply"] or any(
            w in words for w in ("--check", "--stat", "--numstat", "--summary", "--cached")
        ):
            return (), False
        sources = [word for word in argv[at + 1 :] if not word.value.startswith("-")]
        reverse = "-R" in words or "--reverse" in words
        diff = _diff_text(call, sources[0] if sources else None)
    else:
        if "--dry-run" in words:
            return (), False
        named = next(
            (argv[i + 1] for i, w in enumerate(words) if w in ("-i", "--input") and i + 1 < len(argv)), None
        )
        reverse = "-R" in words or "--reverse" in words
        diff = _diff_text(call, named)
    files = diff_files(diff) if diff is not None else None
    if files is None:
        return (), True
    out: list[Write] = []
    for name, hunks in files.items():
        word = Word.literal(name)
        text = before(call, word)
        if text is None:
            continue  # patch refuses, git apply fails: nothing is written
        result = apply_diff(text, hunks) if isinstance(text, str) and not reverse else None
        out.append((word, result if result is not None else UNKNOWN, False))
    return tuple(out), False


def _diff_text(call: Call, word: Word | None) -> str | None:
    if word is None:
        text, _ = stdin_text(call, "a diff")
        return text
    if word.dynamic:
        return None
    text, _ = file_text(call, word, "a diff")
    return text
