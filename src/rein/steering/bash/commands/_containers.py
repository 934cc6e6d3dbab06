"""Containers, pods and hosted machines: `docker`/`podman` `run`/`exec` (also `container run`, `compose
run`/`exec`), `kubectl exec`/`run`, `heroku run`. The command runs elsewhere (its cwd and branch are
unknown), but a rule still applies to it: `docker exec app rm -rf /` is checked like `rm -rf /`."""

from __future__ import annotations

from collections.abc import Callable

from rein.steering.bash.commands._inner import NOTHING, Call, Unwrapped, run, script
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._suffix import suffixes
from rein.steering.bash.commands._tables import spec

_RUNS = {"run": 1, "exec": 1, "create": 1}
"""Subcommands that take a command after one operand (the image or the container)."""


def _after_operand(call: Call, index: int, key: str, label: str) -> Unwrapped:
    """The command after the options and one operand (`docker exec [opts] ctr cmd args`)."""
    parsed = parse(call.argv, index, spec(key))
    if parsed.unknown:
        return suffixes(call, parsed.rest, label)
    return run(label, "remote", call.argv[parsed.rest + 1 :])


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
    return NOTHING


def kubectl(call: Call) -> Unwrapped:
    """`kubectl [global options] exec [options] pod -- cmd`; `run`/`debug ... -- cmd`."""
    argv = call.argv
    parsed = parse(argv, 1, spec(call.name if call.name == "kubectl" else "kubectl"))
    if parsed.unknown:
        return suffixes(call, 0, call.name)
    index = parsed.rest
    action = argv[index].value if index < len(argv) else ""
    if action not in ("exec", "run", "debug"):
        return NOTHING
    values = [word.value for word in argv]
    if "--" in values[index:]:
        return run(f"kubectl {action}", "remote", argv[values.index("--", index) + 1 :])
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
