"""What `mise run NAME ARGS...` runs from TOML tasks (https://mise.jdx.dev/tasks/toml-tasks.html)
in `mise.toml`, `.mise.toml` or `mise/config.toml`: `[tasks.NAME]` (or `[tasks] NAME = "cmd"` /
`[...]`), found by name or `alias`. Its `depends` run first and `depends_post` last; each `run`
entry (a string, or `{task = ...}` / `{tasks = [...]}`) is one script for its `shell` (`sh -c`, or
the entry's shebang interpreter); a `file = "script"` task runs that file, which the caller reads
(`includes`, then `files`). The given arguments are appended, quoted, to the last script unless the
task declares `usage` or uses `arg()`/`option()`/`flag()`. Tera templates: `{{vars.x}}`,
`{{env.X}}` of the file's `[env]`, `{{config_root}}` are known; anything else (`{{arg(...)}}`,
`{% if %}` blocks) is known only at run time. File tasks in `.mise/tasks/` and `mise-tasks/` are
not in the TOML: the caller finds them on disk."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._located import TomlLines, load_toml
from rein.steering.bash.tasks._plan import (
    Plan,
    TaskCommand,
    TaskPlan,
    guarded,
    interpreter,
    join_argv,
    joined,
    lookup,
)

_TEMPLATE = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}|\{%-?\s*(.*?)\s*-?%\}", re.DOTALL)
_ARGS = re.compile(r"\b(arg|option|flag)\s*\(")


def _table(value: object) -> dict[str, object]:
    return {str(key): item for key, item in value.items()} if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    return (
        [value]
        if isinstance(value, str)
        else [str(item) for item in value]
        if isinstance(value, list)
        else []
    )


class _Reader:
    def __init__(
        self, data: dict[str, object], text: str, files: Mapping[str, str | None] | None, plan: Plan
    ) -> None:
        self.tasks, self.lines, self.files, self.plan = (
            _table(data.get("tasks")),
            TomlLines(text),
            files,
            plan,
        )
        self.vars = {k: v for k, v in _table(data.get("vars")).items() if isinstance(v, str)}
        self.env: dict[str, str] = {}
        for key, value in _table(data.get("env")).items():
            if isinstance(value, str | int | float | bool) and not key.startswith("_"):
                self.env[key] = self.render(str(value).lower() if isinstance(value, bool) else str(value))
        self.running: list[str] = []

    def render(self, text: str) -> str:
        def one(found: re.Match[str]) -> str:
            expression = found.group(1)
            if expression is None:
                return RUNTIME  # a `{% ... %}` tag
            if expression == "config_root":
                return "."
            for prefix, table in (("vars.", self.vars), ("env.", self.env)):
                if expression.startswith(prefix) and expression[len(prefix) :] in table:
                    return str(table[expression[len(prefix) :]])
            return RUNTIME

        return _TEMPLATE.sub(one, text)

    def find(self, name: str) -> tuple[str, dict[str, object]] | None:
        for task, value in self.tasks.items():
            spec: dict[str, object] = {"run": value} if isinstance(value, str | list) else _table(value)
            if task == name or name in _strings(spec.get("alias")):
                return task, spec
        return None

    def call(self, name: str, args: Sequence[str | None]) -> None:
        found = self.find(name)
        if found is None or found[0] in self.running or not self.plan.step():
            return
        task, spec = found
        self.running.append(task)
        try:
            for dep in _deps(spec.get("depends")):
                self.call(*dep)
            self._run(task, spec, args)
            for dep in _deps(spec.get("depends_post")):
                self.call(*dep)
        finally:
            self.running.pop()

    def _run(self, task: str, spec: dict[str, object], args: Sequence[str | None]) -> None:
        env = {**self.env, **{k: self.render(str(v)) for k, v in _table(spec.get("env")).items()}}
        directory = self.render(str(spec["dir"])) if isinstance(spec.get("dir"), str) else None
        cwd = None if directory in (None, ".") else directory
        shell = interpreter(str(spec["shell"]).split()) if isinstance(spec.get("shell"), str) else "sh"
        base = ("tasks", task)
        where = f"mise.toml tasks.{task}"
        entries = spec.get("run", spec.get("script"))
        runs = entries if isinstance(entries, list) else [entries] if entries is not None else []
        texts = [entry for entry in runs if isinstance(entry, str)]
        takes = "usage" in spec or any(_ARGS.search(text) for text in texts)
        last = texts[-1] if texts and args and not takes else None
        after = 0
        for index, entry in enumerate(runs):
            if not isinstance(entry, str):
                for dep in [*_strings(_table(entry).get("task")), *_strings(_table(entry).get("tasks"))]:
                    self.call(*_split(dep))
                continue
            script = self.render(entry)
            if entry is last:
                script += " " + join_argv(args)
            line = after = self.lines.find((*base, "run"), entry, after) or self.lines.line(base)
            own = interpreter(script.split("\n", 1)[0]) if script.startswith("#!") else shell
            label = f"{where}.run[{index}]" if isinstance(entries, list) else f"{where}.run"
            self.plan.add(
                TaskCommand(script=script, line=line, where=label, shell=own, cwd=cwd, env=tuple(env.items()))
            )
        if isinstance(spec.get("file"), str):
            self._file(joined("", self.render(str(spec["file"]))), f"{where}.file", cwd, env, args)

    def _file(
        self, path: str, where: str, cwd: str | None, env: dict[str, str], args: Sequence[str | None]
    ) -> None:
        if RUNTIME in path:
            self.plan.why(f"{where} names a script known only at run time")
            return
        self.plan.include(path)
        read, text = lookup(self.files, path)
        if not read:
            self.plan.why(f"{where} runs {path}, which was not read")
        elif text is not None:
            shell = interpreter(text.split("\n", 1)[0]) if text.startswith("#!") else "sh"
            prefix = f"set -- {join_argv(args)}\n" if args and shell in ("sh", "bash", "zsh", "dash") else ""
            self.plan.add(
                TaskCommand(
                    script=prefix + text,
                    line=1,
                    where=f"{path} (run by {where})",
                    shell=shell,
                    cwd=cwd,
                    env=tuple(env.items()),
                    file=path,
                )
            )


def _split(text: str) -> tuple[str, list[str | None]]:
    name, *args = text.split()
    return name, list(args)


def _deps(value: object) -> list[tuple[str, list[str | None]]]:
    found: list[tuple[str, list[str | None]]] = []
    for item in value if isinstance(value, list) else [value] if value is not None else []:
        if isinstance(item, str) and item.split():
            found.append(_split(item))
        elif isinstance(_table(item).get("task"), str):
            spec = _table(item)
            found.append((str(spec["task"]), list(_strings(spec.get("args")))))
    return found


def mise_task(
    text: str, name: str, args: Sequence[str | None] = (), files: Mapping[str, str | None] | None = None
) -> TaskPlan:
    """What `mise run NAME ARGS...` runs from TOML tasks. `files`: the texts of the scripts in
    `includes` (`file = ...` tasks; None for a file that does not exist)."""
    return guarded(
        "mise configuration", [text, *(files or {}).values()], lambda: _read(text, name, args, files)
    )


def _read(
    text: str, name: str, args: Sequence[str | None], files: Mapping[str, str | None] | None
) -> TaskPlan:
    try:
        data = load_toml(text)
    except ValueError as error:
        return TaskPlan(unknown=(f"mise.toml does not parse: {error}",))
    plan = Plan()
    reader = _Reader(data, text, files, plan)
    reader.call(name, args)
    includes = _strings(_table(data.get("task_config")).get("includes"))
    if reader.find(name) is None and includes:
        for path in includes:
            plan.include(joined("", path))
        plan.why(f"mise.toml task_config includes {', '.join(includes)}: task {name} may be there")
    return plan.done()
