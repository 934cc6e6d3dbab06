"""What `task NAME` runs with go-task's Taskfile v3 (https://taskfile.dev/reference/schema): the
Taskfiles' `sh:` variables when they load (`_taskfile_load`), then the task (`default` without a
name; found by name, alias, wildcard or `namespace:name` through includes): its own `sh:` vars and
env, its `deps`, `if`, `preconditions` and `status` commands, its `cmds` (strings, `cmd:`, `task:`
calls with `vars`, `for:` loops, `defer:` run last) in its `dir`. Templates are rendered with the
variables in scope (`_gotemplate`); a task called again with the same variables while it runs is
not followed again. Commands and tasks only for Windows (`platforms: [windows]`) are left out;
`internal` tasks cannot be called from the command line (an empty plan)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._gotemplate import render
from rein.steering.bash.tasks._located import Path
from rein.steering.bash.tasks._plan import Plan, TaskCommand, TaskPlan, guarded
from rein.steering.bash.tasks._taskfile_load import (
    File,
    Loader,
    Reject,
    Stop,
    items,
    label,
    mapping,
    windows_only,
)

Call = tuple[str, str, tuple[tuple[str, str], ...]]


class _Runner:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.running: set[Call] = set()

    def find(self, file: File, name: str) -> tuple[File, str, dict[str, object]] | None:
        """The task a name calls from `file`; None while an include it may be in is not read."""
        if name.startswith(":"):
            return self.find(file.root or file, name[1:])
        for task, value in file.tasks.items():
            aliases = [str(alias) for alias in items(mapping(value).get("aliases"))]
            if task not in file.excludes and (task == name or name in aliases):
                return file, task, _definition(value)
        for task, value in file.tasks.items():
            if "*" in task and re.fullmatch(".*".join(map(re.escape, task.split("*"))), name):
                return file, task, _definition(value)
        unread = False
        for namespace, aliases, flatten, included in file.includes:
            prefixes = [] if flatten else [namespace, *aliases]
            prefix = next((p for p in prefixes if name == p or name.startswith(p + ":")), None)
            if included is None:
                unread = unread or flatten or prefix is not None
                continue
            if flatten or prefix is not None:
                rest = name if prefix is None else name[len(prefix) + 1 :] or "default"
                try:
                    return self.find(included, rest)
                except Reject:
                    if not flatten:
                        raise
        if unread:
            return None
        raise Reject

    def call(self, file: File, name: str, given: Mapping[str, str], top: bool = False) -> None:
        if RUNTIME in name:
            self.plan.why(f"{label(file.path)} calls a task named at run time")
            return
        try:
            found = self.find(file, name)
        except Reject:
            if top:
                raise
            return  # go-task fails there when it gets there: what comes before it runs
        if found is None or not self.plan.step():
            return
        owner, task, body = found
        if top and (owner.internal or body.get("internal")):
            raise Reject
        key = (owner.path, task, tuple(sorted(given.items())))
        if key in self.running or windows_only(body):
            return
        self.running.add(key)
        try:
            self._run(owner, task, body, given)
        finally:
            self.running.discard(key)

    def _run(self, file: File, task: str, body: dict[str, object], given: Mapping[str, str]) -> None:
        base: Path = ("tasks", task)
        loader = Loader(None, self.plan)
        scope = {**file.scope, **given, "TASK": file.namespace + task}
        scope.update(loader.values(body.get("vars"), scope, file, (*base, "vars")))
        env = {**file.env, **loader.values(body.get("env"), scope, file, (*base, "env"))}
        directory = file.directory if file.directory is not None else posixpath.dirname(file.base)
        cwd = directory or None
        if isinstance(body.get("dir"), str | int):
            cwd = posixpath.normpath(posixpath.join(directory, render(str(body["dir"]), scope)))
        context = _Context(file, scope, tuple(env.items()), cwd)
        for index, dep in enumerate(items(body.get("deps"))):
            self._item(context, dep, (*base, "deps", index), [], task=True)
        for key in ("if", "preconditions", "status"):
            checks = [body[key]] if key == "if" and key in body else items(body.get(key))
            for index, check in enumerate(checks):
                script = check if isinstance(check, str) else mapping(check).get("sh")
                path = (*base, key) if key == "if" else (*base, key, index)
                if isinstance(script, str):
                    self._add(context, script, path if isinstance(check, str) else (*path, "sh"))
        cmds = items(body.get("cmds")) if "cmds" in body else [body["cmd"]] if "cmd" in body else []
        deferred: list[tuple[object, Path]] = []
        for index, item in enumerate(cmds):
            self._item(context, item, (*base, "cmds", index) if "cmds" in body else (*base, "cmd"), deferred)
        for item, later in reversed(deferred):
            self._item(context, item, later, [])

    def _item(
        self,
        context: _Context,
        item: object,
        path: Path,
        deferred: list[tuple[object, Path]],
        task: bool = False,
    ) -> None:
        if isinstance(item, str):
            if task:
                self.call(context.file, render(item, context.scope), {})
            else:
                self._add(context, item, path)
            return
        spec = mapping(item)
        if windows_only(spec):
            return
        if "defer" in spec:
            deferred.append((spec["defer"], (*path, "defer")))
            return
        loop = spec.get("for")
        name = str(spec.get("as", "ITEM"))
        for value in _iterations(loop, context.scope) if loop is not None else [None]:
            scope = context.scope if value is None else {**context.scope, name: value}
            inner = _Context(context.file, scope, context.env, context.cwd)
            if isinstance(spec.get("cmd"), str):
                self._add(inner, str(spec["cmd"]), (*path, "cmd"))
            if isinstance(spec.get("task"), str):
                given = Loader(None, self.plan).values(spec.get("vars"), scope, context.file, (*path, "vars"))
                self.call(context.file, render(str(spec["task"]), scope), given)

    def _add(self, context: _Context, script: str, path: Path) -> None:
        where = f"{label(context.file.path)} " + ".".join(
            str(p) if isinstance(p, str) else f"[{p}]" for p in path
        )
        self.plan.add(
            TaskCommand(
                script=render(script, context.scope), line=context.file.line(path),
                where=where.replace(".[", "["), cwd=context.cwd, env=context.env, file=context.file.path,
            )
        )  # fmt: skip


class _Context:
    __slots__ = ("cwd", "env", "file", "scope")

    def __init__(
        self, file: File, scope: dict[str, str], env: tuple[tuple[str, str], ...], cwd: str | None
    ) -> None:
        self.file, self.scope, self.env, self.cwd = file, scope, env, cwd


def _definition(value: object) -> dict[str, object]:
    """A task as a mapping: a string or a list is its `cmds`."""
    if isinstance(value, str):
        return {"cmds": [value]}
    if isinstance(value, list):
        return {"cmds": value}
    return mapping(value)


def _iterations(loop: object, scope: Mapping[str, str]) -> list[str]:
    """The values a `for:` gives its item: a list's, a variable's split words; else one unknown."""
    if isinstance(loop, list):
        return [str(item) if not isinstance(item, dict | list) else RUNTIME for item in loop] or []
    spec = mapping(loop)
    if isinstance(spec.get("var"), str):
        value = scope.get(str(spec["var"]), RUNTIME)
        if RUNTIME not in value:
            split = spec.get("split")
            return value.split(split) if isinstance(split, str) and split else value.split()
    return [RUNTIME]


def taskfile_task(text: str, name: str | None, files: Mapping[str, str | None] | None = None) -> TaskPlan:
    """What `task NAME` runs (`name` None: `task` alone, the `default` task). `files`: the texts of
    `includes`, keyed as listed there (a directory's Taskfile under the directory's path), None for
    one that does not exist."""
    return guarded("Taskfile", [text, *(files or {}).values()], lambda: _read(text, name, files))


def _read(text: str, name: str | None, files: Mapping[str, str | None] | None) -> TaskPlan:
    plan = Plan()
    try:
        root = Loader(files, plan).load("", text, None, {}, {})
        _Runner(plan).call(root, name or "default", {}, top=True)
    except Reject:
        return TaskPlan(unknown=tuple(plan.unknown), includes=tuple(plan.includes))
    except Stop as stop:
        return TaskPlan(unknown=(str(stop),), includes=tuple(plan.includes))
    return plan.done()
