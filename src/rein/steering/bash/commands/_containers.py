"""Containers, pods and hosted machines: `docker`/`podman` `run`/`exec` (also `container run`, `compose
run`/`exec`, `--entrypoint`), `podman unshare`, `kubectl exec`/`run`/`create job -- cmd`, `oc rsh`,
`heroku run`. The command runs elsewhere (its cwd and branch are unknown), but a rule still applies to
it: `docker exec app rm -rf /` is checked like `rm -rf /`. A detached one (`docker run -d`) is labelled
so (`docker run -d`), for the rules that let a detached server run."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import replace

from rein.steering.bash.commands._inner import NOTHING, Call, Unwrapped, run, script
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._suffix import suffixes
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Word

_RUNS = {"run": 1, "exec": 1, "create": 1}
"""Subcommands that take a command after one operand (the image or the container)."""


def _after_operand(call: Call, index: int, key: str, label: str) -> Unwrapped:
    """The command after the options and one operand (`docker exec [opts] ctr cmd args`): with
    `--entrypoint`, the entrypoint is the program and the words after the image its arguments. A
    detached one (`docker run -d`) says so in its label."""
    parsed = parse(call.argv, index, spec(key))
    if parsed.unknown:
        return suffixes(call, parsed.rest, label)
    rest = call.argv[parsed.rest + 1 :]
    detach = [value for name, value in parsed.options if name in ("-d", "--detach")]
    if detach and (detach[-1] is None or detach[-1].value.lower() not in ("false", "0")):
        label = f"{label} -d"
    entrypoint = parsed.last("--entrypoint")
    if entrypoint is None or parsed.rest >= len(call.argv):
        interactive = parsed.has("-i", "--interactive", "--stdin") or " compose exec" in label
        return _stdin(run(label, "remote", rest), call, interactive)
    if entrypoint.dynamic:
        return Unwrapped(notes=(f"{label} --entrypoint is dynamic: {entrypoint.raw}",))
    try:
        program = tuple(Word.literal(word) for word in shlex.split(entrypoint.value))
    except ValueError:
        program = (entrypoint,)
    return _stdin(run(label, "remote", (*program, *rest)), call, parsed.has("-i", "--interactive"))


def _stdin(found: Unwrapped, call: Call, interactive: bool) -> Unwrapped:
    """With `-i` the command in the container reads what the line gives the client on stdin
    (`docker exec -i db psql <<'SQL' ... SQL`)."""
    if not interactive or call.stdin is None:
        return found
    return Unwrapped(tuple(replace(inner, stdin=call.stdin) for inner in found.inners), found.notes)


def docker(call: Call) -> Unwrapped:
    name = call.name
    argv = call.argv
    index = parse(argv, 1, spec(name)).rest
    words = [word.value for word in argv[index : index + 3]]
    if words[:1] == ["container"] or words[:1] == ["compose"]:
        group = words[0]
        index += 1
        if group == "compose":  # compose's own options come before its subcommand
            index = parse(argv, index, spec(f"{name} compose")).rest
        words = [word.value for word in argv[index : index + 1]]
        if words and words[0] in ("run", "exec"):
            return _after_operand(call, index + 1, f"{name} {group} {words[0]}", f"{name} {group} {words[0]}")
        return NOTHING
    if words and words[0] in _RUNS:
        return _after_operand(call, index + 1, f"{name} {words[0]}", f"{name} {words[0]}")
    if words[:1] == ["unshare"] and name == "podman":  # the command runs here, in a user namespace
        return run("podman unshare", "child", argv[parse(argv, index + 1, spec("podman unshare")).rest :])
    return NOTHING


def kubectl(call: Call) -> Unwrapped:
    """`kubectl [global options] exec [options] pod -- cmd`; `run`/`debug`/`create job ... -- cmd`;
    `oc rsh pod cmd`."""
    argv = call.argv
    parsed = parse(argv, 1, spec(call.name if call.name == "kubectl" else "kubectl"))
    if parsed.unknown:
        return suffixes(call, 0, call.name)
    index = parsed.rest
    action = argv[index].value if index < len(argv) else ""
    if action == "rsh":  # `oc rsh [options] POD [cmd args]`
        return _after_operand(call, index + 1, "oc rsh", "oc rsh")
    if action not in ("exec", "run", "debug", "create"):
        return NOTHING
    values = [word.value for word in argv]
    if "--" in values[index:]:
        end = values.index("--", index)
        found = run(f"kubectl {action}", "remote", argv[end + 1 :])
        flags = values[index:end]
        interactive = any(
            v in ("-i", "--stdin") or (v.startswith("-") and not v.startswith("--") and "i" in v[1:])
            for v in flags
        )
        return _stdin(found, call, interactive)
    if action != "exec":
        return NOTHING
    return _after_operand(call, index + 1, "kubectl exec", "kubectl exec")


def heroku(call: Call) -> Unwrapped:
    """`heroku run [options] command args`: the dyno joins the words and runs them with bash."""
    argv = call.argv
    if len(argv) < 2 or argv[1].value not in ("run", "run:detached", "run:inside"):
        return NOTHING
    parsed = parse(argv, 2, spec("heroku run"))
    if parsed.unknown:
        return suffixes(call, parsed.rest - 1, "heroku run")
    return script("", "remote", argv[parsed.rest :], "heroku run command", via="heroku run")


HANDLERS: dict[str, Callable[[Call], Unwrapped]] = {
    "heroku": heroku,
    "docker": docker,
    "podman": docker,
    "nerdctl": docker,
    "kubectl": kubectl,
    "oc": kubectl,
}
