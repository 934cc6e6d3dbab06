"""Tools that are inert except for an option or an address that names a command they run: `split
--filter=CMD` and `sort --compress-program=PROG` (coreutils), `rg --pre CMD`, `ugrep --filter`, `bat`/
`delta`/`ack`/`ag --pager`, `aria2c --on-download-complete`, `fzf --preview`/`--bind 'key:execute(...)'`,
`socat EXEC:cmd`/`SYSTEM:cmd`, `ncat -e`/`-c`, `gh alias set --shell`, shadow's `sg group -c cmd` (and
`sg` as ast-grep, which runs nothing), `mail -E '!cmd'`. A program name is read as a command line, so
whatever it is, rules see it."""

from __future__ import annotations

import contextlib
import re
import shlex

from rein.steering.bash._words import tail
from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Mode, Unwrapped, script
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._sources import stdin_text
from rein.steering.bash.commands._subcommand_runs import Handler
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.model import Word


def _scripts(label: str, mode: Mode, words: list[Word]) -> Unwrapped:
    """Each word a command line the tool runs."""
    inners: list[Inner] = []
    notes: list[str] = []
    for word in words:
        found = script(label, mode, (word,), f"{label} command")
        inners.extend(found.inners)
        notes.extend(found.notes)
    return Unwrapped(tuple(inners), tuple(notes))


def _texts(label: str, mode: Mode, texts: list[str]) -> Unwrapped:
    return Unwrapped(tuple(Inner(label, mode, script=text) for text in texts if text.strip()))


def _values(call: Call, names: tuple[str, ...], end: int | None = None) -> list[Word]:
    """The values of the named options, exactly as written (`--pre CMD`, `--pre=CMD`, `-e CMD`), up
    to `--`: for tools whose other options rein does not read."""
    argv = call.argv
    stop = next((i for i, word in enumerate(argv) if word.value == "--"), len(argv)) if end is None else end
    found: list[Word] = []
    for index in range(1, stop):
        word = argv[index]
        name, eq, _ = word.value.partition("=")
        if name not in names:
            continue
        if eq and name.startswith("--"):
            found.append(tail(word, len(name) + 1))
        elif not eq and index + 1 < stop:
            found.append(argv[index + 1])
    return found


def split(call: Call) -> Unwrapped:
    """`split --filter=COMMAND`: each piece is written to COMMAND run with $SHELL -c."""
    return _scripts("split --filter", "maybe", parse(call.argv, 1, spec("split")).values("--filter"))


def sort(call: Call) -> Unwrapped:
    """`sort --compress-program=PROG` runs PROG (and `PROG -d`) on its temporary files."""
    values = parse(call.argv, 1, spec("sort")).values("--compress-program")
    return _scripts("sort --compress-program", "maybe", values)


def ripgrep(call: Call) -> Unwrapped:
    """`rg --pre COMMAND`: every searched file is given to COMMAND first."""
    return _scripts("rg --pre", "maybe", _values(call, ("--pre",)))


def ugrep(call: Call) -> Unwrapped:
    """`ugrep --filter='exts:command,...'` pipes files through commands; `--pager=COMMAND`."""
    texts: list[str] = []
    notes: list[str] = []
    argv = call.argv
    for word in argv[1:]:
        name, eq, value = word.value.partition("=")
        if not eq or name not in ("--filter", "--pager"):
            continue
        if word.dynamic:
            notes.append(f"ugrep {name} command is dynamic: {word.raw}")
        parts = value.split(",") if name == "--filter" else [value]
        texts.extend(part.partition(":")[2] if name == "--filter" else part for part in parts)
    found = _texts(f"{call.name} --filter", "maybe", texts)
    return Unwrapped(found.inners, tuple(notes))


def pager(call: Call) -> Unwrapped:
    """`bat --pager CMD`, `delta --pager CMD`, `ack --pager=CMD`, `ag --pager CMD`: output goes through
    CMD."""
    return _scripts(f"{call.name} --pager", "maybe", _values(call, ("--pager",)))


_ARIA2_HOOKS = tuple(
    f"--on-{event}" for event in (
        "download-start", "download-pause", "download-stop", "download-complete", "download-error",
        "bt-download-complete",
    )
)  # fmt: skip


def aria2c(call: Call) -> Unwrapped:
    """`aria2c --on-download-complete=CMD` (and the other event hooks) run CMD with the download's id."""
    return _scripts("aria2c --on-download", "maybe", _values(call, _ARIA2_HOOKS))


_FZF_PLACEHOLDER = re.compile(r"\{[+sfrqn]*[-\d.,]*\}")
"""fzf's placeholders (`{}`, `{+}`, `{q}`, `{2..}`): the selected lines, quoted, at run time."""
_FZF_ACTIONS = re.compile(
    r"(?:execute-silent|execute-multi|execute|become|reload-sync|reload|change-preview|preview"
    r"|bg-transform[a-z-]*|transform[a-z-]*)(?=[:(\[{<~!@#$%^&*;/|])",
)
_FZF_CLOSE = {"(": ")", "[": "]", "{": "}", "<": ">"}
_MAX_BOUND = 32


def fzf(call: Call) -> Unwrapped:
    """`fzf --preview CMD` and the `--bind` actions that run one (`execute(...)`, `become(...)`,
    `reload:...`), with `FZF_DEFAULT_OPTS`; `FZF_DEFAULT_COMMAND` lists the input when none is piped."""
    words = list(call.argv)
    env = call.state.env
    defaults = env.get("FZF_DEFAULT_OPTS")
    if isinstance(defaults, str):
        with contextlib.suppress(ValueError):
            words.extend(Word.literal(field) for field in shlex.split(defaults))
    own = Call(call.name, tuple(words), call.state)
    previews = _values(own, ("--preview",))
    bindings = _values(own, ("--bind",))
    texts = [word.value for word in previews]
    for binding in bindings:
        texts.extend(_fzf_bound(binding.value))
    command = env.get("FZF_DEFAULT_COMMAND")
    if isinstance(command, str) and call.stdin is None:
        texts.append(command)
    notes = [f"fzf command is dynamic: {word.raw}" for word in (*previews, *bindings) if word.dynamic]
    found = _texts("fzf", "maybe", [_FZF_PLACEHOLDER.sub(f'"{RUNTIME}"', text) for text in texts])
    return Unwrapped(found.inners, tuple(notes))


def _fzf_bound(text: str) -> list[str]:
    """The commands in a `--bind` value: `action(cmd)`, `action[cmd]`, ..., or `action:cmd` to the end."""
    found: list[str] = []
    for match in _FZF_ACTIONS.finditer(text):
        if len(found) == _MAX_BOUND:
            found.append(text[match.start() :])  # past that many, the rest as one command line
            break
        start = match.end()
        opener = text[start]
        if opener == ":":
            found.append(text[start + 1 :])
            break
        close = text.find(_FZF_CLOSE.get(opener, opener), start + 1)
        found.append(text[start + 1 : close if close >= 0 else len(text)])
    return found


_SOCAT_ADDRESS = re.compile(r"^(?:exec|system|shell):(.*)$", re.IGNORECASE | re.DOTALL)


def socat(call: Call) -> Unwrapped:
    """`socat - EXEC:'cmd args',pty` and `SYSTEM:'cmd'`: the address runs a program (with sh for
    SYSTEM); its options follow the first comma outside quotes."""
    texts: list[str] = []
    notes: list[str] = []
    for word in call.argv[1:]:
        for address in word.value.split("!!"):
            match = _SOCAT_ADDRESS.match(address)
            if match is None:
                continue
            if word.dynamic:
                notes.append(f"socat address is dynamic: {word.raw}")
            texts.append(_socat_command(match[1]))
    found = _texts("socat", "maybe", texts)
    return Unwrapped(found.inners, tuple(notes))


def _socat_command(text: str) -> str:
    """The command of an EXEC/SYSTEM address: up to its first comma outside quotes and brackets."""
    quote = ""
    depth = 0
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth <= 0:
            return text[:index]
    return text


def ncat(call: Call) -> Unwrapped:
    """`ncat -e PROG` / `--exec`, `-c CMD` / `--sh-exec` (and the same in traditional netcat): the
    connection is handed to a program."""
    argv = call.argv
    words: list[Word] = []
    for index, word in enumerate(argv[1:], start=1):
        name, eq, _ = word.value.partition("=")
        if name in ("--exec", "--sh-exec") and eq:
            words.append(tail(word, len(name) + 1))
        elif word.value in ("-e", "-c", "--exec", "--sh-exec") and index + 1 < len(argv):
            words.append(argv[index + 1])
    return _scripts(f"{call.name} -e", "maybe", words)


def gh(call: Call) -> Unwrapped:
    """`gh alias set NAME EXPANSION --shell` (or an expansion starting with `!`) makes `gh NAME` run
    the expansion with sh; `-` reads it from stdin. Checked as a command that runs later."""
    argv = call.argv
    if len(argv) < 4 or argv[1].value != "alias" or argv[2].value != "set":
        return NOTHING
    parsed = parse(argv, 3, spec("gh alias set"))
    if len(parsed.operands) < 2:
        return NOTHING
    expansion = parsed.operands[1]
    if expansion.value == "-":
        text, note = stdin_text(call, "the alias")
        if text is None:
            return Unwrapped(notes=(note,) if note and parsed.has("-s", "--shell") else ())
        expansion = Word.literal(text.strip())
    shell = parsed.has("-s", "--shell")
    if expansion.value.startswith("!"):
        expansion, shell = tail(expansion, 1), True
    if not shell:
        return NOTHING
    return script("gh alias", "later", (expansion,), "gh alias command")


_AST_GREP = frozenset({"run", "scan", "test", "new", "lsp", "completions", "help"})


def sg(call: Call) -> Unwrapped:
    """shadow's `sg [-] GROUP [-c] COMMAND` runs COMMAND with sh as GROUP; `sg` as ast-grep (`sg -p
    PATTERN`, `sg run`, `sg scan`) runs nothing."""
    argv = call.argv
    index = 2 if len(argv) > 1 and argv[1].value == "-" else 1
    if index >= len(argv) or (index == 1 and (argv[1].value.startswith("-") or argv[1].value in _AST_GREP)):
        return NOTHING
    rest = argv[index + 1 :]
    if rest and rest[0].value == "-c":
        rest = rest[1:]
    return script("sg", "child", rest, "sg command")


_MAIL_SHELL = re.compile(r"^\s*(?:!|\|\s*|(?:sh|shell|pipe)\s+)(.*)$", re.DOTALL)


def mail(call: Call) -> Unwrapped:
    """`mail -E COMMAND` (GNU mailutils) and `mailx -X`/`-Y COMMAND` (s-nail) run a mail command at
    start: `!cmd`, `shell cmd` and `pipe cmd` run a shell command."""
    texts: list[str] = []
    notes: list[str] = []
    for word in _values(call, ("-E", "--exec", "-X", "-Y")):
        match = _MAIL_SHELL.match(word.value)
        if match is None:
            continue
        if word.dynamic:
            notes.append(f"{call.name} command is dynamic: {word.raw}")
        texts.append(match[1])
    found = _texts(f"{call.name} -E", "maybe", texts)
    return Unwrapped(found.inners, tuple(notes))


HANDLERS: dict[str, Handler] = {
    "split": split,
    "sort": sort,
    "rg": ripgrep,
    "ugrep": ugrep,
    "ug": ugrep,
    "bat": pager,
    "batcat": pager,
    "delta": pager,
    "ack": pager,
    "ag": pager,
    "aria2c": aria2c,
    "fzf": fzf,
    "socat": socat,
    "ncat": ncat,
    "nc": ncat,
    "netcat": ncat,
    "gh": gh,
    "sg": sg,
    "mail": mail,
    "mailx": mail,
    "s-nail": mail,
}
"""Tools that run a command named in an option, by command name."""
