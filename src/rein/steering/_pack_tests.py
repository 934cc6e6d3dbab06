"""The structural tests pack files name (`test = "system-path"`): what a pack's fields cannot say as
data. Each answers True, False, or UNKNOWN where a word rein cannot read could decide."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rein.steering._defaults._rm import root_risk
from rein.steering._pack_tests_clusters import kube_delete_beyond_pods
from rein.steering._pack_tests_hosting import deletes_default_branch
from rein.steering._pack_tests_system import disk_device, kills_everything, recursive_system_path
from rein.steering._rule import RefTest, Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, CommandRef, Unknown

_OWNER_FIRST = frozenset({"chmod", "chown", "chgrp"})
"""Tools whose first operand is a mode or an owner, not a path (unless `--reference` names one)."""
_VALUED = {"setfacl": frozenset({"-m", "-M", "-x", "-X", "--modify", "--remove", "--set", "--set-file"})}
"""Options whose next word is a value, not a path."""


def system_path(ref: CommandRef, context: Context) -> Tri:
    """Some path operand is `/`, a directory right under it, the home directory (or its parent), or
    every entry of one of them, read as `no-rm-root` reads a target."""
    valued = _VALUED.get(ref.name, frozenset())
    operands = []
    skip = dashdash = False
    for word in ref.args:
        value = word.value
        if skip:
            skip = False
        elif not dashdash and value == "--":
            dashdash = True
        elif not dashdash and value.startswith("-") and not word.dynamic:
            skip = value in valued
        else:
            operands.append(word)
    reference = any(word.value.startswith("--reference") for word in ref.args)
    if ref.name in _OWNER_FIRST and not reference:
        operands = operands[1:]
    risks = [root_risk(word, ref, context) for word in operands]
    if True in risks:
        return True
    return UNKNOWN if any(isinstance(risk, Unknown) for risk in risks) else False


def fork_bomb(ref: CommandRef, context: Context) -> Tri:
    """A function that calls itself in the background (`:(){ :|:& };:`, `b(){ b & b; }; b`): each
    call leaves another running, so processes multiply until the machine stops. The walker follows
    such a function a few levels deep, and the calls it records show the shape."""
    return ref.via == "function" and ref.background and ref.name in ref.wrappers


TESTS: Mapping[str, RefTest] = MappingProxyType(
    {
        "system-path": system_path,
        "fork-bomb": fork_bomb,
        "kube-delete-beyond-pods": kube_delete_beyond_pods,
        "disk-device": disk_device,
        "kills-everything": kills_everything,
        "recursive-system-path": recursive_system_path,
        "default-branch-delete": deletes_default_branch,
    }
)
"""Named tests a pack's rule may use, by name."""
