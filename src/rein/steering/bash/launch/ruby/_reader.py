"""What a Ruby program (`ruby -e`, a script on stdin) would launch.

Reads `system`/`exec`/`spawn` (bare, on `Kernel`, `Process`, `PTY`, or on a receiver that can only be
Kernel), backticks, `%x()` and backtick heredocs, `IO.popen`, `Open3.*`, `open("|cmd")` and
`IO.read("|cmd")`, their indirect forms (`send(:system, ...)`, `method(:system).call(...)`),
`eval`-family calls with a string (read again as Ruby), and `FileUtils`/`File`/`Pathname` removals as
the `rm` they amount to (a glob as a shell line, its wildcards unquoted). One string argument runs
through a shell, several are an argv; a leading env hash and trailing options are skipped. A call in a
loop over a known list (`%w[a b].each { |c| ... }`, `for c in [...]`) is read once per value.

It does not follow methods the program defines, `require`d files, or objects passed around: a process
API reached that way is not seen; a reference taken to one (`method(:system)` passed on, `alias run
system`) is unknown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._bindings import Loop
from rein.steering.bash.launch._folding import (
    line,
    removal,
    shell_launch,
    unknown_launch,
)
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._script_reader import ScriptReader
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.ruby._apis import (
    ANY_RECEIVER,
    CALL,
    EVAL,
    OPEN3,
    PATHNAME_REMOVALS,
    PIPELINE,
    REFERENCES,
    RM,
    RM_RF,
    SEND,
    kind,
    pipe,
    popen,
    spawn,
)
from rein.steering.bash.launch.ruby._loops import loop_of
from rein.steering.bash.launch.ruby._paths import pathname
from rein.steering.bash.launch.ruby._values import VARIABLES, Values


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    return _Reader.read(text, env)


class _Reader(ScriptReader[Values]):
    language = "ruby"
    launching = frozenset({"call", "alias", "element_reference", "subshell", "heredoc_beginning"})
    names = re.compile(
        rb"\b(?:system|exec|spawn|popen\w*|capture\w*|pipeline\w*|open|eval|\w+_eval|send|__send__|"
        rb"public_send|method|syscall|rm_\w+|rmtree|remove_\w+)\b|`|%x"
    )

    def values_of(self, root: Node, src: bytes, env: Mapping[str, str]) -> Values:
        return Values(root, src, env)

    def loop(self, node: Node) -> Loop | None:
        return loop_of(self.values, node)

    def visit(self, node: Node) -> None:
        if node.type == "call":
            self._call(node)
        elif node.type == "alias":
            self._alias(node, self.values.name(node.child_by_field_name("alias")).lstrip(":"))
        elif node.type == "element_reference":
            self._indirect(node, node.child_by_field_name("object"), node.named_children[1:], "[]")
        elif node.type == "subshell":
            self._backticks(node)
        elif node.type == "heredoc_beginning" and "`" in self.values.name(node):
            self.add(node, shell_launch("backticks", self.values.heredoc(node), line(node)))

    def _backticks(self, node: Node) -> None:
        api = "%x" if self.values.name(node).startswith("%x") else "backticks"
        self.add(node, shell_launch(api, self.values.string(node), line(node)))

    def _call(self, node: Node) -> None:
        values = self.values
        receiver = node.child_by_field_name("receiver")
        method_node = node.child_by_field_name("method")
        method = values.name(method_node)
        args = values.arguments(node)
        if method_node is None or method in CALL:
            self._indirect(node, receiver, args, method or "()")
        elif method in SEND and args:
            owner = _owner(values, receiver)
            api = f"{owner + '.' if owner else ''}{method}"
            name = values.fold(args[0]).text
            while name in SEND and len(args) > 1:  # `send(:send, :system, ...)`
                args = args[1:]
                name = values.fold(args[0]).text
            if name is None or name in REFERENCES:
                what = "calls a method named at run time" if name is None else "takes a method reference"
                self.add(node, unknown_launch(api, f"{api} {what}", line(node)))
            else:
                self._dispatch(node, self._private(owner, name), name, args[1:], f"{api}(:{name})")
        elif method in PATHNAME_REMOVALS and receiver is not None and receiver.type == "call":
            if pathname(values, receiver):  # `Pathname.new(p).rmtree`, `Pathname(p).rmtree`
                path = values.fold(receiver)
                self.add(node, removal(f"Pathname#{method}", PATHNAME_REMOVALS[method], [path], line(node)))
        elif method in REFERENCES and args:
            self._reference(node, values.fold(args[0]).text, _owner(values, receiver))
        elif method == "alias_method" and len(args) == 2:
            self._alias(node, values.fold(args[1]).text)
        else:
            owner = _owner(values, receiver)
            if owner is None and method in (*EVAL, *ANY_RECEIVER):
                owner = ""  # `obj.instance_eval(code)`; `k.system(...)` with `k` Kernel by another name
            if owner == "" and (method in OPEN3 or method in PIPELINE):
                owner = "Open3"  # `include Open3`
            if owner is not None:
                label = f"{_owner(values, receiver) or ''}.{method}".lstrip(".")
                self._dispatch(node, owner, method, args, label)

    def _alias(self, node: Node, name: str | None) -> None:
        """`alias run system`, `alias_method :run, :system`: calls of the new name are not followed."""
        if name is not None and kind("", name) is not None:
            self.add(node, unknown_launch("alias", f"{name} is called under another name", line(node)))

    def _indirect(self, node: Node, receiver: Node | None, args: list[Node], how: str) -> None:
        """`method(:system).call(...)`, `m.(...)`, `m[...]` with `m = method(:system)`."""
        target = receiver
        if target is not None and target.type in VARIABLES:
            target = self.values.bindings.get(self.values.name(target))
        if (
            target is None
            or target.type != "call"
            or self.values.name(target.child_by_field_name("method")) not in REFERENCES
        ):
            return
        taken = self.values.arguments(target)
        name = self.values.fold(taken[0]).text if taken else None
        if name is None:
            self.add(node, unknown_launch("method", "a method named at run time is called", line(node)))
        else:
            owner = self._private(_owner(self.values, target.child_by_field_name("receiver")), name)
            self._dispatch(node, owner, name, args, f"method(:{name}).{how}")

    def _private(self, owner: str | None, method: str) -> str:
        """The owner a method reached by `send` or `method` resolves on: Kernel's private methods are
        reachable from any object."""
        return owner if owner and kind(owner, method) else ""

    def _reference(self, node: Node, name: str | None, owner: str | None) -> None:
        """`method(:system)` that is not called on the spot: what calls it later is not followed."""
        parent = node.parent
        called = parent is not None and parent.children[0].id == node.id
        if called and parent is not None and parent.type == "element_reference":
            return  # called right here: `_indirect` reads it
        if called and parent is not None and parent.type == "call":
            how = parent.child_by_field_name("method")
            if how is None or self.values.name(how) in CALL:
                return
        if parent is not None and parent.type == "assignment":
            left = parent.child_by_field_name("left")
            if left is not None and self.values.bindings.get(self.values.name(left)) is not None:
                return  # held in a variable whose every use is a call `_indirect` reads
        if name is None or kind(self._private(owner, name), name) is not None:
            what = name or "a method named at run time"
            self.add(node, unknown_launch("method", f"a reference to {what} is passed on", line(node)))

    def _dispatch(self, node: Node, owner: str, method: str, args: list[Node], api: str) -> None:
        which = kind(owner, method)
        if which is None:
            return
        at = line(node)
        launches: list[Launch | None] = []
        if which == "spawn":
            launches.append(spawn(self.values, api, args, at))
        elif which == "backticks":
            launches.append(shell_launch(api, self.values.fold(args[0]), at) if args else None)
        elif which == "popen":
            launches.append(popen(self.values, api, args, at))
        elif which == "pipeline":
            launches.extend(popen(self.values, api, [arg], at) for arg in args if arg.type != "hash")
        elif which == "pipe":
            launches.append(pipe(self.values, api, args, at))
        elif which == "eval":
            launches.extend(self._eval(api, args, at))
        else:
            head = (
                ("rm", "-rf")
                if method in RM_RF
                else RM.get(method, ("rmdir",) if owner == "Dir" else ("rm",))
            )
            paths = [item for arg in args[:1] for item in (self.values.items(arg) or [self.values.fold(arg)])]
            launches.append(removal(api, head, paths, at))
        self.add(node, *launches)

    def _eval(self, api: str, args: list[Node], at: int) -> tuple[Launch, ...]:
        if not args:
            return ()  # the block form: its code is read where it stands
        code = self.values.fold(args[0]).text
        if code is None:
            return (unknown_launch(api, f"{api} runs code built at run time", at),)
        return self.recurse(code, at)


def _owner(values: Values, receiver: Node | None, depth: int = 0) -> str | None:
    """The receiver as a name the API tables know (`Kernel`, `Open3`, "" for none): a constant, a
    variable assigned one, or `const_get(:Name)` (Kernel when the name is built at run time); None
    for any other expression."""
    if receiver is None:
        return ""
    kind = receiver.type
    if kind in ("constant", "scope_resolution", "self"):
        return values.name(receiver).lstrip(":")
    if kind == "identifier" and values.name(receiver) == "binding":
        return "binding"
    if kind in VARIABLES and depth < 4:
        bound = values.bindings.get(values.name(receiver))
        return _owner(values, bound, depth + 1) if bound is not None else None
    if kind == "call" and values.name(receiver.child_by_field_name("method")) == "const_get":
        args = values.arguments(receiver)
        return (values.fold(args[0]).text if args else None) or "Kernel"
    return None
