"""What `nox -s NAME` runs (https://nox.thea.codes/en/stable/config.html): a noxfile is Python, read
with `ast` (never run). Sessions are the functions decorated `@nox.session` / `@session` (named by
`name=` or the function; `python=` versions make `NAME-3.12` sessions too). In a session's body, in
source order: `session.run`, `run_always` and `run_install` run an argv; `session.install` and
`conda_install` run the package installer; `session.notify("other")` queues another session;
`session.chdir` moves later commands. A module-level helper called with the session is read as part
of it. Arguments that are string literals, module or function constants (`X = "..."`, lists of
them) and f-strings are known; `session.posargs` and other values are parts known only at run time.
Without names: `nox.options.sessions` when it is a literal, else every session not `default=False`."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._plan import Plan, TaskCommand, TaskPlan, guarded, join_argv

_RUNS = frozenset({"run", "run_always", "run_install"})
_INSTALLS = {"install": ("pip", "install"), "conda_install": ("conda", "install")}


def _decorator(node: ast.expr) -> ast.Call | ast.expr | None:
    """The `nox.session` decorator (called or bare), or None."""
    target = node.func if isinstance(node, ast.Call) else node
    named = isinstance(target, ast.Attribute) and target.attr == "session"
    named = named or (isinstance(target, ast.Name) and target.id == "session")
    return node if named else None


class _Session:
    def __init__(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        decorator: ast.expr,
        constants: dict[str, ast.expr],
    ) -> None:
        keywords = (
            {kw.arg: kw.value for kw in decorator.keywords if kw.arg}
            if isinstance(decorator, ast.Call)
            else {}
        )
        name = keywords.get("name")
        self.function = function
        self.name = (
            name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else function.name
        )
        default = keywords.get("default")
        self.default = not (isinstance(default, ast.Constant) and default.value is False)
        pythons = keywords.get("python", keywords.get("py"))
        if isinstance(pythons, ast.Name) and pythons.id in constants:
            pythons = constants[pythons.id]
        versions = pythons.elts if isinstance(pythons, ast.List | ast.Tuple) else [pythons] if pythons else []
        self.versions = {
            str(v.value) for v in versions if isinstance(v, ast.Constant) and v.value is not None
        }

    def answers(self, name: str) -> bool:
        base = name.split("(", 1)[0]
        return base == self.name or any(base == f"{self.name}-{version}" for version in self.versions)


class _Reader:
    def __init__(self, tree: ast.Module, plan: Plan) -> None:
        self.plan = plan
        self.helpers = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
        self.constants = _constants(tree.body)
        self.sessions = [
            _Session(node, found, self.constants)
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for found in [next(filter(None, map(_decorator, node.decorator_list)), None)]
            if found is not None
        ]
        self.queue: list[_Session] = []
        self.read = 0

    def run(self, session: _Session) -> None:
        """Read a session, then the sessions it notifies (each once)."""
        if session not in self.queue:
            self.queue.append(session)
        while self.read < len(self.queue) and self.plan.step():
            current = self.queue[self.read]
            self.read += 1
            args = current.function.args.posonlyargs + current.function.args.args
            if args:
                self._body(current.function, args[0].arg, current.name, None, ())

    def _body(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, var: str, name: str, cwd: str | None,
        stack: tuple[str, ...],
    ) -> str | None:  # fmt: skip
        constants = {**self.constants, **_constants(function.body)}
        for node in _in_order(function):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == var:
                cwd = self._method(func.attr, node, constants, name, cwd)
            elif isinstance(func, ast.Name) and func.id in self.helpers and func.id not in stack:
                helper = self.helpers[func.id]
                params = [a.arg for a in helper.args.posonlyargs + helper.args.args]
                passed = [i for i, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id == var]
                if passed and passed[0] < len(params) and self.plan.step():
                    cwd = self._body(helper, params[passed[0]], name, cwd, (*stack, func.id))
        return cwd

    def _method(
        self, method: str, call: ast.Call, constants: dict[str, ast.expr], name: str, cwd: str | None
    ) -> str | None:
        if method in ("chdir", "cd") and call.args:
            value = _argument(call.args[0], constants)
            return RUNTIME if value is None or value == RUNTIME else value
        if method == "notify" and call.args:
            target = _argument(call.args[0], constants)
            if target is None or RUNTIME in target:
                self.plan.why(f"noxfile.py session {name} notifies a session named at run time")
            else:
                self.queue.extend(s for s in self.sessions if s.answers(target) and s not in self.queue)
            return cwd
        if method not in _RUNS and method not in _INSTALLS:
            return cwd
        argv: list[str | None] = list(_INSTALLS.get(method, ()))
        for arg in call.args:
            if isinstance(arg, ast.Starred):
                argv.extend(_spread(arg.value, constants))
            else:
                argv.append(_argument(arg, constants))
        env = next((kw.value for kw in call.keywords if kw.arg == "env"), None)
        self.plan.add(
            TaskCommand(
                script=join_argv(argv), line=call.lineno, where=f"noxfile.py session {name}", shell="",
                cwd=cwd, env=_env(env, constants),
            )
        )  # fmt: skip
        return cwd


def _in_order(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function in source order (not in nested functions or classes)."""
    found: list[ast.AST] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                continue
            found.append(child)
            visit(child)

    visit(function)
    return found


def _constants(body: list[ast.stmt]) -> dict[str, ast.expr]:
    return {
        node.targets[0].id: node.value
        for node in body
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
    }


def _argument(node: ast.expr, constants: dict[str, ast.expr], depth: int = 0) -> str | None:
    """One argument's text, `RUNTIME` in the parts known only at run time; None: wholly unknown."""
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str | int | float)
        and not isinstance(node.value, bool)
    ):
        return str(node.value)
    if isinstance(node, ast.Name) and node.id in constants and depth < 8:
        return _argument(constants[node.id], constants, depth + 1)
    if isinstance(node, ast.JoinedStr):
        parts = [
            _argument(part, constants, depth + 1) if isinstance(part, ast.Constant) else RUNTIME
            for part in node.values
        ]
        return "".join(part if part is not None else RUNTIME for part in parts)
    if isinstance(node, ast.FormattedValue):
        return RUNTIME
    return None


def _spread(node: ast.expr, constants: dict[str, ast.expr], depth: int = 0) -> list[str | None]:
    if isinstance(node, ast.Name) and node.id in constants and depth < 8:
        return _spread(constants[node.id], constants, depth + 1)
    if isinstance(node, ast.List | ast.Tuple):
        return [_argument(item, constants) for item in node.elts]
    return [RUNTIME]  # `*session.posargs`, a list built at run time: any number of arguments


def _env(node: ast.expr | None, constants: dict[str, ast.expr]) -> tuple[tuple[str, str], ...]:
    if not isinstance(node, ast.Dict):
        return ()
    pairs = []
    for key, value in zip(node.keys, node.values, strict=True):
        name = _argument(key, constants) if key is not None else None
        if name is not None:
            found = _argument(value, constants)
            pairs.append((name, RUNTIME if found is None else found))
    return tuple(pairs)


def _defaults(tree: ast.Module) -> list[str] | None:
    """`nox.options.sessions = [...]` at module level, when it is a literal list of names."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if (
                isinstance(target, ast.Attribute)
                and target.attr == "sessions"
                and isinstance(node.value, ast.List | ast.Tuple)
            ):
                names = [
                    e.value
                    for e in node.value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                ]
                return names if len(names) == len(node.value.elts) else None
    return None


def nox_sessions(text: str, names: Sequence[str] | None) -> TaskPlan:
    """What `nox -s NAMES` runs (`names` None: `nox` alone)."""
    return guarded("noxfile", [text], lambda: _read(text, names))


def _read(text: str, names: Sequence[str] | None) -> TaskPlan:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as error:
        return TaskPlan(unknown=(f"noxfile.py does not parse: {error}",))
    plan = Plan()
    reader = _Reader(tree, plan)
    wanted = list(names) if names is not None else _defaults(tree)
    chosen = (
        [s for s in reader.sessions if s.default]
        if wanted is None
        else [s for name in wanted for s in reader.sessions if s.answers(name)]
    )
    for session in chosen:
        reader.run(session)
    return plan.done()
