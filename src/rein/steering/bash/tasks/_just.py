"""What `just RECIPE ARGS...` runs (https://just.systems/man/en/): the justfile's backticks (all
of them when it loads, unless `set lazy`), then each recipe named on the command line (with as many
of the following words as its parameters take; the rest name further recipes), its dependencies
first and its `&&` dependencies last, each recipe and argument list once.

A recipe's body is linewise (each line, `@`/`-` stripped and `\\` continuations joined, run by
`set shell`, `sh -cu` by default) or one script: a shebang recipe (`#!/usr/bin/env python3`: the
whole body, run by that interpreter) or a `[script]` one (`set script-interpreter`). `{{...}}`
interpolations are evaluated (`_just_eval`). `set positional-arguments` puts the arguments in front
as `set -- ARGS; `. `import`s are merged and `mod`ules are namespaces (`just mod recipe`,
`mod::recipe`); their files are read by the caller (`includes`, then `files`). Recipes only for
Windows (`[windows]`) are left out; other platform variants are all kept."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._just_body import Body, setting_shell
from rein.steering.bash.tasks._just_eval import Evaluator
from rein.steering.bash.tasks._just_expr import Expr
from rein.steering.bash.tasks._just_lex import JustSyntax
from rein.steering.bash.tasks._just_parse import Assignment, Recipe, Setting, parse
from rein.steering.bash.tasks._plan import Plan, TaskCommand, TaskPlan, guarded, joined, lookup

_MOD_FILES = ("{}.just", "{}/mod.just", "{}/justfile", "{}/.justfile")
_OTHER_OS = frozenset({"linux", "macos", "unix", "openbsd", "freebsd", "netbsd", "dragonfly", "android"})


class _Reject(Exception):
    """just stops with an error before it runs anything: the plan is empty."""


class _Stop(Exception):
    """A file that cannot be read: the plan is this one unknown reason."""


def label(path: str) -> str:
    return path or "justfile"


@dataclass(slots=True)
class _Module:
    path: str
    recipes: dict[str, list[tuple[Recipe, str]]] = field(default_factory=dict)
    assignments: dict[str, tuple[Assignment, str]] = field(default_factory=dict)
    settings: dict[str, Setting] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    mods: dict[str, tuple[str | None, bool, str]] = field(default_factory=dict)
    children: dict[str, _Module | None] = field(default_factory=dict)
    cache: dict[str, str] = field(default_factory=dict)
    loaded: bool = False

    @property
    def exprs(self) -> dict[str, tuple[Expr, str]]:
        return {name: (item.value, file) for name, (item, file) in self.assignments.items()}


class Reader:
    def __init__(self, files: Mapping[str, str | None] | None, plan: Plan) -> None:
        self.files, self.plan = files, plan
        self.done: set[tuple[str, str, tuple[str | None, ...]]] = set()

    def load(self, path: str, text: str) -> _Module:
        module = _Module(path)
        self._merge(module, path, text, set())
        return module

    def _merge(self, module: _Module, path: str, text: str, seen: set[str]) -> None:
        if path in seen or not self.plan.step():
            return
        seen.add(path)
        try:
            file = parse(text)
        except JustSyntax as error:
            raise _Stop(f"{label(path)} does not parse: {error}") from None
        for recipe in file.recipes:
            module.recipes.setdefault(recipe.name, []).append((recipe, path))
        for name, assignment in file.assignments.items():
            module.assignments.setdefault(name, (assignment, path))
        for table, items in ((module.settings, file.settings), (module.aliases, file.aliases)):
            for key, value in items.items():
                table.setdefault(key, value)  # type: ignore[arg-type]
        for name, (mod_path, optional) in file.mods.items():
            module.mods.setdefault(name, (mod_path, optional, path))
        for written, optional in file.imports:
            imported = joined(path, written)
            self.plan.include(imported)
            read, found = lookup(self.files, imported)
            if not read:
                self.plan.why(f"{label(path)} imports {imported}, which was not read")
            elif found is not None:
                self._merge(module, imported, found, seen)
            elif not optional:
                raise _Reject

    def child(self, module: _Module, name: str) -> _Module | None:
        """The module `mod name` declares, loaded; None while its file is not read."""
        if name in module.children:
            return module.children[name]
        written, _, declaring = module.mods[name]
        names = [written] if written else [pattern.format(name) for pattern in _MOD_FILES]
        candidates = [joined(declaring, candidate) for candidate in names]
        for candidate in candidates:
            self.plan.include(candidate)
        for candidate in candidates:
            read, found = lookup(self.files, candidate)
            if not read:
                self.plan.why(f"module {name}'s file {candidate} was not read")
                module.children[name] = None
                return None
            if found is not None:
                loaded = self.load(candidate, found)
                module.children[name] = loaded
                return loaded
        raise _Reject  # no file for the module: just stops (an optional one has no recipes)

    def evaluator(self, module: _Module, where: str, file: str) -> Evaluator:
        def heard(script: str, line: int, variable: str | None, written: str) -> None:
            place = f"{label(written)} variable {variable}" if variable else where
            shell = setting_shell(module.settings.get("shell"))
            self.plan.add(TaskCommand(script=script, line=line, where=place, shell=shell, file=written))

        if not module.loaded and not module.settings.get("lazy"):
            module.loaded = True  # just evaluates every assignment when it loads the justfile
            evaluator = Evaluator(module.exprs, module.cache, heard, file)
            for name in module.assignments:
                evaluator.variable(name)
        return Evaluator(module.exprs, module.cache, heard, file)

    def find(self, module: _Module, name: str) -> tuple[_Module, str] | None:
        """The module and recipe a name (an alias, `mod::recipe`) calls; None while unread."""
        name = module.aliases.get(name, name)
        *path, last = name.split("::")
        for part in path:
            if part not in module.mods:
                raise _Reject
            found = self.child(module, part)
            if found is None:
                return None
            module = found
        if last not in module.recipes:
            if last in module.aliases and module.aliases[last] != last and self.plan.step():
                return self.find(module, last)
            raise _Reject
        return module, last

    def default(self, module: _Module) -> str:
        named = [
            name
            for name, found in module.recipes.items()
            if any(r.attribute("default") is not None for r, _ in found)
        ]
        if not named:
            named = [name for name, found in module.recipes.items() if found[0][1] == module.path]
        if not named:
            named = list(module.recipes)
        if not named:
            raise _Reject  # just: the justfile contains no recipes
        return named[0]

    def invoke(self, root: _Module, name: str | None, args: Sequence[str | None]) -> None:
        """Run a command line's recipes; just checks them all before it runs the first."""
        words = [name, *args] if name is not None else [self.default(root), *args]
        calls: list[tuple[_Module, str, list[str | None]]] = []
        while words:
            word = words.pop(0)
            if word is None:
                self.plan.why("just is given a recipe name known only at run time")
                break
            module = root
            while word in module.mods and word not in module.recipes:
                found = self.child(module, word)
                if found is None:
                    return
                module, word = found, (words.pop(0) if words else self.default(found))
                if word is None:
                    self.plan.why("just is given a recipe name known only at run time")
                    return
            target = self.find(module, word)
            if target is None:
                return
            params = self.variants(*target)[0][0].params
            most = len(words) if any(param.variadic for param in params) else len(params)
            least = sum(param.default is None and param.variadic != "*" for param in params)
            if len(words) < least:
                raise _Reject
            calls.append((*target, words[:most]))
            words = words[most:]
        for module, recipe, given in calls:
            self.run(module, recipe, given, ())

    def variants(self, module: _Module, name: str) -> list[tuple[Recipe, str]]:
        """The definitions of a recipe that may run here: all but the Windows-only ones."""
        found = module.recipes[name]
        unix = [
            (recipe, file)
            for recipe, file in found
            if not any(key == "windows" for key, _ in recipe.attributes)
            or any(key in _OTHER_OS for key, _ in recipe.attributes)
        ] or found
        return unix[-1:] if module.settings.get("allow-duplicate-recipes") else unix

    def run(self, module: _Module, name: str, args: Sequence[str | None], stack: tuple[str, ...]) -> None:
        if (module.path, name) in zip(stack[::2], stack[1::2], strict=True):
            raise _Reject  # a circular dependency: just rejects the justfile
        key = (module.path, name, tuple(args))
        if key in self.done or not self.plan.step():
            return
        self.done.add(key)
        inner = (*stack, module.path, name)
        for recipe, file in self.variants(module, name):
            evaluator = self.evaluator(module, f"{label(file)} recipe {name}", file)
            params = self.bind(recipe, args, evaluator)
            for dep in recipe.deps:
                self.depend(module, dep.name, [evaluator.value(arg, params) for arg in dep.args], inner)
            body = Body(module.settings, module_dir(module), module.assignments)
            for command in body.commands(
                recipe, f"{label(file)} recipe {name}", file, params, args, evaluator
            ):
                self.plan.add(command)
            for dep in recipe.after:
                self.depend(module, dep.name, [evaluator.value(arg, params) for arg in dep.args], inner)

    def depend(self, module: _Module, name: str, args: list[str | None], stack: tuple[str, ...]) -> None:
        target = self.find(module, name)
        if target is not None:
            self.run(*target, args, stack)

    def bind(self, recipe: Recipe, args: Sequence[str | None], evaluator: Evaluator) -> dict[str, str]:
        params: dict[str, str] = {}
        for index, param in enumerate(recipe.params):
            if param.variadic and index < len(args):
                params[param.name] = " ".join(RUNTIME if arg is None else arg for arg in args[index:])
            elif index < len(args):
                params[param.name] = RUNTIME if args[index] is None else str(args[index])
            elif param.default is not None:
                params[param.name] = evaluator.value(param.default, params)
            elif param.variadic == "*":
                params[param.name] = ""
            else:
                raise _Reject
        return params


def module_dir(module: _Module) -> str:
    return posixpath.dirname(module.path) if module.path else ""


def just_recipe(
    text: str,
    name: str | None,
    args: Sequence[str | None] = (),
    files: Mapping[str, str | None] | None = None,
) -> TaskPlan:
    """What `just NAME ARGS...` runs (`name` None: `just` alone, the default recipe). `args` are
    the words after the name (None: one known only at run time); those the recipe's parameters do
    not take name further recipes, as just reads them. `files`: the texts of `includes` (None for
    a file that does not exist)."""
    return guarded("justfile", [text, *(files or {}).values()], lambda: _read(text, name, args, files))


def _read(
    text: str, name: str | None, args: Sequence[str | None], files: Mapping[str, str | None] | None
) -> TaskPlan:
    plan = Plan()
    reader = Reader(files, plan)
    try:
        root = reader.load("", text)
        reader.invoke(root, name, args)
    except _Reject:
        return TaskPlan(unknown=tuple(plan.unknown), includes=tuple(plan.includes))
    except _Stop as stop:
        return TaskPlan(unknown=(str(stop),), includes=tuple(plan.includes))
    except JustSyntax as error:  # in a recipe's interpolation, read when the recipe runs
        return TaskPlan(unknown=(f"justfile does not parse: {error}",), includes=tuple(plan.includes))
    return plan.done()
