"""Statements other than simple commands and chains: groups, conditionals, loops, functions,
assignments, declarations and tests, each with its scoping rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from rein.steering.bash._frame import Ctx, Frame, merge
from rein.steering.bash._redirects import node_text
from rein.steering.bash._words import Sub, assigned, collect_subs, words
from rein.steering.bash.model import UNKNOWN, Expansion, Word

if TYPE_CHECKING:
    from tree_sitter import Node

    from rein.steering.bash._walker import G, Walker

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


def _assignments(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    nodes = [node] if node.type == "variable_assignment" else node.children
    for child in nodes:
        if child.type != "variable_assignment":
            continue
        subs: list[Sub] = []
        name, value, append = assignment(child, ctx.src, subs)
        walker.run_subs(subs, frame, g, ctx, "assignment")
        frame.set_var(name, assigned(name, value, append, frame.env))
    return g


def _declaration(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    """`export X=1 Y`, `unset X`: a builtin whose arguments may be assignments."""
    src = ctx.src
    subs: list[Sub] = []
    argv: list[Word] = []
    pending: list[Node] = []
    for child in node.children:
        if child.type == "variable_assignment":
            argv.extend(words(pending, src, subs))
            pending = []
            argv.append(_assignment_word(child, src, subs))
        elif child.type != "comment":
            pending.append(child)
    argv.extend(words(pending, src, subs))
    walker.run_subs(subs, frame, g, ctx, "assignment")
    return walker.emit(tuple(argv), node_text(node, src), frame, g, ctx) if argv else g


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


def _test(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
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
    if node.children and node.children[0].type == "((":
        for name in arith_names(node, ctx.src):
            frame.set_var(name, UNKNOWN)
    return walker.emit(tuple(argv), node_text(node, ctx.src), frame, g, ctx) if argv else g


def _negated(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    for child in node.children:
        if child.is_named and child.type != "comment":
            walker.stmt(child, frame, g, ctx)
    return g


def _subshell(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    apart = frame.copy()
    ok = walker.seq(node.children, apart, g, ctx)
    frame.absorb(apart, exact=False)
    return ok


def _group(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    if node.children and node.children[0].type == "((":  # tree-sitter reads `((x = 1))` as a group
        return _test(walker, node, frame, g, ctx)
    return walker.seq(node.children, frame, g, ctx)


def _if(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
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


def _case(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
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


def _for(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    """`for x in ...`, `select x in ...`, `for ((...))`: the loop variable is unknown in the body."""
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
    words(values, ctx.src, subs)
    walker.run_subs(subs, frame, g, ctx)
    for name in names:
        frame.set_var(name, UNKNOWN)
    if body is not None:
        loop_body = body

        def once(work: Frame) -> Frame | None:
            walker.seq(loop_body.children, work, g, ctx)
            return None

        _loop(walker, frame, once)
    return g


def _while(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
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


def _loop(walker: Walker, frame: Frame, once: Callable[[Frame], Frame | None]) -> None:
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


def _function(walker: Walker, node: Node, frame: Frame, g: G, ctx: Ctx) -> G:
    """Checked where defined, with the state there; a call applies its effects (see Walker._call)."""
    name = ""
    for child in node.children:
        kind = child.type
        if kind == "word" and not name:
            name = node_text(child, ctx.src)
        elif kind in ("compound_statement", "subshell", "test_command"):
            defined = Ctx(ctx.src, ctx.wrappers, "function", ctx.depth, ctx.where)
            walker.stmt(child, frame.copy(), (), defined)
            frame.set_function(name, (child, defined))
        elif kind == "file_redirect":
            walker.redirects([child], frame.copy(), (), ctx)
    return g


Handler: TypeAlias = "Callable[[Walker, Node, Frame, G, Ctx], G]"
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
