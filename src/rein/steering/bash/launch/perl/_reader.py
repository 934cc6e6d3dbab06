"""What a Perl program (`perl -e/-E`, the body of a `-n`/`-p` loop, a script on stdin) would launch.

Reads `system`/`exec` (also with an indirect object, `system { $prog } @args`), backticks, `qx`,
command heredocs, `readpipe`, piped `open` (2-argument `"cmd |"`/`"| cmd"` and 3+-argument `-|`/`|-`),
`IPC::Open2::open2`, `IPC::Open3::open3`, `IPC::Run::run`/`run3`, `IPC::System::Simple`, `IPC::Cmd`
(bare names too, as `-M` may import them, unless the program defines a sub of that name), string
`eval` and `s///e` (read again as Perl), and `unlink`/`File::Path::rmtree`/`remove_tree` as the `rm`
they amount to (a glob as a shell line, its wildcards unquoted). One string runs through a shell, a
list is an argv. `capture { ... }` and `eval { ... }` blocks are ordinary code. A call in a loop over a
known list (`for my $c ("a", "b") { ... }`) is read once per value.

It does not follow subs the program defines, `require`/`do FILE`, or code references passed around (a
reference taken to a process builtin, `\\&CORE::readpipe`, is unknown).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch import _tree
from rein.steering.bash.launch._bindings import Loop, loop
from rein.steering.bash.launch._folding import (
    RUNTIME_VALUE,
    Value,
    argv_launch,
    command_launch,
    line,
    removal,
    shell_launch,
    unknown_launch,
    walk,
)
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._script_reader import ScriptReader
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.perl._values import CALLS, Values, runtime

_PIPE_MODES = ("-|", "|-")
_FILE_MODES = ("<", ">", "+<", "+>")
_BUILTINS = frozenset({"system", "exec", "readpipe", "open", "unlink"})
"""Perl's own functions: a sub of the same name does not replace them."""
_RUN = frozenset({"run", "run3", "start", "harness"})
_SIMPLE = frozenset({"run", "capture", "runx", "capturex", "systemx"})
"""IPC::System::Simple's functions; the `x` ones never use a shell."""


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    return _Reader.read(text, env)


class _Reader(ScriptReader[Values]):
    language = "perl"
    launching = CALLS | {
        "command_string", "command_heredoc_token", "eval_expression", "substitution_regexp", "function",
    }  # fmt: skip
    names = re.compile(
        rb"\b(?:system|exec|qx|readpipe|open|open2|open3|run|run3|eval|rmtree|remove_tree|unlink)\b|`|/e"
    )

    def __init__(self, root: Node, src: bytes, env: Mapping[str, str], depth: int) -> None:
        super().__init__(root, src, env, depth)
        self.simple_module = b"IPC::System::Simple" in src
        self.cmd_module = b"IPC::Cmd" in src
        self.subs = {
            self.values.name(node.child_by_field_name("name"))
            for node in walk(root)
            if node.type == "subroutine_declaration_statement"
        }

    def values_of(self, root: Node, src: bytes, env: Mapping[str, str]) -> Values:
        return Values(root, src, env)

    def loop(self, node: Node) -> Loop | None:
        """`for my $c ("a", "b") { ... }`: a loop whose variable takes known values."""
        variable = node.child_by_field_name("variable") if node.type == "for_statement" else None
        listed = node.child_by_field_name("list")
        if variable is None or variable.type != "scalar" or listed is None:
            return None
        values = self.values.items(list(self.values.elements(listed)))
        body = node.child_by_field_name("block")
        local = any(child.type == "my" for child in node.children)  # `for $c`: a global a sub may write
        return loop(self.values.bindings, self.values.key(variable), values, body, None if local else node)

    def visit(self, node: Node) -> None:
        kind = node.type
        if kind in CALLS:
            self._call(node)
        elif kind == "command_string":
            qx = self.values.name(node).startswith("qx")
            self.add(
                node,
                shell_launch("qx" if qx else "backticks", self.values.interpolated(node), line(node)),
            )
        elif kind == "command_heredoc_token":
            self.add(node, shell_launch("backticks", self.values.heredoc(node), line(node)))
        elif kind == "eval_expression":
            self._eval_expression(node)
        elif kind == "substitution_regexp":
            self._substitution(node)
        elif kind == "function" and node.parent is not None and node.parent.type == "refgen_expression":
            self._reference(node)

    def _call(self, node: Node) -> None:
        values = self.values
        written = values.function(node)
        module, _, name = written.rpartition("::")
        if not module and name in self.subs and name not in _BUILTINS:
            return  # the program's own sub, not a module's function (imported with `use` or `-M`)
        args = node.child_by_field_name("arguments")
        if args is None and node.type == "func1op_call_expression":  # `readpipe(...)`: an unnamed operand
            operands = [c for c in node.named_children if c != node.child_by_field_name("function")]
            args = operands[0] if len(operands) == 1 else None
        elements = list(values.elements(args)) if args is not None else []
        at = line(node)
        if name in ("system", "exec") and module in ("", "POSIX"):
            self.add(node, self._system(node, written, elements, at))
        elif name == "readpipe" and not module:
            value = values.fold(elements[0]) if elements else RUNTIME_VALUE  # no operand: `$_`
            self.add(node, shell_launch(written, value, at))
        elif name == "open" and not module:
            self.add(node, self._open(written, elements, at))
        elif name in ("open2", "open3") and module in ("", "IPC::Open2", "IPC::Open3"):
            skip = 2 if name == "open2" else 3
            command = values.items(elements[skip:])
            self.add(node, command_launch(written, command, at) if command else None)
        elif name in ("run", "run_forked") and (
            module == "IPC::Cmd" or (not module and self._ipc_cmd_call(elements))
        ):
            self.add(node, self._ipc_cmd(written, elements, at))
        elif name in _SIMPLE and (
            module == "IPC::System::Simple" or (not module and self._simple_call(name))
        ):
            items = values.items(elements)
            blocks = ("block", "anonymous_hash_expression", "indirect_object")
            if any(e.type in blocks for e in [*node.named_children[1:2], *elements[:1]]):
                return  # Capture::Tiny's `capture { ... }`: the block is read where it stands
            launch = (
                argv_launch(written, items, at) if name.endswith("x") else command_launch(written, items, at)
            )
            self.add(node, launch if items else None)
        elif name in _RUN and module in ("", "IPC::Run", "IPC::Run3"):
            self.add(node, *self._ipc_run(written, name, elements, at))
        elif name == "unlink" and not module:
            self.add(node, removal(written, ("rm",), values.items(elements), at))
        elif name in ("rmtree", "remove_tree") and module in ("", "File::Path"):
            paths = [
                path
                for element in elements
                if element.type != "anonymous_hash_expression"  # the options
                for path in (values.array_ref(element) or values.items([element]))
            ]
            self.add(node, removal(written, ("rm", "-rf"), paths, at))

    def _system(self, node: Node, api: str, elements: list[Node], at: int) -> Launch | None:
        """`system LIST`; `system { PROGRAM } LIST` runs PROGRAM with LIST as its argv (argv0 first)."""
        indirect = next((c for c in node.named_children if c.type == "indirect_object"), None)
        items = self.values.items(elements)
        if indirect is not None:
            block = indirect.named_children[0] if indirect.named_children else indirect
            program = block.named_children[-1] if block.named_children else block
            if program.type == "expression_statement" and program.named_children:
                program = program.named_children[0]
            return argv_launch(api, [self.values.fold(program), *items[1:]], at)
        return command_launch(api, items, at) if items else None

    def _open(self, api: str, elements: list[Node], at: int) -> Launch | None:
        if len(elements) >= 3:
            mode = self.values.fold(elements[1])
            if mode.text is None:
                return unknown_launch(api, f"{api} is called with a mode built at run time", at)
            if mode.text.strip().split(":")[0].strip() not in _PIPE_MODES:
                return None
            command = self.values.items(elements[2:])
            return command_launch(api, command, at) if command else None
        if len(elements) != 2:
            return None
        return self._two_arg_open(api, self.values.fold(elements[1]), at)

    @staticmethod
    def _two_arg_open(api: str, value: Value, at: int) -> Launch | None:
        """`open(FH, "cmd |")` reads a command's output, `open(FH, "| cmd")` writes to its input; `-|`
        and `|-` fork without a command."""
        parts = list(value.parts)
        head = parts[0] if parts else ""
        tail = parts[-1] if parts else ""
        if isinstance(head, str) and head.lstrip().startswith("|"):
            parts[0] = head.lstrip()[1:]
        elif isinstance(tail, str) and tail.rstrip().endswith("|"):
            parts[-1] = tail.rstrip()[:-1]
        elif isinstance(head, str) and (head.lstrip().startswith(_FILE_MODES) or not runtime(value)):
            return None
        elif not isinstance(head, str) or not head.strip():
            return unknown_launch(api, f"{api} opens a path built at run time, which may be a command", at)
        else:
            return None
        command = Value(tuple(parts))
        return None if (command.text or "").strip() == "-" else shell_launch(api, command, at)

    def _ipc_run(self, api: str, name: str, elements: list[Node], at: int) -> list[Launch | None]:
        """`run \\@cmd, ...` / `run [...], '|', [...]`: each array is a command; `run3` takes one."""
        commands = elements[:1] if name == "run3" else elements
        found: list[Launch | None] = []
        for index, element in enumerate(commands):
            listed = self.values.array_ref(element)
            if listed is not None:
                found.append(argv_launch(api, listed, at))
            elif index == 0:
                found.append(shell_launch(api, self.values.fold(element), at))
        return found

    def _ipc_cmd_call(self, elements: list[Node]) -> bool:
        """A bare `run` is IPC::Cmd's when the program names it, or it is called `command => ...`."""
        return self.cmd_module or (bool(elements) and self.values.name(elements[0]) == "command")

    def _simple_call(self, name: str) -> bool:
        """A bare `run`/`capture` is IPC::System::Simple's when the program names the module (else
        `run` is IPC::Run's); its `x` functions have no other owner."""
        return self.simple_module or name.endswith("x") or name == "capture"

    def _ipc_cmd(self, api: str, elements: list[Node], at: int) -> Launch | None:
        """`IPC::Cmd::run(command => $cmd, ...)`: a string through a shell, an array ref an argv."""
        names = [self.values.name(e) for e in elements]
        if "command" not in names[:-1]:
            return None
        command = elements[names.index("command") + 1]
        listed = self.values.array_ref(command)
        return (
            argv_launch(api, listed, at)
            if listed is not None
            else shell_launch(api, self.values.fold(command), at)
        )

    def _reference(self, node: Node) -> None:
        """`\\&CORE::readpipe`: a reference to a process API, called where rein does not follow."""
        name = self.values.name(node).lstrip("&").removeprefix("CORE::GLOBAL::").removeprefix("CORE::")
        if name in ("system", "exec", "readpipe"):
            self.add(node, unknown_launch(name, f"a reference to {name} is passed on", line(node)))

    def _eval_expression(self, node: Node) -> None:
        operand = node.named_children[0] if node.named_children else None
        if operand is not None and operand.type == "block":
            return  # `eval { ... }` is ordinary code, read where it stands
        at = line(node)
        code = self.values.fold(operand).text if operand is not None else None
        if code is None:
            self.add(node, unknown_launch("eval", "eval runs code built at run time", at))
        else:
            self.add(node, *self.recurse(code, at))

    def _substitution(self, node: Node) -> None:
        """`s/.../CODE/e` runs CODE; `/ee` also runs the string CODE returns."""
        modifiers = self.values.name(node.child_by_field_name("modifiers"))
        replacement = next((c for c in node.named_children if c.type == "replacement"), None)
        if "e" not in modifiers or replacement is None:
            return
        code = self.values.name(replacement)
        at = line(node)
        self.add(node, *self.recurse(code, at))
        if modifiers.count("e") > 1:
            root, src = _tree.parse("perl", code)
            statements = [c for c in root.named_children if c.type != "comment"]
            inner = statements[0].named_children if len(statements) == 1 else []
            value = Values(root, src, self.env).fold(inner[0]).text if len(inner) == 1 else None
            if value is None:
                self.add(node, unknown_launch("s///ee", "s///ee runs code built at run time", at))
            else:
                self.add(node, *self.recurse(value, at))
