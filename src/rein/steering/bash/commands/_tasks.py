"""Task runners as runners: `just`, `task`, `tox`, `nox`, `poe`, `mise run` run the commands of a task
file, found as each runner finds it (the file given, else the nearest one up from where it runs).

The file comes from what this line wrote into it, else from disk (`call.disk`): each command it runs
says the file and line (`justfile:12`); the person's file is read leniently, one the agent wrote, or
a task given words only known at run time, strictly. The files themselves are read by the pure
readers in `rein.steering.bash.tasks`; a file they name (an include, a mise script) is read here and
handed back to them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, cast

from rein.steering.bash.commands._inner import NOTHING, Argv, Call, Inner, Unwrapped
from rein.steering.bash.commands._options import Options, long_options, parse
from rein.steering.bash.commands._task_files import (
    Reader,
    base_of,
    find,
    run_task,
    runtime_words,
    unknown_task,
    words_of,
)
from rein.steering.bash.model import Word

if TYPE_CHECKING:
    from rein.steering.bash.tasks import TaskPlan

_TASKS = "rein.steering.bash.tasks"
"""The readers of task files, imported when a task runner first appears: they load YAML and TOML
parsers that a hook process which never meets one does not need."""


def _reader(name: str) -> Callable[..., TaskPlan]:
    return cast("Callable[..., TaskPlan]", getattr(importlib.import_module(_TASKS), name))


# just

_JUST = Options(
    short_value="fd",
    long=long_options(
        "justfile=", "working-directory=", "set=", "shell=", "shell-arg=", "dotenv-filename=",
        "dotenv-path=", "chooser=", "color=", "command-color=", "list-heading=", "list-prefix=",
        "unstable", "quiet", "verbose", "yes", "no-deps", "no-dotenv", "check", "highlight",
        "no-highlight", "dry-run", "list", "summary", "show=", "evaluate", "dump", "fmt", "init",
        "edit", "help", "version", "variables", "groups", "choose", "completions=", "man", "timestamp",
    ),
)  # fmt: skip
_JUST_INFO = ("--dry-run", "-n", "--list", "-l", "--summary", "--show", "-s", "--dump", "--fmt", "--init",
              "--edit", "-e", "--help", "-h", "--version", "-V", "--variables", "--groups", "--completions",
              "--man", "--choose", "--check")  # fmt: skip
_JUSTFILES = ("justfile", "Justfile", ".justfile", "JUSTFILE")


def just(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, _JUST)
    if parsed.has(*_JUST_INFO) or parsed.unknown:
        return NOTHING
    base = base_of(call, parsed.last("-d", "--working-directory"))
    given = parsed.last("-f", "--justfile")
    if base is None or (given is not None and given.dynamic):
        return NOTHING
    found = find(call, [given.value] if given else _JUSTFILES, base, up=given is None)
    operands = parsed.operands
    name = None if not operands else operands[0].value
    if operands and operands[0].dynamic:
        return unknown_task(call, "just", found)
    args = words_of(operands[1:])
    return run_task(
        call,
        "just",
        found,
        lambda text, files: _reader("just_recipe")(text, name, args, files),
        runtime_words(operands),
    )


# task (go-task)

_TASK = Options(
    short_value="tdo",
    long=long_options(
        "taskfile=", "dir=", "output=", "output-group-begin=", "output-group-end=", "concurrency=",
        "interval=", "sort=", "color", "dry", "force", "global", "init", "json", "list", "list-all",
        "parallel", "silent", "status", "summary", "verbose", "version", "watch", "yes", "help",
        "insecure", "download", "offline", "exit-code", "no-status",
    ),
)  # fmt: skip
_TASK_INFO = ("--list", "-l", "--list-all", "-a", "--dry", "-n", "--status", "--summary", "--init", "-i",
              "--help", "-h", "--version", "--json")  # fmt: skip
_TASKFILES = tuple(
    f"{stem}.{ext}"
    for stem in ("Taskfile", "taskfile", "Taskfile.dist", "taskfile.dist")
    for ext in ("yml", "yaml")
)


def task(call: Call) -> Unwrapped:
    argv = call.argv
    end = next((i for i, word in enumerate(argv) if word.value == "--"), len(argv))
    parsed = parse(argv[:end], 1, _TASK)
    if parsed.has(*_TASK_INFO) or parsed.unknown:
        return NOTHING
    base = base_of(call, parsed.last("-d", "--dir"))
    given = parsed.last("-t", "--taskfile")
    if base is None or (given is not None and given.dynamic):
        return NOTHING
    found = find(call, [given.value] if given else _TASKFILES, base, up=given is None)
    names = [word for word in parsed.operands if "=" not in word.value or word.dynamic]
    if any(word.dynamic for word in names):
        return unknown_task(call, "task", found)
    inners: list[Inner] = []
    notes: list[str] = []
    tolerated: list[str] = []
    dynamic = runtime_words(argv[end:]) or runtime_words(parsed.operands)
    wanted: list[str | None] = [word.value for word in names] or [None]
    for name in wanted:
        ran = run_task(call, "task", found, _taskfile(name), dynamic)
        inners.extend(ran.inners)
        notes.extend(ran.notes)
        tolerated.extend(ran.tolerated)
    return Unwrapped(tuple(inners), tuple(notes), tolerated=tuple(tolerated))


def _taskfile(name: str | None) -> Reader:
    return lambda text, files: _reader("taskfile_task")(text, name, files)


# tox, nox, poe, mise

_TOX = Options(
    short_value="ecmx",
    long=long_options("conf=", "root=", "workdir=", "override=", "installpkg=", "result-json=",
                      "discover=", "hashseed=", "exit-and-dump-after=", "colored=", "runner="),
)  # fmt: skip
_TOX_INFO = frozenset(
    {"list", "l", "config", "c", "devenv", "d", "depends", "de", "quickstart", "q", "legacy", "le", "schema"}
)


def tox_run(call: Call) -> Unwrapped:
    """`tox`, `tox run -e py311`, `tox -e lint -- args`: the environments' commands."""
    argv = call.argv
    end = next((i for i, word in enumerate(argv) if word.value == "--"), len(argv))
    parsed = parse(argv[:end], 1, _TOX)
    operands = [word.value for word in parsed.operands]
    if operands[:1] and operands[0] in _TOX_INFO | {"exec", "e"}:
        return NOTHING
    if any(word.value in ("--version", "--help", "-h", "-l", "-a", "--showconfig") for word in argv[1:end]):
        return NOTHING
    base = base_of(call, parsed.last("--root"))
    given = parsed.last("-c", "--conf")
    if base is None or (given is not None and given.dynamic):
        return NOTHING
    names = [given.value] if given else ["tox.ini", "tox.toml", "setup.cfg", "pyproject.toml"]
    found = find(call, names, base, up=given is None)
    if found is None:
        return NOTHING
    kind: Literal["ini", "toml", "pyproject"] = "ini"
    if found.path.endswith(".toml"):
        kind = "toml" if found.path.endswith("tox.toml") else "pyproject"
    values = parsed.values("-e")
    if any(word.dynamic for word in values):
        return unknown_task(call, "tox", found)
    envs = [env for word in values for env in word.value.split(",") if env] or None
    posargs = words_of(argv[end + 1 :]) if end < len(argv) else []
    return run_task(
        call,
        "tox",
        found,
        lambda text, files: _reader("tox_commands")(text, envs, kind, posargs),
        runtime_words(argv[end:]),
    )


_NOX = Options(
    short_value="sfepkt",
    long=long_options("sessions=", "session=", "noxfile=", "python=", "keywords=", "tags=", "envdir=",
                      "extra-pythons=", "force-python=", "default-venv-backend=", "force-venv-backend=",
                      "list", "list-sessions", "usage", "help", "version", "json"),
)  # fmt: skip


def nox(call: Call) -> Unwrapped:
    argv = call.argv
    end = next((i for i, word in enumerate(argv) if word.value == "--"), len(argv))
    parsed = parse(argv[:end], 1, _NOX)
    if parsed.has("-l", "--list", "--list-sessions", "--usage", "-h", "--help", "--version", "--json"):
        return NOTHING
    given = parsed.last("-f", "--noxfile")
    base = base_of(call, None)
    if base is None or (given is not None and given.dynamic):
        return NOTHING
    found = find(call, [given.value] if given else ["noxfile.py"], base, up=False)
    sessions = parsed.values("-s", "--sessions", "--session", "-e")
    if any(word.dynamic for word in sessions):
        return unknown_task(call, "nox", found)
    names = [word.value for word in sessions] or None
    return run_task(
        call,
        "nox",
        found,
        lambda text, files: _reader("nox_sessions")(text, names),
        runtime_words(argv[end:]),
    )


_POE = Options(
    short_value="Ce",
    long=long_options(
        "root=", "executor=", "help", "version", "verbose", "quiet", "dry-run", "ansi", "no-ansi"
    ),
)


def poe(call: Call) -> Unwrapped:
    argv = call.argv
    parsed = parse(argv, 1, Options(short_value="Ce", long=_POE.long, permute=False))
    if parsed.has("-h", "--help", "--version", "-d", "--dry-run") or parsed.rest >= len(argv):
        return NOTHING
    base = base_of(call, parsed.last("-C", "--root"))
    if base is None:
        return NOTHING
    found = find(call, ["pyproject.toml", "poe_tasks.toml"], base, up=True)
    head = argv[parsed.rest]
    if head.dynamic:
        return unknown_task(call, "poe", found)
    args = words_of(argv[parsed.rest + 1 :])
    dynamic = runtime_words(argv[parsed.rest + 1 :])
    return run_task(
        call, "poe", found, lambda text, files: _reader("poe_task")(text, head.value, args, files), dynamic
    )


_MISE_CONFIGS = ("mise.local.toml", "mise.toml", ".mise.toml", ".mise.local.toml", "mise/config.toml",
                 ".config/mise.toml", ".config/mise/config.toml")  # fmt: skip
_MISE_TASK_DIRS = ("mise-tasks", ".mise-tasks", "mise/tasks", ".mise/tasks", ".config/mise/tasks")


def mise_run(call: Call, name: Word, args: Argv) -> Unwrapped:
    """`mise run NAME ARGS`: a TOML task of the nearest mise config, or a file task."""
    base = base_of(call, None)
    if base is None:
        return NOTHING
    found = find(call, _MISE_CONFIGS, base, up=True)
    if name.dynamic:
        return unknown_task(call, "mise run", found)
    ran = run_task(
        call,
        "mise run",
        found,
        lambda text, files: _reader("mise_task")(text, name.value, words_of(args), files),
        runtime_words(args),
    )
    if ran.inners or ran.notes:
        return ran
    for directory in _MISE_TASK_DIRS:  # a file task: an executable script the walker reads from disk
        path = f"{base}/{directory}/{name.value}"
        if call.disk is not None and call.disk.exists(path):
            why = f"mise run runs the file task {path}"
            return Unwrapped((Inner("mise run", "child", argv=(Word.literal(path), *args), why=why),))
    return ran


_MISE = Options(
    short_value="CEjo",
    long=long_options(
        "cd=",
        "env=",
        "jobs=",
        "output=",
        "raw",
        "yes",
        "quiet",
        "verbose",
        "silent",
        "trace",
        "debug",
        "locked",
        "offline",
    ),
    permute=False,
)
_MISE_COMMANDS = frozenset({
    "activate", "alias", "asdf", "backends", "bin-paths", "cache", "completion", "config", "deactivate",
    "direnv", "doctor", "edit", "en", "env", "exec", "x", "fmt", "generate", "implode", "install", "i",
    "install-into", "latest", "link", "lock", "ls", "list", "ls-remote", "mcp", "outdated", "plugins", "p",
    "prune", "registry", "reshim", "run", "r", "search", "self-update", "set", "settings", "shell", "sh",
    "sync", "tasks", "t", "test-tool", "tool", "tool-alias", "trust", "uninstall", "unset", "unuse",
    "upgrade", "up", "usage", "use", "u", "version", "watch", "w", "where", "which", "help", "--help",
    "-h", "--version", "-V",
})  # fmt: skip
"""mise's own subcommands (mise 2025): any other word is a task name, as `mise NAME` runs it."""


def mise(call: Call, exec_handler: Callable[[Call], Unwrapped]) -> Unwrapped:
    """`mise exec`/`x` (run by `exec_handler`), `mise run NAME`/`mise r NAME`/`mise NAME` (a task)."""
    argv = call.argv
    parsed = parse(argv, 1, _MISE)
    if parsed.rest >= len(argv):
        return NOTHING
    head = argv[parsed.rest]
    if head.value in ("exec", "x"):
        return exec_handler(call)
    if head.value in ("run", "r"):
        rest = parse(
            argv,
            parsed.rest + 1,
            Options(
                short_value="jo",
                long=long_options(
                    "jobs=",
                    "output=",
                    "force",
                    "raw",
                    "dry-run",
                    "timings",
                    "no-timings",
                    "quiet",
                    "silent",
                    "continue-on-error",
                    "shell=",
                    "tool=",
                ),
                permute=False,
            ),
        )
        if rest.has("--dry-run", "-n") or rest.rest >= len(argv):
            return NOTHING
        return mise_run(call, argv[rest.rest], argv[rest.rest + 1 :])
    if head.value in _MISE_COMMANDS or head.value.startswith("-"):
        return NOTHING
    return mise_run(call, head, argv[parsed.rest + 1 :])
