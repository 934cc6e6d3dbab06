"""What `poe NAME ARGS...` runs (poethepoet, https://poethepoet.natn.io/): tasks from
`pyproject.toml`'s `[tool.poe.tasks]` or a standalone `poe_tasks.toml`'s `[tasks]`, and from the
files its `include` names (read by the caller; the project's own tasks win). A string task is a
`cmd` (or `default_task_type`), a list a `sequence`. `cmd` is an argv (`_poe_cmd`; the given
arguments are appended when the task declares no `args`); `shell` is a script for its `interpreter`
(`posix`: sh); `sequence` items are task references (strings, or `default_item_type`) or inline
tasks; `ref` calls a task with arguments; `switch` runs its `control` task and may run any case;
`expr` is Python code (`imports` first) handed on as a `python` script unless it is a literal;
`script` calls a Python function rein cannot see (unknown). `deps` and `uses` run first; `env` and
`cwd` apply; declared `args` are known only at run time."""

from __future__ import annotations

import ast
import shlex
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
from rein.steering.bash.tasks._poe_cmd import expand, words

_TYPES = ("cmd", "shell", "script", "sequence", "expr", "switch", "ref", "parallel")


def _table(value: object) -> dict[str, object]:
    return {str(key): item for key, item in value.items()} if isinstance(value, dict) else {}


class _Source:
    """One file's poe configuration."""

    def __init__(
        self, path: str, text: str, config: dict[str, object], prefix: tuple[str, ...], cwd: str | None
    ) -> None:
        self.path, self.config, self.prefix, self.cwd = path, config, prefix, cwd
        self.lines = TomlLines(text)
        self.tasks = _table(config.get("tasks"))
        self.label = path or ("pyproject.toml" if prefix else "poe_tasks.toml")


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def _config(data: dict[str, object]) -> tuple[dict[str, object], tuple[str, ...]]:
    poe = _table(_table(data.get("tool")).get("poe"))
    return (poe, ("tool", "poe")) if poe else (data, ())


class _Reader:
    def __init__(self, plan: Plan, root: _Source) -> None:
        self.plan, self.root = plan, root
        self.sources = [root]
        self.unread: list[str] = []
        """Included files not read: a task not found may be in one."""
        self.stack: list[str] = []
        options = root.config
        self.default_type = str(options.get("default_task_type", "cmd"))
        self.item_type = str(options.get("default_array_item_task_type", "ref"))
        shell = options.get("shell_interpreter", "posix")
        self.interpreter = (
            interpreter([str(shell[0] if isinstance(shell, list) and shell else shell)]) or "sh"
        )
        self.env = {str(k): str(v) for k, v in _table(options.get("env")).items() if isinstance(v, str)}

    def find(self, name: str) -> tuple[_Source, object] | None:
        return next(((source, source.tasks[name]) for source in self.sources if name in source.tasks), None)

    def call(self, name: str, args: Sequence[str | None], env: Mapping[str, str]) -> bool:
        """Run a task by name; False when there is none."""
        found = self.find(name)
        if found is None:
            for path in self.unread:
                self.plan.why(f"{self.root.label} includes {path}, which was not read: {name} may be there")
            return False
        if name in self.stack or not self.plan.step():
            return True
        self.stack.append(name)
        try:
            source, definition = found
            self.task(source, definition, (*source.prefix, "tasks", name), f"tasks.{name}", args, env)
        finally:
            self.stack.pop()
        return True

    def task(
        self, source: _Source, definition: object, path: tuple[str, ...], where: str,
        args: Sequence[str | None], inherited: Mapping[str, str], item_type: str | None = None, line: int = 0,
    ) -> None:  # fmt: skip
        """Run one task definition; `line` is where it is written when it is not a key of its own."""
        spec = _table(definition)
        kind: str
        content: object
        if isinstance(definition, str):
            kind, content = item_type or self.default_type, definition
        elif isinstance(definition, list):
            kind, content = "sequence", definition
        else:
            kinds = [key for key in _TYPES if key in spec]
            kind, content = (kinds[0], spec[kinds[0]]) if len(kinds) == 1 else ("", None)
        env = dict(inherited)
        for key, value in _table(spec.get("env")).items():
            env[key] = expand(str(value), env) if isinstance(value, str) else RUNTIME
        declared = spec.get("args")
        names = list(_table(declared)) if isinstance(declared, dict) else [
            str(_table(item).get("name", item)) for item in (declared if isinstance(declared, list) else [])
        ]  # fmt: skip
        env.update(dict.fromkeys(names, RUNTIME))
        cwd = expand(str(spec["cwd"]), env) if isinstance(spec.get("cwd"), str) else source.cwd
        for dep in [*_list(spec.get("deps")), *_table(spec.get("uses")).values()]:
            self._reference(str(dep), env, source, where)
        line = line or source.lines.line(path)
        label = f"{source.label} {'tool.poe.' if source.prefix else ''}{where}"

        def add(script: str, shell: str = "") -> None:
            self.plan.add(
                TaskCommand(
                    script=script,
                    line=line,
                    where=label,
                    shell=shell,
                    cwd=cwd,
                    env=tuple(env.items()),
                    file=source.path,
                )
            )

        if kind == "cmd" and isinstance(content, str):
            argv = words(content, env)
            add(join_argv([*argv, *(args if not names else [])], globs=True))
        elif kind == "shell" and isinstance(content, str):
            chosen = spec.get("interpreter")
            first = chosen[0] if isinstance(chosen, list) and chosen else chosen
            add(content, interpreter([str(first)]) if isinstance(first, str) else self.interpreter)
        elif kind == "expr" and isinstance(content, str):
            if not _literal(content):
                imports = [
                    f"import {module}\n" for module in _list(spec.get("imports")) if isinstance(module, str)
                ]
                add("".join(imports) + content, "python")
        elif kind == "script":
            self.plan.why(f"{label} calls Python code rein cannot see: {content!r}")
        elif kind == "ref" and isinstance(content, str):
            self._reference(content, env, source, where)
        elif kind in ("sequence", "parallel") and isinstance(content, list):
            own = str(spec.get("default_item_type", self.item_type))
            inside, at = (*path, kind) if spec else path, 0
            for index, item in enumerate(content):
                text = item if isinstance(item, str) else str(next(iter(_table(item).values()), ""))
                at = source.lines.find(inside, text, at)
                self.task(source, item, inside, f"{where}.{kind}[{index}]", (), env, own, at)
        elif kind == "switch" and isinstance(content, list):
            self.task(source, spec.get("control"), (*path, "control"), f"{where}.control", (), env)
            for index, case in enumerate(content):
                self.task(source, case, (*path, "switch"), f"{where}.switch[{index}]", (), env)
        else:
            self.plan.why(f"{label} is not a task poe can run")

    def _reference(self, text: str, env: Mapping[str, str], source: _Source, where: str) -> None:
        """`name args...` of a `ref`, `deps` or sequence item."""
        try:
            parts = shlex.split(expand(text, env))
        except ValueError:
            parts = text.split()
        if parts and not self.call(parts[0], parts[1:], self.env):
            return  # poe rejects the configuration: a reference to no task


def _literal(text: str) -> bool:
    try:
        ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def poe_task(
    text: str, name: str, args: Sequence[str | None] = (), files: Mapping[str, str | None] | None = None
) -> TaskPlan:
    """What `poe NAME ARGS...` runs, from a `pyproject.toml` or a `poe_tasks.toml`. `files`: the
    texts of `includes` (None for a file that does not exist)."""
    return guarded(
        "poe configuration", [text, *(files or {}).values()], lambda: _read(text, name, args, files)
    )


def _read(
    text: str, name: str, args: Sequence[str | None], files: Mapping[str, str | None] | None
) -> TaskPlan:
    try:
        config, prefix = _config(load_toml(text))
    except ValueError as error:
        return TaskPlan(unknown=(f"the poe configuration does not parse: {error}",))
    plan = Plan()
    reader = _Reader(plan, _Source("", text, config, prefix, None))
    included = config.get("include")
    for entry in included if isinstance(included, list) else [included] if included else []:
        spec = _table(entry) if isinstance(entry, dict) else {"path": entry}
        path = joined("", str(spec.get("path", "")))
        plan.include(path)
        read, found = lookup(files, path)
        if not read:
            reader.unread.append(path)
        elif found is not None:
            try:
                sub, sub_prefix = _config(load_toml(found))
            except ValueError as error:
                plan.why(f"{path} does not parse: {error}")
                continue
            cwd = str(spec["cwd"]) if isinstance(spec.get("cwd"), str) else None
            reader.sources.append(_Source(path, found, sub, sub_prefix, cwd))
    if not reader.call(name, args, reader.env) and config.get("include_script"):
        plan.why(f"{reader.root.label} loads tasks from a Python script (include_script): {name} may be one")
    if not plan.commands and not plan.unknown and reader.find(name) is None:
        return TaskPlan(includes=tuple(plan.includes))
    return plan.done()
