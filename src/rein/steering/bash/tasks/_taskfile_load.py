"""A go-task Taskfile and its includes as go-task loads them at start
(https://taskfile.dev/reference/schema): each file's tasks, its `vars` and `env` evaluated in order
(a `sh:` variable runs its command then, used or not), and its `includes` (a namespace, or
`flatten`ed), each read by the caller and loaded in turn."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import yaml

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._gotemplate import render
from rein.steering.bash.tasks._located import Path, Yaml
from rein.steering.bash.tasks._plan import Plan, TaskCommand, joined, lookup

_SPECIAL = (
    "ROOT_DIR", "ROOT_TASKFILE", "TASKFILE", "TASKFILE_DIR", "TASK_DIR", "USER_WORKING_DIR", "CLI_ARGS",
    "CLI_ARGS_LIST", "CLI_FORCE", "CLI_SILENT", "CLI_VERBOSE", "CLI_OFFLINE", "CLI_ASSUME_YES",
    "TASK_EXE", "TASK_VERSION", "MATCH", "TIMESTAMP", "CHECKSUM", "EXIT_CODE",
)  # fmt: skip
"""Variables go-task sets from the machine or the command line: known only at run time."""


class Reject(Exception):
    """go-task stops with an error before it runs anything: the plan is empty."""


class Stop(Exception):
    """A file that cannot be read: the plan is this one unknown reason."""


def label(path: str) -> str:
    return path or "Taskfile.yml"


def mapping(value: object) -> dict[str, object]:
    """A YAML mapping with its keys as text; {} for anything else."""
    return {str(key): item for key, item in value.items()} if isinstance(value, dict) else {}


def items(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def windows_only(value: object) -> bool:
    platforms = [str(item).split("/")[0] for item in items(mapping(value).get("platforms"))]
    return bool(platforms) and all(platform == "windows" for platform in platforms)


@dataclass(slots=True)
class File:
    path: str
    doc: Yaml
    namespace: str
    """The prefix of its tasks' names as called (`docs:`); "" for the root and flattened ones."""
    directory: str | None
    """Where its tasks run, relative to the root's directory; None: where go-task was started."""
    scope: dict[str, str]
    env: dict[str, str]
    internal: bool = False
    excludes: frozenset[str] = frozenset()
    tasks: dict[str, object] = field(default_factory=dict)
    includes: list[tuple[str, list[str], bool, File | None]] = field(default_factory=list)
    """(namespace, its aliases, flattened, the file: None while it is not read)."""
    root: File | None = None

    def line(self, path: Path) -> int:
        return self.doc.line(path)

    @property
    def base(self) -> str:
        """A path in its directory, for joining: an include names a directory or a file."""
        return (
            self.path
            if not self.path or self.path.endswith((".yml", ".yaml"))
            else f"{self.path}/Taskfile.yml"
        )


class Loader:
    def __init__(self, files: Mapping[str, str | None] | None, plan: Plan) -> None:
        self.files, self.plan = files, plan

    def load(
        self, path: str, text: str, parent: File | None, spec: Mapping[str, object], given: Mapping[str, str]
    ) -> File:
        """`spec`: how `parent` includes the file; `given`: the include's `vars`, evaluated."""
        try:
            doc = Yaml(text)
        except (yaml.YAMLError, TypeError, ValueError) as error:
            raise Stop(f"{label(path)} does not parse: {error}") from None
        if doc.value is not None and not isinstance(doc.value, dict):
            raise Stop(f"{label(path)} does not parse: it is not a mapping")
        top = mapping(doc.value)
        scope = dict(parent.scope) if parent else dict.fromkeys(_SPECIAL, RUNTIME)
        scope.update(given)
        directory = parent.directory if parent else None
        if isinstance(spec.get("dir"), str) and parent is not None:
            directory = joined(parent.base, render(str(spec["dir"]), parent.scope))
        file = File(
            path, doc, (parent.namespace if parent else "") + str(spec.get("namespace", "")), directory,
            scope, dict(parent.env) if parent else {},
            internal=bool(spec.get("internal")) or bool(parent and parent.internal),
            excludes=frozenset(str(name) for name in items(spec.get("excludes"))),
            tasks=mapping(top.get("tasks")),
        )  # fmt: skip
        file.root = parent.root if parent and parent.root else parent
        file.scope.update(self.values(top.get("vars"), file.scope, file, ("vars",)))
        file.env.update(self.values(top.get("env"), file.scope, file, ("env",)))
        for name, value in mapping(top.get("includes")).items():
            self._include(file, name, value)
        return file

    def _include(self, file: File, name: str, value: object) -> None:
        if not self.plan.step():
            return
        spec = mapping(value) if isinstance(value, dict) else {"taskfile": value}
        written = render(str(spec.get("taskfile", "")), file.scope)
        aliases = [str(alias) for alias in items(spec.get("aliases"))]
        flatten = bool(spec.get("flatten"))
        if RUNTIME in written or not written:
            self.plan.why(f"{label(file.path)} includes {name} from a path known only at run time")
            file.includes.append((name, aliases, flatten, None))
            return
        path = joined(file.base, written)
        self.plan.include(path)
        read, text = lookup(self.files, path)
        if not read:
            self.plan.why(f"{label(file.path)} includes {path}, which was not read")
            file.includes.append((name, aliases, flatten, None))
        elif text is not None:
            given = self.values(spec.get("vars"), file.scope, file, ("includes", name, "vars"))
            namespace = "" if flatten else f"{name}:"
            loaded = self.load(path, text, file, {**spec, "namespace": namespace}, given)
            file.includes.append((name, aliases, flatten, loaded))
        elif not spec.get("optional"):
            raise Reject  # go-task: a required include that does not exist

    def values(self, table: object, scope: Mapping[str, str], file: File, path: Path) -> dict[str, str]:
        """A `vars:` or `env:` table evaluated in order, each seeing the ones before it."""
        seen = dict(scope)
        found: dict[str, str] = {}
        for name, value in mapping(table).items():
            found[name] = seen[name] = self.value(value, seen, file, (*path, name))
        return found

    def value(self, value: object, scope: Mapping[str, str], file: File, path: Path) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int | float):
            return render(str(value), scope)
        if value is None:
            return ""
        spec = mapping(value)
        if isinstance(spec.get("sh"), str):
            dotted = ".".join(str(part) for part in path)
            self.plan.add(
                TaskCommand(
                    script=render(str(spec["sh"]), scope), line=file.line((*path, "sh")),
                    where=f"{label(file.path)} {dotted}.sh", cwd=file.directory, file=file.path,
                )
            )  # fmt: skip
            return RUNTIME
        if isinstance(spec.get("ref"), str):
            return scope.get(str(spec["ref"]).strip().removeprefix("."), RUNTIME)
        if "value" in spec:
            return self.value(spec["value"], scope, file, path)
        return RUNTIME  # a list, a map: used in `for` and templates rein does not evaluate
