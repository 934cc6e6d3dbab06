"""Build, test and monorepo tools that run a command given on the line: `go test -exec CMD` and `go
build -toolexec CMD` (also through `GOFLAGS`), `mvn exec:exec -Dexec.executable=X -Dexec.args=...`,
`tox exec -- cmd` and `tox -x testenv.commands=...`, `lerna exec -- cmd`, `nx exec -- cmd`, `firebase
emulators:exec 'script'`. What they run from the project's own files (`go generate`, a pom's plugin
configuration, tox.ini, package scripts) is the project's, and is not read."""

from __future__ import annotations

import re
import shlex

from rein.steering.bash._words import tail
from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Mode, Unwrapped, script
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._subcommand_runs import Handler, after_dashdash, subcommand
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.commands._tasks import tox_run
from rein.steering.bash.model import Word

_GO_COMMANDS = ("exec", "toolexec")
"""Go build flags whose value is a command line the go tool splits into words and runs: `-exec` runs
the built binary through it (`go run`, `go test`), `-toolexec` runs every compiler tool through it."""


def go(call: Call) -> Unwrapped:
    """`go test -exec CMD`, `go build -toolexec=CMD`, the same flags in `GOFLAGS`, and `go env -w
    GOFLAGS=...`, which sets them for the go commands after it."""
    argv = call.argv
    found = _go_flags(argv[1:], "maybe")
    flags = call.state.env.get("GOFLAGS")
    if isinstance(flags, str):
        more = _go_flags(tuple(Word.literal(field) for field in _fields(flags)), "maybe")
        found = Unwrapped((*found.inners, *more.inners), (*found.notes, *more.notes))
    if len(argv) > 2 and argv[1].value == "env" and any(word.value == "-w" for word in argv[2:]):
        for word in argv[2:]:
            if word.value.startswith("GOFLAGS=") and not word.dynamic:
                fields = _fields(word.value.partition("=")[2])
                more = _go_flags(tuple(Word.literal(field) for field in fields), "later")
                found = Unwrapped((*found.inners, *more.inners), (*found.notes, *more.notes))
    return found


def _go_flags(words: tuple[Word, ...], mode: Mode) -> Unwrapped:
    """The commands of the `-exec`/`-toolexec` flags among `words` (`-exec X`, `--exec=X`)."""
    inners: list[Inner] = []
    notes: list[str] = []
    for index, word in enumerate(words):
        value = word.value
        dashes = len(value) - len(value.lstrip("-"))
        name, eq, _ = value[dashes:].partition("=")
        if dashes not in (1, 2) or name not in _GO_COMMANDS:
            continue
        if eq:
            command: Word | None = tail(word, dashes + len(name) + 1)
        else:
            command = words[index + 1] if index + 1 < len(words) else None
        if command is not None:
            found = script(f"go -{name}", mode, (command,), f"go -{name} command")
            inners.extend(found.inners)
            notes.extend(found.notes)
    return Unwrapped(tuple(inners), tuple(notes))


def _fields(flags: str) -> list[str]:
    """GOFLAGS as the go tool splits it: blank-separated, with quoting."""
    try:
        return shlex.split(flags)
    except ValueError:
        return flags.split()


_MVN_EXEC_GOAL = re.compile(r"^(?:exec|org\.codehaus\.mojo:exec-maven-plugin(?::[^:@]+)?):exec(?:@.+)?$")
"""The exec plugin's `exec` goal (`exec:exec`, `exec:exec@id`, the full coordinates); `exec:java`
runs a Java main class in the JVM, no program."""


def mvn(call: Call) -> Unwrapped:
    """`mvn exec:exec -Dexec.executable=X -Dexec.args='...'`: the plugin runs X with the arguments.
    Without `exec.executable` on the line, the program comes from the project's pom."""
    argv = call.argv
    goals = [word.value for word in argv[1:] if _MVN_EXEC_GOAL.match(word.value)]
    if not goals:
        return NOTHING
    props: dict[str, Word] = {}
    for index, flag in enumerate(argv[1:], start=1):
        word, offset = flag, 0
        if flag.value in ("-D", "--define") and index + 1 < len(argv):
            word = argv[index + 1]
        elif flag.value.startswith("--define="):
            offset = len("--define=")
        elif flag.value.startswith("-D"):
            offset = 2
        else:
            continue
        key, eq, _ = word.value[offset:].partition("=")
        if eq and key in ("exec.executable", "exec.args"):
            props[key] = tail(word, offset + len(key) + 1)
    executable = props.get("exec.executable")
    if executable is None:
        return NOTHING
    words = (executable, props["exec.args"]) if "exec.args" in props else (executable,)
    if len(words) == 2 and not executable.dynamic:  # the program is a word; the arguments a line
        words = (Word.literal(shlex.quote(executable.value)), words[1])
    return script("mvn exec:exec", "maybe", words, "mvn exec:exec command")


_TOX_COMMANDS = re.compile(r"(?:^|[.:])commands(?:_pre|_post)?\+?$", re.IGNORECASE)
"""tox settings (`-x testenv.commands=...`, `-x testenv:py.commands_pre+=...`) whose value is the
commands an environment runs."""


def tox(call: Call) -> Unwrapped:
    """`tox exec [-e env] -- cmd`, and commands set with `-x`/`--override`."""
    argv = call.argv
    found = subcommand("exec", after_dashdash("tox exec"))(call)
    inners, notes = list(found.inners), list(found.notes)
    end = next((i for i, word in enumerate(argv) if word.value == "--"), len(argv))
    for index in range(1, end):
        word = argv[index]
        value = word.value
        if value in ("-x", "--override") and index + 1 < end:
            setting = argv[index + 1]
        elif value.startswith("--override="):
            setting = tail(word, len("--override="))
        elif value.startswith("-x") and len(value) > 2:
            setting = tail(word, 2)
        else:
            continue
        key, eq, _ = setting.value.partition("=")
        if eq and _TOX_COMMANDS.search(key.strip()):
            more = script("tox -x", "maybe", (tail(setting, len(key) + 1),), "tox -x commands")
            inners.extend(more.inners)
            notes.extend(more.notes)
    ran = tox_run(call)
    inners.extend(ran.inners)
    notes.extend(ran.notes)
    return Unwrapped(tuple(inners), tuple(notes), tolerated=ran.tolerated)


def firebase(call: Call) -> Unwrapped:
    """`firebase emulators:exec [options] SCRIPT`: the emulators start, then SCRIPT runs in a shell."""
    argv = call.argv
    index = next((i for i, word in enumerate(argv) if word.value == "emulators:exec"), None)
    if index is None:
        return NOTHING
    operands = parse(argv, index + 1, spec("firebase emulators:exec")).operands
    return script("firebase emulators:exec", "child", operands[:1], "firebase emulators:exec script")


HANDLERS: dict[str, Handler] = {
    "go": go,
    "mvn": mvn,
    "mvnw": mvn,
    "mvnd": mvn,
    "tox": tox,
    "lerna": subcommand("exec", after_dashdash("lerna exec")),
    "nx": subcommand("exec", after_dashdash("nx exec")),
    "firebase": firebase,
}
"""Build and test tools by command name."""
