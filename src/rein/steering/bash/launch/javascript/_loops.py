"""Names that take each of several known values, so that a call reading them is read once per value.

They are the variable of a `for (const x of ...)` loop, and the first parameter of a `forEach`/`map`
(and kin) callback, over a literal array, a constant one, a `"a b".split(" ")`, or the entries of a
directory `fs.readdirSync(dir)` lists (each entry joined back to `dir` is the glob `dir/*`); and the
parameters of a helper function (`const run = (...a) => execFileSync("git", a)`, `function sh(c)`)
whose every use is a call passing its arguments directly, each call a value.

A name counts only where nothing else can change it: no other write of it inside its loop or
function, no `with`, no `arguments` in a `function` (it aliases the parameters), no code run from a
string for a `let` or a helper (such code can call the helper with other values), nothing reaching a
`var` or a global function through the global object, and never in code run from a string. A call
reads at most `MAX_VALUES` combinations; past that it is read as today, its names built at run time.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import replace

from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._binders import (
    BINDING_PARENTS,
    binder,
    called_by,
    helper_name,
    inside,
    position,
)
from rein.steering.bash.launch.javascript._consts import Choice
from rein.steering.bash.launch.javascript._expr import Program
from rein.steering.bash.launch.javascript._refs import Ref
from rein.steering.bash.launch.javascript._scan import arguments, callee_node, unwrap
from rein.steering.bash.launch.javascript._values import Entry, Hole

MAX_VALUES = 16
"""How many values (or combinations of values) one call is read with."""
_LISTINGS = frozenset({
    Ref("fs", "readdirSync"), Ref("fs/promises", "readdir"), Ref("fs-extra", "readdirSync"),
    Ref("fs-extra", "readdir"),
})  # fmt: skip
Assignment = dict[str, Choice]


class Loops:
    """The names of one program that take several values, and the values a call reads them with."""

    __slots__ = ("_choices", "_names", "_offsets", "_reads", "program")

    def __init__(self, program: Program) -> None:
        self.program = program
        self._choices: dict[tuple[int, str], list[Choice] | None] = {}
        self._offsets: dict[str, list[int]] = {}
        """Where each name is written, sorted: whether a loop writes its variable again."""
        writes = program.scan.writes
        self._names = frozenset(
            name
            for name, nodes in writes.items()
            if any(node.parent is not None and node.parent.type in BINDING_PARENTS for node in nodes)
        )
        """Names some loop or parameter binds: the only ones that may take several values."""
        self._reads = (
            {read.id: name for name, reads in program.scan.reads.items() for read in reads}
            if self._names
            else {}
        )
        """Every read of a name, by node."""

    def assignments(self, node: Node) -> list[Assignment] | None:
        """The combinations of values of the several-valued names `node` reads (and that the values
        read in turn); None when it reads none, or there are too many."""
        if not self._names or self.program.parent is not None or self.program.scan.has_with:
            return None
        pending = self._names_in(node)
        seen = dict(pending)
        results: list[Assignment] = [{}]
        while pending:
            name, binder = pending.pop(0)
            choices = self._values(binder, name) if binder is not None else None
            if choices is None:
                continue  # built at run time, as ever
            results = [
                {**result, name: choice}
                for result in results
                for choice in choices
                if choice.site is None or all(_together(choice, other) for other in result.values())
            ]
            if len(results) > MAX_VALUES:
                return None
            for choice in choices:  # a helper's argument may read a loop's variable, and so on
                for inner in choice.nodes or ((choice.node,) if choice.node is not None else ()):
                    for found, at in self._names_in(inner):
                        if found not in seen:
                            seen[found] = at
                            pending.append((found, at))
                        elif seen[found] != at:
                            return None  # one name bound in two places: read as today
        return results if results != [{}] else None

    def _names_in(self, node: Node) -> list[tuple[str, Node | None]]:
        """The names `node` reads that a loop or parameter binds, each with its binder (None when a
        read is outside any, or under two), also through the constants it reads (`const cmd = "black "
        + f` in the loop)."""
        found: dict[str, set[Node | None]] = {}
        seen: set[str] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            name = self._reads.get(current.id)
            if name is not None and name in self._names:
                found.setdefault(name, set()).add(binder(current, name))
            elif name is not None and name not in seen and len(seen) < 32:
                seen.add(name)
                value = self.program.const(name)
                if value is not None:
                    stack.append(value)
            stack.extend(current.named_children)
        return [(name, binders.pop() if len(binders) == 1 else None) for name, binders in found.items()]

    def _values(self, binder: Node, name: str) -> list[Choice] | None:
        key = (binder.id, name)
        if key not in self._choices:
            self._choices[key] = None  # a helper whose calls pass its own parameter: no values
            self._choices[key] = self._compute(binder, name)
        return self._choices[key]

    def _compute(self, binder: Node, name: str) -> list[Choice] | None:
        program = self.program
        writes = program.scan.writes.get(name, [])
        offsets = self._offsets.get(name)
        if offsets is None:
            offsets = self._offsets[name] = sorted(write.start_byte for write in writes)
        within = bisect_left(offsets, binder.end_byte) - bisect_left(offsets, binder.start_byte)
        if within > 1:
            return None  # written again inside (besides its binding): not one value per iteration
        if binder.type == "for_in_statement":
            kind = binder.child_by_field_name("kind")
            operator = binder.child_by_field_name("operator")
            keyword = program.text(kind) if kind is not None else ""
            if operator is None or program.text(operator) != "of":
                return None
            if (keyword == "let" and not program.lets) or keyword not in ("const", "let", "var"):
                return None
            if keyword == "var" and (not program.vars or len(writes) != 1):
                return None
            return self._iterated(binder.child_by_field_name("right"), 0)
        if binder.type != "arrow_function" and any(
            inside(read, binder) for read in program.scan.reads.get("arguments", ())
        ):
            return None  # `arguments[0] = x` writes the first parameter
        found = position(binder, name)
        if found is None:
            return None
        index, rest = found
        call = called_by(binder)
        if call is not None:  # `list.forEach(x => ...)`
            function = callee_node(call)
            if index or rest or function is None or function.type != "member_expression":
                return None
            return self._iterated(function.child_by_field_name("object"), 0)
        return self._calls(binder, index, rest)

    def _calls(self, function: Node, index: int, rest: bool) -> list[Choice] | None:
        """A helper's parameter: the argument each call passes it."""
        program = self.program
        name = helper_name(program, function)
        if name is None or program.dynamic:
            return None
        reads = program.scan.reads.get(name, ())
        choices: list[Choice] = []
        for number, read in enumerate(reads):
            site = (function.id, number)
            call = read.parent
            if call is None or call.type != "call_expression" or call.child_by_field_name("function") != read:
                return None  # passed on, or inspected: called where rein cannot see
            if inside(call, function):
                return None  # calls itself
            args = arguments(call)
            if any(arg.type == "spread_element" for arg in args[: index + (0 if rest else 1)]):
                return None
            if rest:
                choices.append(Choice(nodes=args[index:], site=site))
            elif index < len(args):
                passed = self._passed(args[index])
                if passed is None:
                    return None
                choices.extend(replace(choice, site=site) for choice in passed)
            else:
                return None  # left out: its default, or undefined
        return choices if choices and len(choices) <= MAX_VALUES else None

    def _passed(self, arg: Node) -> list[Choice] | None:
        """The values an argument passes: a loop's variable (or a parameter) passed on takes its
        values here, so that `for (const c of ...) run(c)` reads with `run`'s own `c`."""
        node = unwrap(arg)
        name = self._reads.get(node.id) if node.type == "identifier" else None
        bound = binder(node, name) if name is not None and name in self._names else None
        return [Choice(node=arg)] if bound is None else self._values(bound, name or "")

    def _iterated(self, node: Node | None, depth: int) -> list[Choice] | None:
        """The values a loop over `node` takes."""
        if node is None or depth > 8:
            return None
        program = self.program
        node = unwrap(node)
        out: list[Choice] = []
        if node.type == "array":
            for child in node.named_children:
                if child.type == "spread_element":
                    inner = self._iterated(
                        child.named_children[0] if child.named_children else None, depth + 1
                    )
                    if inner is None:
                        return None
                    out.extend(inner)
                elif child.type != "comment":
                    out.append(Choice(node=child))
        elif node.type == "identifier":
            found = program.resolve(program.text(node), mutable=True)
            if found is None or found[0] is not program:
                return None
            return self._iterated(found[1], depth + 1)
        elif node.type == "call_expression":
            target, _, args = program.callee(node)
            if target in _LISTINGS and args:
                folder = program.string(args[0])
                if any(part is Hole.RUNTIME or isinstance(part, Entry) for part in folder):
                    return None
                return [Choice(parts=(Entry(tuple(p for p in folder if not isinstance(p, Entry))),))]
            items = program.array(node)
            if items is None or items.open:
                return None
            out.extend(Choice(parts=item) for item in items.items)
        else:
            return None
        return out if len(out) <= MAX_VALUES else None


def _together(choice: Choice, other: Choice) -> bool:
    """Whether two values can be read together: the parameters of one helper take one call's values."""
    if choice.site is None or other.site is None:
        return True
    return choice.site[0] != other.site[0] or choice.site == other.site
