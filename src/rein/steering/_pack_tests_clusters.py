"""`kube-delete-beyond-pods`: a `kubectl delete` (or `oc delete`) that removes more than pods named one
by one: another kind of object (a namespace, a deployment, a volume claim), every object of a kind
(`--all`, `-A`), those a selector or a manifest picks (`-l`, `--field-selector`, `-f`, `-k`), or a raw
API path. `kubectl delete pod web-1 web-2` and `kubectl delete pod/web-1` name pods, which their
controller starts again: those an agent may delete on its own.

kubectl takes options anywhere, before the verb too (`kubectl -n prod delete ...`), so the argv is
read with the options that take a value. A word rein cannot read may be a flag (`--all`) or a kind,
so it makes the answer UNKNOWN where it could decide it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rein.steering._args import may_be_flag
from rein.steering._rule import Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, CommandRef, Word

_VALUED = frozenset(
    {
        "-n", "--namespace", "--context", "--cluster", "--user", "--kubeconfig", "-s", "--server",
        "--token", "--as", "--as-group", "--as-uid", "--request-timeout", "--certificate-authority",
        "--client-certificate", "--client-key", "--tls-server-name", "--cache-dir", "-v", "--v",
        "--vmodule", "--profile", "--profile-output", "--username", "--password", "--log-dir",
        "--log-file", "-o", "--output", "--grace-period", "--timeout", "--chunk-size", "--template",
        "-l", "--selector", "--field-selector", "-f", "--filename", "-k", "--kustomize", "--raw",
    }
)  # fmt: skip
"""kubectl's (and oc's) options that take the next word as their value: global ones and `delete`'s."""
_MANY = frozenset(
    {"--all", "-A", "--all-namespaces", "-l", "--selector", "--field-selector", "-f", "--filename", "-k",
     "--kustomize", "--raw"}
)  # fmt: skip
"""Options that pick the objects by something other than their names."""
_POD = frozenset({"po", "pod", "pods"})


@dataclass(slots=True)
class _Read:
    operands: list[Word] = field(default_factory=list)
    many: bool = False
    """An option that picks objects by something other than their names is there."""
    unread: list[int] = field(default_factory=list)
    """For each word rein cannot read that may be a flag, how many operands came before it."""


def kube_delete_beyond_pods(ref: CommandRef, context: Context) -> Tri:
    read = _read(ref.args)
    if not read.operands:
        return UNKNOWN if read.unread else False
    verb, targets = read.operands[0], read.operands[1:]
    if verb.value != "delete" or verb.dynamic:
        # a word before the verb that rein cannot read may be the verb itself
        return UNKNOWN if verb.dynamic or 0 in read.unread else False
    if read.many:
        return True
    maybe = UNKNOWN if read.unread else False  # one of them may be `--all`
    if not targets or 1 in read.unread:  # with no kind, or an unreadable word where the kind goes
        return maybe
    kinds = _kinds(targets)
    if kinds is None:
        return UNKNOWN
    if any(kind not in _POD for kind in kinds):
        return True
    return maybe


def _read(args: tuple[Word, ...]) -> _Read:
    read = _Read()
    skip = dashdash = False
    for word in args:
        value = word.value
        if skip:
            skip = False
        elif dashdash or not value.startswith("-") or value == "-":
            if may_be_flag(word) and not dashdash:
                read.unread.append(len(read.operands))
            else:
                read.operands.append(word)
        elif value == "--" and not word.dynamic:
            dashdash = True
        else:
            name = value.split("=", 1)[0] if value.startswith("--") else value[:2]
            literal = word.parts[0] if word.parts else value
            if word.dynamic and (not isinstance(literal, str) or len(literal) < len(name)):
                read.unread.append(len(read.operands))  # `-$X`, `--$NAME=x`: any option
                continue
            read.many = read.many or name in _MANY
            skip = name in _VALUED and name == value
    return read


def _kinds(targets: list[Word]) -> list[str] | None:
    """The kinds the targets name (`pod,svc web`; `pod/web deploy/api`); None where one is unreadable."""
    first = targets[0]
    if "/" not in first.value:
        if first.dynamic:
            return None
        return [kind.lower() for kind in first.value.split(",")]
    kinds: list[str] = []
    for word in targets:
        kind, slash, _ = word.value.partition("/")
        literal = word.parts[0] if word.parts else word.value
        if word.dynamic and (not isinstance(literal, str) or len(literal) <= len(kind)):
            return None
        kinds.append(kind.lower() if slash else f"{kind.lower()} (no kind)")  # kubectl refuses a mix
    return kinds
