"""What a PHP program (`php -r` code, or a script with `<?php` on stdin) would launch.

Reads `system`, `exec`, `shell_exec`, `passthru`, `popen`, `proc_open` (a string through a shell, an
array as an argv), `pcntl_exec`, `expect_popen` and backticks; function names case-insensitively and
namespace-free; `call_user_func`, `call_user_func_array`, `array_map` and kin and variable functions
(`$f('ls')`, `'system'('ls')`) with a literal name; `eval`, `assert`, `create_function` and
`preg_replace` with `/e` on a literal string (read again as PHP); and `unlink`/`rmdir` as the
`rm`/`rmdir` they amount to. A call in a `foreach` over a known array is read once per value.

It does not follow functions or methods the program defines, `include`d files, or callables held in
arrays (`[$obj, 'method']`); a process API handed over as a callable (`system(...)`, `usort($a,
'system')`, `new ReflectionFunction('system')`) is unknown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch import _tree
from rein.steering.bash.launch._bindings import Loop, loop
from rein.steering.bash.launch._folding import (
    SPREAD,
    argv_launch,
    line,
    removal,
    shell_launch,
    unknown_launch,
)
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._script_reader import ScriptReader
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.php._values import Values, function_name

_SHELL = frozenset({"system", "exec", "shell_exec", "passthru", "popen", "expect_popen"})
_CODE = frozenset({"eval", "assert", "create_function"})
_CALLBACKS = {"call_user_func": 0, "forward_static_call": 0, "call_user_func_array": 0,
              "forward_static_call_array": 0, "array_map": 0, "array_walk": 1, "array_filter": 1}  # fmt: skip
"""Functions that call the callable at this argument, with arguments rein reads."""
_CALLERS = {"array_walk_recursive": 1, "usort": 1, "uasort": 1, "uksort": 1, "array_reduce": 1,
            "preg_replace_callback": 1, "iterator_apply": 1, "register_shutdown_function": 0,
            "register_tick_function": 0, "ob_start": 0, "set_error_handler": 0, "set_exception_handler": 0,
            "spl_autoload_register": 0, "header_register_callback": 0}  # fmt: skip
"""Functions that call the callable at this argument with values rein does not follow."""
_APIS = _SHELL | _CODE | {"proc_open", "pcntl_exec", "unlink", "rmdir", "preg_replace"} | set(_CALLBACKS)
_STRINGS = frozenset({"string", "encapsed_string", "heredoc", "nowdoc", "binary_expression", "variable_name"})
_FUNCTIONS = frozenset({"anonymous_function", "arrow_function", "array_creation_expression"})
_TAGGED = re.compile(r"<\?(?:php\b|=)", re.IGNORECASE)


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    return _Reader.read(text, env)


class _Reader(ScriptReader[Values]):
    language = "php"
    launching = frozenset({
        "function_call_expression", "object_creation_expression", "scoped_call_expression",
        "shell_command_expression",
    })  # fmt: skip
    names = re.compile(
        rb"(?i)\b(?:system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec|expect_popen|call_user_func\w*|"
        rb"array_map|array_walk|eval|assert|create_function|unlink|rmdir)\b|`"
    )

    @classmethod
    def parse(cls, text: str) -> tuple[Node, bytes]:
        """The text may be a script with `<?php` tags (stdin); `php -r` code and eval'd strings have
        none. A text that parses as bare code is read as such."""
        root, src = _tree.parse("php_only", text)
        if root.has_error and _TAGGED.search(text):
            root, src = _tree.parse("php", text)
        return root, src

    def values_of(self, root: Node, src: bytes, env: Mapping[str, str]) -> Values:
        return Values(root, src, env)

    def loop(self, node: Node) -> Loop | None:
        """`foreach (["a", "b"] as $c) { ... }`: a loop whose variable takes known values."""
        if node.type != "foreach_statement":
            return None
        named = [child for child in node.named_children if child.type != "comment"]
        variable = named[1] if len(named) > 2 else None
        if variable is None or variable.type != "variable_name":
            return None  # `as $k => $v`, `as [$a, $b]`
        values = self.values.items(named[0])
        body = node.child_by_field_name("body")
        return loop(self.values.bindings, self.values.name(variable), values, body, shared=node)

    def visit(self, node: Node) -> None:
        if node.type == "function_call_expression":
            self._call(node)
            self._passed(node, _CALLERS.get(self.values.called(node)))
        elif node.type == "object_creation_expression":
            self._passed(node, 0 if self.values.called(node) == "reflectionfunction" else None)
        elif node.type == "scoped_call_expression":
            scope = self.values.name(node.child_by_field_name("scope"))
            closure = function_name(scope) == "closure" and self.values.called(node) == "fromcallable"
            self._passed(node, 0 if closure else None)
        elif node.type == "shell_command_expression":
            self.add(node, shell_launch("backticks", self.values.command(node), line(node)))

    def _call(self, node: Node) -> None:
        function = node.child_by_field_name("function")
        if function is None:
            return
        args = self.values.arguments(node)
        if function.type in ("name", "qualified_name"):
            written = self.values.name(function)
            self._dispatch(node, written, function_name(written), args)
            return
        target = self.values.bound(function) if function.type == "variable_name" else function
        if target is not None and target.type in _FUNCTIONS:
            return  # a closure, or a method as `[$obj, 'name']`
        name = self.values.fold(target).text if target is not None else None
        written = self.values.name(function)
        if name is None:
            why = f"{written} calls a function named at run time"
            self.add(node, unknown_launch(written, why, line(node)))
        else:
            self._dispatch(node, f"{written}()", function_name(name), args)

    def _dispatch(self, node: Node, api: str, name: str, args: list[Node] | None) -> None:
        """`name(args...)`; `args` None when they are only known at run time."""
        if name not in _APIS:
            return
        at = line(node)
        if args is None:
            self.add(node, unknown_launch(api, f"{api} is called with arguments built at run time", at))
        elif any(arg.type == "variadic_placeholder" for arg in args):
            self.add(node, unknown_launch(api, f"a reference to {api} is passed on", at))
        elif name in _CALLBACKS:
            self._callback(node, api, name, args)
        elif not args:
            self.add(node)
        elif name in _SHELL:
            self.add(node, shell_launch(api, self.values.spread(args[0]), at))
        elif name == "proc_open":
            listed = self.values.items(args[0])
            launch = (
                argv_launch(api, listed, at)
                if listed is not None
                else shell_launch(api, self.values.fold(args[0]), at)
            )
            self.add(node, launch)
        elif name == "pcntl_exec":
            rest = (self.values.items(args[1]) or [SPREAD]) if len(args) > 1 else []
            self.add(node, argv_launch(api, [self.values.fold(args[0]), *rest], at))
        elif name in _CODE:
            self._code(node, api, name, args, at)
        elif name == "preg_replace":
            self._preg(node, api, args, at)
        else:
            head = ("rmdir",) if name == "rmdir" else ("rm",)
            self.add(node, removal(api, head, [self.values.fold(args[0])], at))

    def _callback(self, node: Node, api: str, name: str, args: list[Node]) -> None:
        """`call_user_func('system', ...)` and its kin: the callable named by a literal is called."""
        position = _CALLBACKS[name]
        if len(args) <= position:
            return
        callback = args[position]
        target = self.values.bound(callback) or callback
        if target.type in _FUNCTIONS:
            return
        called = self.values.fold(target).text
        if called is None:
            self.add(node, unknown_launch(api, f"{api} calls a function named at run time", line(node)))
            return
        self.add(node)
        label = f"{api}('{called}')"
        if name in ("call_user_func", "forward_static_call"):
            self._dispatch(node, label, function_name(called), args[1:])
        elif name in ("call_user_func_array", "forward_static_call_array"):
            self._dispatch(
                node, label, function_name(called), self._elements(args[1]) if len(args) > 1 else []
            )
        else:
            listed = self._elements(args[1 - position]) if len(args) > 1 else None
            for element in listed if listed is not None else [None]:
                self._dispatch(node, label, function_name(called), [element] if element is not None else None)

    def _passed(self, node: Node, position: int | None) -> None:
        """A process API handed over as a callable (`usort($a, 'system')`, `new
        ReflectionFunction('system')`): where it is called is not followed."""
        args = self.values.arguments(node)
        if position is None or len(args) <= position:
            return
        called = self.values.fold(self.values.bound(args[position]) or args[position]).text
        if called is not None and function_name(called) in _APIS:
            why = f"{called} is passed on as a callable"
            self.add(node, unknown_launch(self.values.name(node).split("(")[0], why, line(node)))

    def _preg(self, node: Node, api: str, args: list[Node], at: int) -> None:
        """`preg_replace('/x/e', 'code', ...)`: the `e` modifier (PHP 5) runs the replacement."""
        pattern = self.values.fold(args[0]).text if args else None
        if not pattern or len(args) < 2:
            return
        closing = {"(": ")", "[": "]", "{": "}", "<": ">"}.get(pattern[0], pattern[0])
        if "e" not in pattern[pattern.rfind(closing) + 1 :]:
            return
        code = self.values.fold(args[1]).text
        if code is None:
            self.add(node, unknown_launch(api, f"{api} /e runs code built at run time", at))
        else:
            self.add(node, *self.recurse(code, at))

    def _elements(self, node: Node) -> list[Node] | None:
        target = self.values.bound(node) or node
        return self.values.elements(target) if target.type == "array_creation_expression" else None

    def _code(self, node: Node, api: str, name: str, args: list[Node], at: int) -> None:
        """`eval('code')`, `assert('code')` (a string assertion is code), `create_function('', 'code')`."""
        if name == "create_function" and len(args) < 2:
            return
        source = args[1] if name == "create_function" else args[0]
        operator = source.child_by_field_name("operator")
        concatenated = source.type != "binary_expression" or (operator is not None and operator.type == ".")
        if name == "assert" and (source.type not in _STRINGS or not concatenated):
            self.add(node)  # an expression assertion is ordinary code
            return
        code = self.values.fold(source).text
        if code is None:
            self.add(node, unknown_launch(api, f"{api} runs code built at run time", at))
        else:
            self.add(node, *self.recurse(code, at))
