"""Evaluating justfile expressions to text, as far as it is static: strings, variables and
parameters, `+`, `/`, `||`, `&&`, `if` on known values and just's pure string and path functions.
What only the running just knows (`env_var()`, `os()`, a directory, a shell-expanded `$VAR`) is
`RUNTIME`. A backtick or `shell()` runs a command when it is evaluated: `on_command` hears it."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._just_expr import Binary, Call, Expr, Format, If, Lit, Tick, Var
from rein.steering.bash.tasks._plan import join_argv

OnCommand = Callable[[str, int, "str | None", str], None]
"""`(script, line, variable, file)`: a backtick's or `shell()`'s command, run when the expression is
evaluated, in the assignment of `variable` (None: in a recipe) written in `file`."""


def _case(text: str, sep: str, upper: bool | None) -> str:
    words = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", text)
    if upper is None:
        return sep.join(word.capitalize() for word in words)
    return sep.join(word.upper() if upper else word.lower() for word in words)


_PURE: dict[str, Callable[[list[str]], str]] = {
    "uppercase": lambda a: a[0].upper(),
    "lowercase": lambda a: a[0].lower(),
    "capitalize": lambda a: a[0].capitalize(),
    "trim": lambda a: a[0].strip(),
    "trim_start": lambda a: a[0].lstrip(),
    "trim_end": lambda a: a[0].rstrip(),
    "trim_start_match": lambda a: a[0].removeprefix(a[1]),
    "trim_start_matches": lambda a: re.sub(f"^(?:{re.escape(a[1])})*", "", a[0]) if a[1] else a[0],
    "trim_end_match": lambda a: a[0].removesuffix(a[1]),
    "trim_end_matches": lambda a: re.sub(f"(?:{re.escape(a[1])})*$", "", a[0]) if a[1] else a[0],
    "replace": lambda a: a[0].replace(a[1], a[2]),
    "quote": lambda a: "'" + a[0].replace("'", "'\\''") + "'",
    "append": lambda a: " ".join(word + a[0] for word in a[1].split()),
    "prepend": lambda a: " ".join(a[0] + word for word in a[1].split()),
    "join": lambda a: posixpath.join(*a),
    "clean": lambda a: posixpath.normpath(a[0]),
    "file_name": lambda a: posixpath.basename(a[0]),
    "parent_directory": lambda a: posixpath.dirname(a[0]),
    "file_stem": lambda a: posixpath.splitext(posixpath.basename(a[0]))[0],
    "without_extension": lambda a: posixpath.splitext(a[0])[0],
    "extension": lambda a: posixpath.splitext(a[0])[1].removeprefix("."),
    "kebabcase": lambda a: _case(a[0], "-", False),
    "snakecase": lambda a: _case(a[0], "_", False),
    "shoutykebabcase": lambda a: _case(a[0], "-", True),
    "shoutysnakecase": lambda a: _case(a[0], "_", True),
    "titlecase": lambda a: _case(a[0], " ", None),
    "uppercamelcase": lambda a: _case(a[0], "", None),
    "just_executable": lambda a: "just",
}


class Evaluator:
    """Evaluates in one scope: the justfile's assignments (evaluated once each, on first use, into
    `cache`) under the recipe's parameters. `file` is where the expressions given are written."""

    def __init__(
        self,
        assignments: Mapping[str, tuple[Expr, str]],
        cache: dict[str, str],
        on_command: OnCommand,
        file: str,
    ) -> None:
        self.assignments, self.cache, self.on_command = assignments, cache, on_command
        self.within: list[tuple[str, str]] = []
        """The assignments being evaluated, innermost last, with their files."""
        self.file = file

    def variable(self, name: str) -> str:
        if name in self.cache:
            return self.cache[name]
        found = self.assignments.get(name)
        if found is None or any(name == pending for pending, _ in self.within):
            return RUNTIME  # a built-in constant (`HEX`, `RED`), or a cycle just would reject
        self.within.append((name, found[1]))
        try:
            value = self.value(found[0], {})
        finally:
            self.within.pop()
        self.cache[name] = value
        return value

    def _heard(self, script: str, line: int) -> None:
        variable, file = self.within[-1] if self.within else (None, self.file)
        self.on_command(script, line, variable, file)

    def value(self, expr: Expr, params: Mapping[str, str]) -> str:
        match expr:
            case Lit(text=text, shell=shell):
                return RUNTIME if shell and ("$" in text or text.startswith("~")) else text
            case Format(parts=parts):
                return "".join(part if isinstance(part, str) else self.value(part, params) for part in parts)
            case Var(name=name):
                return params[name] if name in params else self.variable(name)
            case Tick(command=command, line=line):
                self._heard(command, line)
                return RUNTIME
            case Call():
                return self._call(expr, params)
            case Binary(op=op, left=left, right=right):
                return self._binary(op, left, right, params)
            case If():
                return self._if(expr, params)

    def _binary(self, op: str, left_expr: Expr | None, right_expr: Expr, params: Mapping[str, str]) -> str:
        left = "" if left_expr is None else self.value(left_expr, params)
        if op in ("||", "&&"):  # `a || b`: a unless empty; `a && b`: b unless a is empty
            if RUNTIME in left:
                self.value(right_expr, params)
                return RUNTIME
            keep_left = bool(left) == (op == "||")
            return left if keep_left else self.value(right_expr, params)
        right = self.value(right_expr, params)
        if op == "+":
            return left + right
        return posixpath.join(left, right) if left_expr is not None else "/" + right

    def _if(self, expr: If, params: Mapping[str, str]) -> str:
        left, right = self.value(expr.left, params), self.value(expr.right, params)
        if RUNTIME in left or RUNTIME in right:
            then, otherwise = self.value(expr.then, params), self.value(expr.otherwise, params)
            return then if then == otherwise else RUNTIME
        if expr.op in ("==", "!="):
            holds = (left == right) == (expr.op == "==")
        else:
            try:
                holds = (re.search(right, left) is not None) == (expr.op == "=~")
            except re.error:
                return RUNTIME
        return self.value(expr.then if holds else expr.otherwise, params)

    def _call(self, call: Call, params: Mapping[str, str]) -> str:
        args = [self.value(arg, params) for arg in call.args]
        if call.name == "shell" and args:
            self._heard(positional(args[1:]) + args[0], call.line)
            return RUNTIME
        pure = _PURE.get(call.name)
        if pure is None or any(RUNTIME in arg for arg in args):
            return RUNTIME
        try:
            return pure(args)
        except (IndexError, TypeError, re.error):
            return RUNTIME


def positional(args: Sequence[str | None]) -> str:
    """`set -- ARGS; `: positional parameters as a prefix a shell reads before the command (None
    or a value wholly `RUNTIME` is one argument known only at run time)."""
    known = [None if arg is None or arg == RUNTIME else arg for arg in args]
    return f"set -- {join_argv(known)}; " if args else ""
