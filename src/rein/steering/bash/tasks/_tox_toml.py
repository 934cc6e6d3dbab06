"""tox 4's TOML configuration (https://tox.wiki/en/latest/config.html#toml): `env_list`,
`[env.NAME]` over `[env_run_base]`, commands as lists of arguments where a string is one argument
(with `{...}` substitutions) and a table is a replacement: `posargs` (the given arguments, else its
`default`), `env` (known at run time), `ref` (another setting's value, `of = [...]` or
`env`/`key`)."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._located import TomlLines
from rein.steering.bash.tasks._plan import Plan, TaskCommand, join_argv
from rein.steering.bash.tasks._tox_subst import Substitution

_KEYS = ("commands_pre", "commands", "commands_post")
_MAX_ENVS = 64


def _table(value: object) -> dict[str, object]:
    return {str(key): item for key, item in value.items()} if isinstance(value, dict) else {}


class _Env:
    def __init__(
        self, root: dict[str, object], name: str, posargs: Sequence[str | None] | None, plan: Plan
    ) -> None:
        self.root, self.name, self.plan = root, name, plan
        own = _table(_table(root.get("env")).get(name))
        self.chain: list[tuple[tuple[str, ...], dict[str, object]]] = [(("env", name), own)]
        bases = own.get("base")
        for base in bases if isinstance(bases, list) else ["env_run_base"]:
            self.chain.append(((str(base),), _table(root.get(str(base)))))
        self.subst = Substitution(name, posargs, self._lookup, not self.setting("change_dir")[1])
        self.posargs = posargs

    def setting(self, key: str) -> tuple[tuple[str, ...], object]:
        for path, table in self.chain:
            if key in table:
                return (*path, key), table[key]
        return (), None

    def _lookup(self, section: str | None, key: str) -> str | None:
        value = self.setting(key)[1] if section is None else None
        return (
            " ".join(self.args(value))
            if isinstance(value, list)
            else value
            if isinstance(value, str)
            else None
        )

    def args(self, value: object) -> list[str]:
        """One command's arguments; a `RUNTIME` element stands for any number of them."""
        if isinstance(value, str):
            found = self.subst(value)
            return [found]
        if isinstance(value, list):
            return [arg for item in value for arg in self.args(item)]
        table = _table(value)
        kind = table.get("replace")
        if kind == "posargs":
            if self.posargs:
                return [RUNTIME if arg is None else arg for arg in self.posargs]
            if "default" in table:
                return self.args(table["default"])
            return [RUNTIME] if self.posargs is None else []
        if kind == "ref" and self.plan.step():
            return self.args(self.reference(table))
        return [RUNTIME]

    def reference(self, table: dict[str, object]) -> object:
        of = table.get("of")
        if isinstance(of, list):
            parts = [str(part) for part in of]
            if parts[:2] == ["tool", "tox"] and "tool" not in self.root:  # pyproject's own spelling
                parts = parts[2:]
            node: object = self.root
            for part in parts:
                node = _table(node).get(part)
            return node
        if isinstance(table.get("env"), str) and isinstance(table.get("key"), str):
            return _Env(self.root, str(table["env"]), self.posargs, self.plan).setting(str(table["key"]))[1]
        return None

    def commands(self, value: object) -> list[list[str]]:
        """A commands value as argvs: a `ref` with `extend` in the list splices other commands."""
        found: list[list[str]] = []
        for item in value if isinstance(value, list) else []:
            table = _table(item)
            if table.get("replace") == "ref" and self.plan.step():
                found.extend(self.commands(self.reference(table)))
            elif isinstance(item, list | str):
                found.append(self.args(item) if isinstance(item, list) else self.args([item]))
        return found


def toml_plan(
    text: str, root: dict[str, object], prefix: tuple[str, ...], envs: Sequence[str] | None,
    posargs: Sequence[str | None] | None, label: str,
) -> Plan:  # fmt: skip
    plan = Plan()
    lines = TomlLines(text)
    listed = root.get("env_list")
    names = (
        list(envs) if envs is not None else [str(n) for n in listed] if isinstance(listed, list) else ["py"]
    )
    if len(names) > _MAX_ENVS:
        plan.why(f"more than {_MAX_ENVS} tox environments: not all were read")
    for name in names[:_MAX_ENVS]:
        env = _Env(root, name, posargs, plan)
        cwd_value = env.setting("change_dir")[1]
        cwd = None
        if isinstance(cwd_value, str):
            cwd = env.subst(cwd_value)
            cwd = cwd if cwd.startswith((RUNTIME, "/")) else posixpath.normpath(cwd)
        variables = tuple(
            (str(key), env.subst(value) if isinstance(value, str) else RUNTIME)
            for key, value in _table(env.setting("set_env")[1]).items()
        )
        for key in _KEYS:
            path, value = env.setting(key)
            after = 0
            for words in env.commands(value):
                if not words:
                    continue
                first = next((word for word in words if RUNTIME not in word), "")
                line = lines.find((*prefix, *path), first, after) if path else 0
                after = line
                section = "[" + ".".join((*prefix, *path[:-1])) + "]"
                plan.add(
                    TaskCommand(
                        script=join_argv(words), line=line, where=f"{label} {section} {key}",
                        shell="", cwd=cwd, env=variables,
                    )
                )  # fmt: skip
    return plan
