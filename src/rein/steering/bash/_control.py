"""Statements other than simple commands and chains: groups, conditionals, loops, functions,
assignments, declarations and tests, each with its scoping rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from rein.steering.bash._expand import expand, fill
from rein.steering.bash._frame import Array, Ctx, Frame, Value, merge
from rein.steering.bash._redirects import node_text
from rein.steering.bash._walk_api import G, Walk
from rein.steering.bash._words import Sub, assigned, collect_subs, words
from rein.steering.bash.model import UNKNOWN, Bounded, Expansion, Unknown, Word

if TYPE_CHECKING:
    from tree_sitter import Node

_LOOP_PASSES = 4
_ASSIGNING = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", "&=", "^=", "|=", "++", "--"})
_EXPRESSIONS = frozenset({
    "binary_expression", "unary_expression", "parenthesized_expression", "ternary_expression",
    "postfix_expression",
})  # fmt: skip


def assignment(node: Node, src: bytes, subs: list[Sub]) -> tuple[str, Word | None, bool]:
    """A `variable_assignment` as (name, value word or None when not a plain string, appends)."""
    children = node.children
    target = children[0]
    if target.type == "subscript":  # a[i]=x: the array changes in a way not modelled
        collect_subs(target, subs)
        name_node = target.children[0] if target.child_count else target
        for child in children[2:]:
            collect_subs(child, subs)
        return node_text(name_node, src), None, False
    append = len(children) > 1 and children[1].type == "+="
    values = children[2:]
    if values and values[0].type == "array":
        collect_subs(values[0], subs)
        return node_text(target, src), None, append
    built = words(values, src, subs)
    return node_text(target, src), built[0] if built else Word(value="", raw=""), append


def arith_names(node: Node, src: bytes) -> list[str]:
    """Variables an arithmetic expression assigns (`x = 1`, `i++`)."""
    names: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        children = current.children
        if current.type == "variable_assignment" and children:
            names.append(node_text(children[0], src))
        elif current.type in _EXPRESSIONS and any(child.type in _ASSIGNING for child in children):
            operand = next((child for child in children if child.is_named), None)
            if operand is not None and operand.type in ("variable_name", "word"):
                names.append(node_text(operand, src))
        stack.extend(children)
    return names


def _assignments(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    nodes = [node] if node.type == "variable_assignment" else node.children
    for child in nodes:
        if child.type != "variable_assignment":
            continue
        subs: list[Sub] = []
        name, value, append = assignment(child, ctx.src, subs)
        outputs = walker.run_subs(subs, frame, g, ctx, "assignment")
        elements = _array(child, ctx.src, frame, outputs)
        if elements is not None:
            _set_array(frame, name, elements, append, _prior(frame, name))
            continue
        if value is not None and outputs:
            value = fill((value,), outputs)[0]
        frame.set_var(name, assigned(name, value, append, frame.env))
        walker.assigned(name, frame.env.get(name, UNKNOWN), frame, g, ctx)
    return g


def _set_array(frame: Frame, name: str, elements: Array, append: bool, prior: Array) -> None:
    """`a=(x y)`, or `a+=(z)`, which appends to what `a` held before (`prior`)."""
    if append:
        elements = (
            (*prior, *elements) if isinstance(prior, tuple) and isinstance(elements, tuple) else UNKNOWN
        )
    frame.set_array(name, elements)


def _prior(frame: Frame, name: str) -> Array:
    """What `name` holds as an array: its elements, or a scalar as the one element."""
    array = frame.arrays.get(name)
    if array is not None:
        return array
    scalar = frame.env.get(name)
    return () if scalar is None else (scalar,)


def _array(
    node: Node, src: bytes, frame: Frame, outputs: dict[str, Value]
) -> tuple[Value, ...] | Unknown | None:
    """`a=(x y z)`: the elements, expanded as bash does (UNKNOWN where one is not known); None when
    the assignment is not an array."""
    values = node.children[2:]
    if not values or values[0].type != "array":
        return None
    items = [child for child in values[0].children if child.is_named and child.type != "comment"]
    found = expand(fill(words(items, src, []), outputs), frame.env, frame.arrays)
    if any(word.dynamic for word in found):
        return UNKNOWN
    return tuple(word.value for word in found)


def _declaration(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    """`export X=1 Y`, `unset X`: a builtin whose arguments may be assignments."""
    src = ctx.src
    subs: list[Sub] = []
    argv: list[Word] = []
    pending: list[Node] = []
    arrays: list[Node] = []
    for child in node.children:
        if child.type == "variable_assignment":
            argv.extend(words(pending, src, subs))
            pending = []
            argv.append(_assignment_word(child, src, subs))
            arrays.append(child)
        elif child.type != "comment":
            pending.append(child)
    argv.extend(words(pending, src, subs))
    outputs = walker.run_subs(subs, frame, g, ctx, "assignment")
    associative = any(word.value.startswith("-") and "A" in word.value for word in argv[1:])
    held: list[tuple[str, Array, bool, Array]] = []
    for child in arrays:  # `declare -a c=(git clean -fdx)` holds an array, as `c=(...)` does
        elements = _array(child, src, frame, outputs)
        if elements is not None:
            name, _, append = assignment(child, src, [])
            held.append((name, UNKNOWN if associative else elements, append, _prior(frame, name)))
    filled = fill(argv, outputs) if outputs else argv  # `local f=$(mktemp)`: what the substitution gave
    ok = walker.emit(tuple(filled), node_text(node, src), frame, g, ctx) if argv else g
    for name, elements, append, prior in held:
        _set_array(frame, name, elements, append, prior)
    return ok


def _assignment_word(node: Node, src: bytes, subs: list[Sub]) -> Word:
    """`X=$v` as one word (`X=` then the value's parts); arrays keep their text, starting with `(`."""
    name, value, append = assignment(node, src, subs)
    head = f"{name}{'+=' if append else '='}"
    raw = node_text(node, src)
    if value is None:
        text = raw.partition("=")[2]
        return Word(value=head + text, raw=raw, parts=(head, Expansion(kind="other", raw=text)))
    if not value.parts:
        return Word(value=head + value.value, raw=raw)
    first, *rest = value.parts
    parts = (head + first, *rest) if isinstance(first, str) else (head, first, *rest)
    return Word(value=head + value.value, raw=raw, parts=parts)


def _test(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    """`[ ... ]`, `[[ ... ]]`, `(( ... ))`: a command whose operands may run substitutions."""
    leaves: list[Node] = []
    stack = list(reversed(node.children))
    while stack:
        current = stack.pop()
        if current.type in _EXPRESSIONS:
            stack.extend(reversed(current.children))
        elif current.type != "comment":
            leaves.append(current)
    subs: list[Sub] = []
    argv = [word for leaf in leaves for word in words((leaf,), ctx.src, subs)]  # `((x` is `((` and `x`
    walker.run_subs(subs, frame, g, ctx)
    if node.children and node.children[0].type in ("((", "[["):  # `[[ x -eq 1 ]]` is arithmetic too
        walker.arithmetic(node, frame, g, ctx)
    if node.children and node.children[0].type == "((":
        for name in arith_names(node, ctx.src):
            frame.set_var(name, UNKNOWN)
    return walker.emit(tuple(argv), node_text(node, ctx.src), frame, g, ctx) if argv else g


def _negated(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    for child in node.children:
        if child.is_named and child.type != "comment":
            walker.stmt(child, frame, g, ctx)
    return g


def _subshell(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    apart = frame.copy()
    ok = walker.seq(node.children, apart, g, ctx)
    frame.absorb(apart, exact=False)
    return ok


def _group(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    if node.children and node.children[0].type == "((":  # tree-sitter reads `((x = 1))` as a group
        return _test(walker, node, frame, g, ctx)
    return walker.seq(node.children, frame, g, ctx)


def _if(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    """Each branch starts where its condition failed or held; afterwards only agreed values remain."""
    clauses = [child for child in node.children if child.type in ("elif_clause", "else_clause")]
    branches: list[Frame] = []
    has_else = False
    for clause in [node, *clauses]:
        children = [child for child in clause.children if child.type not in ("elif_clause", "else_clause")]
        branch: Frame
        if clause.type == "else_clause":
            branch, has_else = frame.copy(), True
            walker.seq(children, branch, g, ctx)
        else:
            split = next((at for at, child in enumerate(children) if child.type == "then"), len(children))
            ok = walker.seq(children[:split], frame, g, ctx)
            branch = frame.copy()
            walker.seq(children[split + 1 :], branch, ok, ctx)
        branches.append(branch)
    if not has_else:
        branches.append(frame)
    frame.load(merge(branches))
    return g


def _case(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    src = ctx.src
    subs: list[Sub] = []
    children = node.children
    split = next((at for at, child in enumerate(children) if child.type == "in"), len(children))
    words([child for child in children[:split] if child.is_named and child.type != "comment"], src, subs)
    walker.run_subs(subs, frame, g, ctx)
    exits: list[Frame] = []
    carried: Frame | None = None
    matches_all = False
    for item in children[split:]:
        if item.type != "case_item":
            continue
        parts = item.children
        close = next((at for at, child in enumerate(parts) if child.type == ")"), 0)
        patterns = [child for child in parts[:close] if child.is_named and child.type != "comment"]
        matches_all = matches_all or any(node_text(pattern, src) == "*" for pattern in patterns)
        subs = []
        words(patterns, src, subs)
        walker.run_subs(subs, frame, g, ctx)
        branch = frame.copy() if carried is None else merge([frame, carried])
        walker.seq(parts[close + 1 :], branch, g, ctx)
        carried = branch if any(child.type in (";&", ";;&") for child in parts) else None
        exits.append(branch)
    if not matches_all:
        exits.append(frame)
    frame.load(merge(exits))
    return g


def _for(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    """`for x in ...`, `select x in ...`, `for ((...))`. Over a list rein knows (`for d in build
    dist`), the body is walked once per item with the variable set; over a glob or an output rein
    bounds, with the variable bounded (a path below the cwd, a branch name); else it is unknown."""
    subs: list[Sub] = []
    names: list[str] = []
    values: list[Node] = []
    body: Node | None = None
    c_style = node.type == "c_style_for_statement"
    for child in node.children:
        kind = child.type
        if kind in ("do_group", "compound_statement"):
            body = child
        elif c_style and child.is_named:
            collect_subs(child, subs)
            names.extend(arith_names(child, ctx.src))
        elif kind == "variable_name" and not names:
            names.append(node_text(child, ctx.src))
        elif child.is_named and kind != "comment":
            values.append(child)
    items = words(values, ctx.src, subs)
    outputs = walker.run_subs(subs, frame, g, ctx)
    known = _items(items, outputs, frame) if names and values and not c_style else UNKNOWN
    if body is None:
        return g
    if isinstance(known, tuple) and node.children[0].type == "for":  # not `select`: the user picks
        for item in known:  # unrolled: each item in turn, as the shell runs them
            frame.set_var(names[0], item)
            walker.seq(body.children, frame, g, ctx)
        return g
    for name in names:
        frame.set_var(name, known if isinstance(known, Unknown) else UNKNOWN)
    loop_body = body

    def once(work: Frame) -> Frame | None:
        walker.seq(loop_body.children, work, g, ctx)
        return None

    _loop(walker, frame, once)
    return g


_MAX_ITEMS = 16
"""Loops over more items than this are walked once, with the variable unknown."""


def _items(items: list[Word], outputs: dict[str, Value], frame: Frame) -> tuple[str, ...] | Unknown:
    """The values a `for` variable takes: each literal item, or a bound that holds for every item (a
    glob's matches are paths below the cwd; `$(git branch ...)` gives branch names)."""
    found = expand(fill(items, outputs), frame.env, frame.arrays)
    if not any(word.dynamic for word in found):
        return tuple(word.value for word in found) if len(found) <= _MAX_ITEMS else UNKNOWN
    bounds: set[Unknown] = set()
    for word in found:
        part = word.parts[0] if len(word.parts) == 1 else None
        if isinstance(part, Expansion) and part.kind == "glob" and not word.value.startswith("/"):
            bounds.add(Bounded("below", frame.cwd) if isinstance(frame.cwd, str) else UNKNOWN)
        elif isinstance(part, Expansion) and isinstance(part.value, Bounded) and not part.quoted:
            bounds.add(part.value)
        elif word.dynamic:
            return UNKNOWN
    return bounds.pop() if len(bounds) == 1 else UNKNOWN


def _while(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    children = node.children
    until = bool(children) and children[0].type == "until"
    body = next((child for child in children if child.type == "do_group"), None)
    condition = [child for child in children[1:] if child is not body]

    def once(work: Frame) -> Frame | None:
        ok = walker.seq(condition, work, g, ctx)
        after = work.copy()
        if body is not None:
            walker.seq(body.children, work, g if until else ok, ctx)
        return after

    _loop(walker, frame, once)
    return g


def _loop(walker: Walk, frame: Frame, once: Callable[[Frame], Frame | None]) -> None:
    """Walk a loop body until the state at its start is stable: each pass starts from the merge of
    the entry state and the state after the previous pass (the body runs zero or more times). Only
    the last pass's refs are kept."""
    refs, problems = len(walker.refs), len(walker.problems)
    entry = frame.copy()
    for attempt in range(_LOOP_PASSES + 1):
        if attempt == _LOOP_PASSES:  # not settling: everything the body could change is unknown
            entry = Frame(UNKNOWN, {}, dict.fromkeys(entry.values, UNKNOWN), funcs=entry.funcs)
        work = entry.copy()
        exit_state = once(work)
        widened = merge([entry, work])
        if attempt == _LOOP_PASSES or widened.same(entry):
            frame.load(exit_state or entry)
            return
        del walker.refs[refs:]
        del walker.problems[problems:]
        entry = widened


def _function(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    """A definition runs nothing: the body is checked where the function is called, with the
    caller's state and arguments (see `_run._call`). Redirects on the definition (`f() { :; } 2>
    >(cmd)`) run at each call: they are checked here, as they may run."""
    name = ""
    for child in node.children:
        kind = child.type
        if kind == "word" and not name:
            name = node_text(child, ctx.src)
        elif child == node.child_by_field_name("body"):  # any compound command: `f() if ...; fi`
            frame.set_function(name, (child, ctx))
    redirects = node.children_by_field_name("redirect")
    if redirects:
        apart = frame.copy()
        walker.redirects(redirects, apart, g, ctx)
        frame.absorb(apart, exact=False)
    return g


Handler: TypeAlias = "Callable[[Walk, Node, Frame, G, Ctx], G]"
HANDLERS: dict[str, Handler] = {
    "variable_assignment": _assignments,
    "variable_assignments": _assignments,
    "declaration_command": _declaration,
    "unset_command": _declaration,
    "test_command": _test,
    "negated_command": _negated,
    "subshell": _subshell,
    "compound_statement": _group,
    "if_statement": _if,
    "case_statement": _case,
    "for_statement": _for,
    "c_style_for_statement": _for,
    "while_statement": _while,
    "function_definition": _function,
}
