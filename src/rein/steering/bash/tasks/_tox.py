"""What `tox` (tox 4, https://tox.wiki/en/latest/config.html) runs for each environment: its
`commands_pre`, `commands` and `commands_post`, each an argv (no shell reads them), in its
`change_dir` with its `set_env`. Read from `tox.ini` (`[testenv:NAME]`, then its `base`, then
`[testenv]`; `_tox_ini`), from `tox.toml` or `pyproject.toml`'s `[tool.tox]` (`[env.NAME]`, then
`[env_run_base]`; commands as lists, `{replace = "posargs" | "env" | "ref"}`), or from
`pyproject.toml`'s `legacy_tox_ini` string. Without names, the environments of `env_list`
(`envlist`), else tox's default `py`. Packaging and `deps` installs are not listed."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Literal

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._located import TomlLines, load_toml
from rein.steering.bash.tasks._plan import Plan, TaskCommand, TaskPlan, guarded, join_argv
from rein.steering.bash.tasks._tox_ini import Ini, IniError, env_list, lines_for, parse
from rein.steering.bash.tasks._tox_subst import Substitution, argv
from rein.steering.bash.tasks._tox_toml import toml_plan

_KEYS = ("commands_pre", "commands", "commands_post")
_CWD = ("change_dir", "changedir")
_ENV = ("set_env", "setenv")
_MAX_ENVS = 64


class _IniEnv:
    """One environment's settings in a tox.ini: its sections' values for its factors, substituted."""

    def __init__(self, ini: Ini, env: str, posargs: Sequence[str | None] | None, plan: Plan) -> None:
        self.ini, self.env, self.plan, self.chain = ini, env, plan, _chain(ini, env)
        self.subst = Substitution(env, posargs, self.lookup, not any(self.raw(key) for key in _CWD))
        self.rooted = Substitution(
            env, posargs, self.lookup, True
        )  # `cwd` is relative to tox.ini's directory

    def raw(self, key: str, section: str | None = None) -> tuple[str, list[tuple[int, str]]] | None:
        """The section a setting is found in and its lines for this environment."""
        for name in [section] if section is not None else self.chain:
            found = self.ini.get(name, key)
            if found is not None:
                return name, list(lines_for(found[1], self.env))
        return None

    def lookup(self, section: str | None, key: str) -> str | None:
        found = self.raw(key, section) if self.plan.step() else None
        return None if found is None else "\n".join(self.subst(line) for _, line in found[1])

    def cwd(self) -> str | None:
        for key in _CWD:
            found = self.raw(key)
            if found and found[1]:
                return _directory(self.rooted(found[1][0][1]))
        return None

    def variables(self) -> tuple[tuple[str, str], ...]:
        found = [self.raw(key) for key in _ENV]
        lines = [line for item in found if item for _, line in item[1] if "=" in line]
        return tuple((name.strip(), self.subst(value.strip())) for name, _, value in map(_pair, lines))


def _pair(line: str) -> tuple[str, str, str]:
    return line.partition("=")


def _ini_plan(
    ini: Ini, envs: Sequence[str] | None, posargs: Sequence[str | None] | None, label: str, offset: int
) -> Plan:
    plan = Plan()
    if envs is not None:
        names = list(envs)
    else:
        listed = ini.get("tox", "env_list") or ini.get("tox", "envlist")
        names = (env_list(listed[1]) if listed else []) or ["py"]
    if len(names) > _MAX_ENVS:
        plan.why(f"more than {_MAX_ENVS} tox environments: not all were read")
    for name in names[:_MAX_ENVS]:
        env = _IniEnv(ini, name, posargs, plan)
        cwd, variables = env.cwd(), env.variables()
        for key in _KEYS:
            found = env.raw(key)
            for number, line in found[1] if found else []:
                for command in env.subst(line).split("\n"):
                    words = argv(command)
                    if found and words:
                        where = f"{label} [{found[0]}] {key}"
                        plan.add(
                            TaskCommand(
                                script=join_argv(words), line=number + offset, where=where, shell="", cwd=cwd,
                                env=variables,
                            )
                        )  # fmt: skip
    return plan


def _chain(ini: Ini, env: str) -> list[str]:
    """The sections an environment's settings come from, first found wins."""
    chain = [f"testenv:{env}"]
    while len(chain) < 8:
        base = ini.get(chain[-1], "base")
        name = base[1][0][1] if base and base[1] else None
        if not name or name in chain:
            break
        chain.append(name if name.startswith("testenv") else f"testenv:{name}")
    return [*chain, "testenv"] if "testenv" not in chain else chain


def _directory(value: str) -> str:
    if value.startswith(RUNTIME):
        return value
    return posixpath.normpath(value) if not value.startswith("/") else value


def tox_commands(
    text: str, envs: Sequence[str] | None, kind: Literal["ini", "toml", "pyproject"] = "ini",
    posargs: Sequence[str | None] | None = None,
) -> TaskPlan:  # fmt: skip
    """What `tox -e ENVS` runs (`envs` None: `tox` alone, the `env_list`), from a `tox.ini`, a
    `tox.toml` or a `pyproject.toml`. `posargs`: the arguments after `--` (None: not known, so
    `{posargs}` is its default, else arguments known only at run time)."""
    return guarded("tox configuration", [text], lambda: _read(text, envs, kind, posargs))


def _read(text: str, envs: Sequence[str] | None, kind: str, posargs: Sequence[str | None] | None) -> TaskPlan:
    label = {"ini": "tox.ini", "toml": "tox.toml", "pyproject": "pyproject.toml"}.get(kind, "tox.ini")
    if kind == "ini":
        try:
            return _ini_plan(parse(text), envs, posargs, label, 0).done()
        except IniError as error:
            return TaskPlan(unknown=(f"{label} does not parse: {error}",))
    try:
        data = load_toml(text)
    except ValueError as error:
        return TaskPlan(unknown=(f"{label} does not parse: {error}",))
    if kind == "pyproject":
        tool = data.get("tool")
        table = tool.get("tox") if isinstance(tool, dict) else None
        if not isinstance(table, dict):
            return TaskPlan()  # no tox configuration here: tox reads another file
        legacy = table.get("legacy_tox_ini")
        if isinstance(legacy, str):
            offset = TomlLines(text).line(("tool", "tox", "legacy_tox_ini"))
            try:
                return _ini_plan(parse(legacy), envs, posargs, f"{label} legacy_tox_ini", offset).done()
            except IniError as error:
                return TaskPlan(unknown=(f"{label} legacy_tox_ini does not parse: {error}",))
        return toml_plan(text, table, ("tool", "tox"), envs, posargs, label).done()
    return toml_plan(text, data, (), envs, posargs, label).done()
