"""A just recipe's body as commands: linewise (each line run by `set shell`, `sh -cu` unless set),
or one script (a shebang recipe, or a `[script]` one run by `set script-interpreter`, `sh -eu`
unless set), with its working directory and exported variables."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping, Sequence

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._just_eval import Evaluator, positional
from rein.steering.bash.tasks._just_expr import fragments
from rein.steering.bash.tasks._just_parse import Assignment, Recipe, Setting
from rein.steering.bash.tasks._plan import TaskCommand, interpreter

_SH = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"})


def setting_shell(setting: Setting | None, default: str = "sh") -> str:
    """The interpreter a `set shell := [...]`-like setting names; `default` when unset or dynamic."""
    if isinstance(setting, tuple) and setting and "\0" not in setting:
        return interpreter(setting) or default
    return default


class Body:
    """What one module's recipes share: its settings, its directory and its exported variables."""

    def __init__(
        self,
        settings: Mapping[str, Setting],
        directory: str,
        assignments: Mapping[str, tuple[Assignment, str]],
    ) -> None:
        self.settings, self.directory, self.assignments = settings, directory, assignments

    def commands(
        self, recipe: Recipe, where: str, file: str, params: Mapping[str, str], args: Sequence[str | None],
        evaluator: Evaluator,
    ) -> Iterator[TaskCommand]:  # fmt: skip
        if not recipe.body:
            return
        env = self._env(recipe, params, evaluator)
        cwd = self._cwd(recipe)
        on = self.settings.get("positional-arguments") or recipe.attribute("positional-arguments") is not None
        prefix = positional(args) if on and args else ""
        first_line, first = next((item for item in recipe.body if item[1].strip()), recipe.body[0])
        script = recipe.attribute("script")
        if first.startswith("#!") or script is not None:
            text = "\n".join(line for _, line in recipe.body)
            value = self._render(text, recipe.body[0][0], params, evaluator)
            if first.startswith("#!"):
                shell = interpreter(value.split("\n", 1)[0]) or "sh"
            else:
                shell = (
                    interpreter(script) if script else setting_shell(self.settings.get("script-interpreter"))
                )
            if prefix and shell in _SH:  # after a shebang line, which must stay first
                head, _, tail = value.partition("\n") if value.startswith("#!") else ("", "", value)
                value = f"{head}\n{prefix}{tail}" if head else prefix + tail
            yield TaskCommand(
                script=value, line=first_line, where=where, shell=shell, cwd=cwd, env=env, file=file
            )
            return
        shell = setting_shell(self.settings.get("shell"))
        for number, text in _logical(recipe.body):
            value = self._render(text, number, params, evaluator)
            if not value.strip() or value.lstrip().startswith("#"):
                continue  # a shell comment runs nothing (its interpolations were evaluated)
            yield TaskCommand(
                script=(prefix if shell in _SH else "") + value,
                line=number, where=where, shell=shell, cwd=cwd, env=env, file=file,
            )  # fmt: skip

    @staticmethod
    def _render(text: str, line: int, params: Mapping[str, str], evaluator: Evaluator) -> str:
        return "".join(
            part if isinstance(part, str) else evaluator.value(part, params) for part in fragments(text, line)
        )

    def _env(
        self, recipe: Recipe, params: Mapping[str, str], evaluator: Evaluator
    ) -> tuple[tuple[str, str], ...]:
        every = bool(self.settings.get("export"))
        env = [
            (name, evaluator.variable(name))
            for name, (assignment, _) in self.assignments.items()
            if every or assignment.export
        ]
        env += [(param.name, params[param.name]) for param in recipe.params if every or param.export]
        return tuple(env)

    def _cwd(self, recipe: Recipe) -> str | None:
        if recipe.attribute("no-cd") is not None:
            return RUNTIME  # the directory just was started in
        attribute = recipe.attribute("working-directory")
        setting = self.settings.get("working-directory")
        chosen = attribute[0] if attribute else setting if isinstance(setting, str) else None
        if chosen == "\0":
            return RUNTIME
        if chosen is not None:
            return (
                chosen
                if chosen.startswith("/")
                else posixpath.normpath(posixpath.join(self.directory, chosen))
            )
        return self.directory or None


def _logical(body: Sequence[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """Linewise lines: `\\` at the end joins the next line (its indentation dropped), `@` and `-`
    prefixes stripped."""
    at = 0
    while at < len(body):
        number, text = body[at]
        at += 1
        while text.endswith("\\") and at < len(body):
            text = text[:-1] + body[at][1].lstrip(" \t")
            at += 1
        if text[:1] in ("@", "-"):
            first, text = text[0], text[1:]
            if text[:1] in ("@", "-") and text[0] != first:
                text = text[1:]
        yield number, text
