"""Every block's reason tells the agent what to do instead, so it does not retry the same command: at
least one full sentence, and one that offers an alternative (use, run, write, split, ask the user).

Every rule rein ships (defaults, opt-in rules, plugins' rules) must have a command here that makes it
fire, so a new rule cannot land with a reason that only says no."""

from __future__ import annotations

import re

import pytest

from rein.steering import (
    DEFAULT_RULES,
    Context,
    Matcher,
    MemoryEntries,
    Rule,
    Steering,
    ToolCall,
    Verdict,
    build_policy,
)
from rein.steering._defaults import OPTIONAL_RULES
from rein.steering._policy import DEFAULT_PLUGINS, Layer

SAMPLES: dict[str, str] = {
    "no-force-push": "git push --force origin main",
    "no-reset-hard": "git reset --hard HEAD~1",
    "no-rm-root": "rm -rf ~",
    "no-git-clean-force": "git clean -fdx",
    "no-checkout-discard": "git checkout -- src/app.py",
    "no-restore-worktree": "git restore src/app.py",
    "no-branch-force-delete": "git branch -D old",
    "no-stash-drop": "git stash clear",
    "no-dev-server": "npm run dev",
    "no-background-server": "npm run dev &",
    "no-main-commit": "git commit -m wip",
    "unknown": 'eval "$CLEANUP"',
    "unparsed": "if then fi (((",
    "budget": "echo " + "$(echo " * 70 + "x" + ")" * 70,
}
"""A command that makes each rule (and each of rein's own verdicts) block, from `main`."""

_ALTERNATIVE = re.compile(
    r"\b(?:use|run|write|rewrite|split|ask the user|push normally|remove|create|commit|leave|start|"
    r"stash|check|fix|instead)\b",
    re.IGNORECASE,
)
_TAG = re.compile(r"^\[steering:[^\]]+\] ")


def rein_rules() -> list[str]:
    names = [rule.name for rule in DEFAULT_RULES]
    names += [rule.name for plugin in DEFAULT_PLUGINS for rule in plugin.rules]
    return [*names, *OPTIONAL_RULES, "unknown", "unparsed", "budget"]


def test_every_rule_rein_ships_has_a_sample() -> None:
    assert sorted(set(rein_rules()) - set(SAMPLES)) == []


def verdict_of(name: str) -> Verdict:
    layer = Layer(file="/p/.rein/steering.toml", enabled_rules=frozenset(OPTIONAL_RULES))
    engine = Steering(build_policy([layer]).policy)
    context = Context(cwd="/home/dev/project", home="/home/dev", branch="main", entries=MemoryEntries())
    return engine.evaluate(ToolCall(tool="bash", command=SAMPLES[name]), context)


@pytest.mark.parametrize("name", rein_rules())
def test_a_reason_is_a_sentence_with_an_alternative(name: str) -> None:
    verdict = verdict_of(name)
    assert not verdict.allow and verdict.rule == name, verdict.reason
    text = _TAG.sub("", verdict.reason)
    sentences = [part for part in re.split(r"(?<=[.!?])\s+", text) if part.strip()]
    assert len(text) >= 60 and len(sentences) >= 2, text
    assert any(_ALTERNATIVE.search(sentence) for sentence in sentences), f"no alternative in: {text}"


def test_an_unknown_tool_says_what_to_do() -> None:
    # Any tool may have rules now (an MCP server's, an extension's, issue 37): one no rule names runs;
    # a command under a name that is not bash, and a call rein fails to read, are blocked with what to do.
    engine = Steering(build_policy([]).policy)
    context = Context(cwd="/p", home="/h", entries=MemoryEntries())
    verdict = engine.evaluate(ToolCall(tool="shell", command="ls"), context)
    assert not verdict.allow and verdict.rule == "error"  # a command under an unknown name
    assert _ALTERNATIVE.search(verdict.reason), verdict.reason
    assert engine.evaluate(ToolCall(tool="shell", args={"command": "ls"}), context).allow
    rule = Rule(name="any", source="user", reason="No.", tool="shell", field="x", matcher=Matcher())
    engine = Steering(build_policy([Layer(file="team.toml", rules=(rule,))]).policy)
    verdict = engine.evaluate(ToolCall(tool="shell", args=_Unreadable()), context)
    assert not verdict.allow and verdict.rule == "error"
    assert _ALTERNATIVE.search(verdict.reason), verdict.reason


class _Unreadable(dict[str, object]):
    def __contains__(self, key: object) -> bool:
        raise RuntimeError("unreadable arguments")
