"""What a block tells the agent: the tagged reason of a rule that fired, of the catch-all for commands
rein cannot read, and whether (and how) the user lets an override lift it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from rein.steering._pattern import TIMEOUT
from rein.steering._rule import Rule
from rein.steering.bash import CommandRef, Expansion


class Overridable(Protocol):
    """What a reason needs of the policy: whether an override comment may lift a rule."""

    def allows_override(self, rule: Rule) -> bool: ...


@dataclass(slots=True)
class Fired:
    rule: Rule
    ref: CommandRef | None
    unknown: bool
    timed_out: bool = False


def _tag(rule: Rule) -> str:
    return f"[steering:{rule.name}@{rule.source}]"


def rule_reason(fired: Fired, policy: Overridable, overrides: Mapping[str, str]) -> str:
    rule = fired.rule
    text = f"{_tag(rule)} {rule.reason}"
    if fired.ref is not None and fired.ref.rewritten:
        text += f" ({'; '.join(fired.ref.rewritten)})"
    if fired.ref is not None and fired.ref.origin:
        text += f" (`{fired.ref.text}` runs from {fired.ref.origin})"
    if fired.timed_out:
        text += (
            f" (this rule's pattern ran past rein's {TIMEOUT * 1000:.0f} ms limit on this command, so"
            " whether it applies is not known and it blocks; make the pattern simpler)"
        )
    elif fired.unknown:
        command = fired.ref.text if fired.ref else ""
        text += (
            f" (rein could not tell statically whether this rule applies to `{command}`:"
            f" {_unknowable(fired.ref)}, so it {'asks' if rule.verdict == 'ask' else 'blocks'}; write"
            " the command with literal values)"
        )
    if rule.verdict == "ask":
        text += (
            " This needs the user's approval: where the user can be asked, they are; where nobody can"
            " answer, it is not run."
        )
    return text + _override_hint(rule, policy, overrides)


def _override_hint(rule: Rule, policy: Overridable, overrides: Mapping[str, str]) -> str:
    """The override recipe, for a rule the person made overridable; for any other rule an agent tried
    to override, that the comment does not lift it (so it stops trying)."""
    if policy.allows_override(rule):
        return f" To proceed anyway, add the comment: # steering-override: {rule.name} - <why>"
    if rule.name in overrides:
        return " An override comment does not lift this rule: only the user's configuration can."
    return ""


def _unknowable(ref: CommandRef | None) -> str:
    """What about a command rein could not know, as a clause."""
    if ref is not None and ref.unknown:
        return "; ".join(ref.unknown)
    if ref is not None:
        options = [word.raw for word in ref.argv if word.parts and _is_option(word.parts[0])]
        if options:
            listed = ", ".join(f"`{word}`" for word in dict.fromkeys(options))
            return f"{listed} abbreviates more than one option"
        words = [word.raw for word in ref.argv if word.dynamic]
        if words:
            listed = ", ".join(f"`{word}`" for word in dict.fromkeys(words))
            return f"the value of {listed} is only known at run time"
    return "a value it needs is only known at run time"


def _is_option(part: object) -> bool:
    """An abbreviation that fits several long options (`git push --forc`)."""
    return isinstance(part, Expansion) and part.kind == "option"


UNKNOWN_RULE = Rule(
    name="unknown",
    source="rein",
    reason="rein cannot tell what this command runs, and a rule may apply to it, so it is not run.",
    origin="rein",
)
"""Decides a command whose content is only known at run time (`eval "$X"`, `bash -c "$CMD"`)."""


def unknown_reason(fired: Fired, policy: Overridable, overrides: Mapping[str, str]) -> str:
    ref = fired.ref
    text = f"{_tag(UNKNOWN_RULE)} rein cannot tell what `{ref.text if ref else ''}` runs: {_unknowable(ref)}."
    if ref is not None and ref.origin:
        text += f" It runs from {ref.origin}."
    text += (
        " What it runs may be a command a rule blocks, so it is not run."
        " Write the command with literal values, or run the parts separately."
    )
    return text + _override_hint(UNKNOWN_RULE, policy, overrides)
