"""The JavaScript reader: what a program run by `node -e/-p`, `nodejs`, `bun -e`, `deno eval` or fed
on stdin would launch, read with tree-sitter-javascript (never run).

It finds the calls of `child_process` (however the program reaches the module: `require`, `import`,
`await import()`, `module.require`, destructuring, aliases, `promisify`), Bun's `spawn` and `$`
templates, Deno's `Command` and `run`, the npm wrappers execa, cross-spawn and shelljs, removals
through `fs` (as the `rm` command they amount to), code run from strings (`eval`, `Function`, `vm`,
read again with this reader), and loads it cannot resolve (`require(name)` with a name built at run
time, `process.binding`: unknown launches). When the program takes `child_process` somewhere the
reader cannot follow (`_javascript_follow`), calls named like its functions (`x.execSync(...)`,
`spawn(...)`) count as its calls; otherwise `/re/.exec(s)` is no launch. A process function passed
where the reader cannot follow it (or picked from the module at run time: `Object.values(cp)`,
`Reflect.get(cp, name)`) is an unknown launch; only looked at (`typeof exec`), it is none.

A call reading a loop's variable over known values, or a helper's parameter every call of the helper
passes known values (`_loops`), is read once per value. Code that never runs (`_dead`: a function
nothing calls or mentions, a `Function(...)` never called) launches nothing.

`api` names the function by its module, whatever name the program bound it to:
`child_process.execSync`, `fs.rmSync`, `fs.promises.rm`, `Bun.spawn`, `Bun.$` (a bare `$` tag: `$`),
`Deno.Command`, `vm.runInThisContext`; globals by their name: `eval`, `Function`, `require`, `import`.
Not read: control flow (every branch counts), scopes (a name written twice is not a constant, but for
a loop's variable or a parameter), the values functions return, files the program loads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch import _tree
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._apis import CHILD_PROCESS, HANDLERS
from rein.steering.bash.launch.javascript._call_site import Reader, Site, api_name, shell
from rein.steering.bash.launch.javascript._dead import dead, unused, within
from rein.steering.bash.launch.javascript._expr import Program
from rein.steering.bash.launch.javascript._follow import follow
from rein.steering.bash.launch.javascript._loops import Loops
from rein.steering.bash.launch.javascript._refs import Ref
from rein.steering.bash.launch.javascript._scan import callee_node, scan, tagged, unwrap

_MAX_DEPTH = 4
"""How deep code run from strings (`eval("eval('...')")`) is read."""
_API_WORDS = re.compile(
    r"child_process|\$\s*`|\b(?:exec|execSync|execFile|execFileSync|spawn|spawnSync|fork|eval|Function|require"
    r"|import|Bun|Deno|binding|vm|runIn\w*Context|rmSync|rmdirSync|unlinkSync|setTimeout|setInterval)\b"
)
"""Names of process APIs: one in text the grammar cannot parse may be a launch the reader missed."""
_FUNCTION = Ref("", "Function")
_CHILD_PROCESS = Ref("child_process")
_LISTERS = frozenset(
    {"values", "entries", "keys", "getOwnPropertyNames", "ownKeys", "getOwnPropertyDescriptors"}
)
"""`Object.values(cp)` and kin: every function of the module, picked from at run time."""
_FUNCTIONS = frozenset({
    "arrow_function", "function_expression", "function", "generator_function", "function_declaration",
    "generator_function_declaration",
})  # fmt: skip


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    return _read(text, env, None, 0, lost=False)


def _read(
    text: str, env: Mapping[str, str], parent: Program | None, depth: int, lost: bool
) -> tuple[Launch, ...]:
    root, src = _tree.parse("javascript", text)
    program = Program(scan(root), src, text, env, parent)
    followed = follow(program)
    lost = lost or followed.lost

    def reader(code: str) -> tuple[Launch, ...]:
        if depth >= _MAX_DEPTH:
            return (Launch(api="eval", unknown="code run from strings nests too deeply to read"),)
        return _read(code, env, program, depth + 1, lost)

    never = dead(program)
    loops = Loops(program)
    found: list[tuple[int, Launch]] = []
    for node, ref in followed.escapes:
        if not within(node, never):
            why = f"{api_name(ref)} is passed where rein cannot follow it"
            found.append((node.start_byte, Launch(api=api_name(ref), unknown=why, line=_line(node))))
    for call in program.scan.calls:
        if not within(call, never):
            found.extend((call.start_byte, launch) for launch in _each(program, loops, call, lost, reader))
    found.extend(_unparsed(program))
    found.sort(key=lambda item: item[0])
    return tuple(launch for _, launch in found)


def _each(program: Program, loops: Loops, call: Node, lost: bool, reader: Reader) -> list[Launch]:
    """What one call launches, once for each value of the loop variables (and helper parameters) it
    reads, when they take known values."""
    assignments = loops.assignments(call)
    if assignments is None:
        return _launches(program, call, lost, reader)
    out: list[Launch] = []
    for assignment in assignments:
        with program.fixing(assignment):
            out.extend(launch for launch in _launches(program, call, lost, reader) if launch not in out)
    return out


def _launches(program: Program, call: Node, lost: bool, reader: Reader) -> list[Launch]:
    """What one call (or `new`, or tagged template) launches."""
    line = _line(call)
    template = tagged(call)
    if template is not None:
        return _tagged(program, call, template, line, reader)
    target, function, args = program.callee(call)
    if program.loads(target, function):
        if not args or program.literal(args[0]) is not None:
            return []
        api = "import" if function is not None and function.type == "import" else "require"
        why = f"{api} loads a module named at run time (it may be child_process)"
        return [Launch(api=api, unknown=why, line=line)]
    if target == _FUNCTION and unused(program, call):
        return []  # a function made from a string and never called runs nothing
    handler = HANDLERS.get(target) if target is not None else None
    if handler is not None and target is not None:
        return handler(Site(program, target, args, line, reader))
    if function is None:
        return []
    function = unwrap(function)
    name = program.text(function) if function.type == "identifier" else None
    if function.type in ("member_expression", "subscript_expression"):
        name = program.key(function)
        if name == "constructor" and _a_function(program, function.child_by_field_name("object")):
            if unused(program, call):
                return []  # a function made from a string and never called runs nothing
            return HANDLERS[_FUNCTION](Site(program, _FUNCTION, args, line, reader))
        if name in _LISTERS and args and program.ref(args[0]) == _CHILD_PROCESS:
            why = f"{program.text(function)} lists child_process's functions: which one runs is not followed"
            return [Launch(api="child_process", unknown=why, line=line)]
        picked = function.type == "subscript_expression" and name not in CHILD_PROCESS
        if lost and (name is None or picked):  # `cp[name](...)`, `Object.values(cp)[5](...)`
            why = "a function named at run time may be child_process's"
            return [Launch(api="child_process", unknown=why, line=line)]
    elif lost and function.type == "call_expression":  # `Reflect.get(cp, name)(...)`
        why = "a function picked at run time may be child_process's"
        return [Launch(api="child_process", unknown=why, line=line)]
    if lost and name in CHILD_PROCESS:
        ref = Ref("child_process", name)
        return HANDLERS[ref](Site(program, ref, args, line, reader))
    return []


def _tagged(program: Program, call: Node, template: Node, line: int, reader: Reader) -> list[Launch]:
    """A tagged template: `` $`git push` `` (Bun's, zx's, any `$`) and execa's `` execa`...` `` run a
    shell line; other tags (`String.raw`) run nothing."""
    tag = callee_node(call)
    ref = program.ref(tag) if tag is not None else None
    if ref is None or ref.module != "execa":
        if tag is None or not _dollar(program, tag):
            return []
        ref = Ref("bun" if ref is not None and ref.module == "bun" else "", "$")
    return [shell(Site(program, ref, (template,), line, reader), program.template(template, raw=False))]


def _dollar(program: Program, tag: Node) -> bool:
    """Whether a template tag is `$` (Bun's, zx's, or any): `$`, `Bun.$`, `$.sync`, `$({cwd})`."""
    ref = program.ref(tag)
    if ref is not None and ref.name == "$":
        return True
    node: Node | None = unwrap(tag)
    while node is not None:
        if node.type == "identifier":
            return program.text(node) == "$"
        if node.type == "member_expression":
            if program.key(node) == "$":
                return True
            node = node.child_by_field_name("object")
        elif node.type == "call_expression":
            node = node.child_by_field_name("function")
        else:
            return False
    return False


def _a_function(program: Program, node: Node | None) -> bool:
    """Whether `node` is a function, whose `constructor` is `Function`: `(() => {}).constructor`,
    `"".constructor.constructor`, `Object.getPrototypeOf(async function () {}).constructor`, a function
    the program declares (but not `this.constructor`, a class)."""
    if node is None:
        return False
    node = unwrap(node)
    if node.type in _FUNCTIONS:
        return True
    if node.type in ("member_expression", "subscript_expression"):
        key = program.key(node)
        return key == "constructor" or (
            key == "prototype" and program.ref(node.child_by_field_name("object")) == _FUNCTION
        )
    if node.type == "call_expression":
        return program.text(node).startswith(("Object.getPrototypeOf", "Reflect.getPrototypeOf"))
    if node.type == "identifier":
        writes = program.scan.writes.get(program.text(node), ())
        return any(write.parent is not None and write.parent.type in _FUNCTIONS for write in writes)
    return False


def _unparsed(program: Program) -> list[tuple[int, Launch]]:
    """One unknown launch for text the grammar cannot parse that names a process API."""
    for error in program.scan.errors:
        snippet = program.text(error)
        if _API_WORDS.search(snippet):
            near = " ".join(snippet.split())[:60]
            why = f"the javascript program does not parse near `{near}`"
            return [(error.start_byte, Launch(api="javascript", unknown=why, line=_line(error)))]
    return []


def _line(node: Node) -> int:
    return node.start_point[0] + 1
