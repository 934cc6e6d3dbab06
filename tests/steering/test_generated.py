"""Generated cases: every blocked command of the defaults, nested in every runner of the command model
and mutated the ways an adversary would, stays blocked by its rule; and no input crashes the engine.

The runner spellings come from the model itself (`EXAMPLES`), so a runner added to the model without a
spelling here fails `test_every_runner_has_a_spelling`.
"""

from __future__ import annotations

import itertools
import shlex

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rein.steering.bash.commands import RUNNERS
from rein.steering.bash.commands._examples import EXAMPLES
from tests.steering.conftest import Check

SEEDS = [
    ("git push --force", "no-force-push"),
    ("git push origin +main", "no-force-push"),
    ("git reset --hard", "no-reset-hard"),
    ("rm -rf /", "no-rm-root"),
    ("rm -rf ~", "no-rm-root"),
    ("git clean -fdx", "no-git-clean-force"),
    ("git checkout -- .", "no-checkout-discard"),
    ("git restore src/app.py", "no-restore-worktree"),
    ("git branch -D old", "no-branch-force-delete"),
    ("git stash clear", "no-stash-drop"),
    ("npm run dev", "no-dev-server"),
]
NOT_NESTABLE = {"builtin", "coproc"}
"""`builtin` only runs shell builtins; `coproc` is not understood at all (it blocks as unparsed)."""


def fill(template: str, command: str) -> str:
    quote = shlex.quote
    return template.format(
        cmd=command,
        quoted=quote(command),
        sed=quote(f"e {command}"),
        awk=quote(f'BEGIN {{ system("{command}") }}'),
        python=quote(f"import os; os.system({command!r})"),
        literal=repr(command),
        node=quote(f"require('child_process').execSync({command!r})"),
        perl=quote(f"system({command!r})"),
        ruby=quote(f"system({command!r})"),
        php=quote(f"system({command!r});"),
        make="$'x:\\n\\t" + command.replace("\\", "\\\\").replace("'", "\\'") + "'",
        bang=quote(f"!{command}"),
        spawn=quote(f"spawn {command}"),
    )


TEMPLATES = [(name, template) for name, spellings in EXAMPLES.items() for template in spellings]


def test_every_runner_has_a_spelling() -> None:
    assert set(RUNNERS) - NOT_NESTABLE <= set(EXAMPLES)


@pytest.mark.parametrize(("runner", "template"), TEMPLATES, ids=[t for _, t in TEMPLATES])
@pytest.mark.parametrize(("seed", "rule"), SEEDS, ids=[s for s, _ in SEEDS])
def test_a_blocked_command_stays_blocked_in_every_runner(
    check: Check, runner: str, template: str, seed: str, rule: str
) -> None:
    if _bounded(template, rule):
        assert check(fill(template, seed)).allow  # a dev server under `timeout` ends: the shell does not hang
        return
    blocked_by(check, fill(template, seed), rule)


_DETACHING = ("setsid -f ", "tmux send-keys", "tmux split-window", "screen -S job -X stuff")


def _bounded(template: str, rule: str) -> bool:
    """`timeout N cmd` ends cmd after N seconds, and a runner that detaches it does not hold the shell:
    a server under either does not hang the agent (`no-background-server` is the opt-in for these)."""
    return rule == "no-dev-server" and (template.startswith("timeout ") or template.startswith(_DETACHING))


def blocked_by(check: Check, command: str, rule: str) -> None:
    """The command is blocked, and its nested command by `rule` (a runner that is itself a dev server,
    `nodemon --exec`, may be the one that decides)."""
    verdict = check(command)
    assert not verdict.allow, f"{command!r} was allowed"
    decided = {decision.rule for decision in verdict.decisions}
    assert rule in decided, f"{command!r}: {verdict.reason}"


def _abbreviations(command: str) -> list[str]:
    """Each long option cut to every unique-looking prefix of four or more letters."""
    out: list[str] = []
    for word in command.split():
        if word.startswith("--") and len(word) > 6:
            out += [command.replace(word, word[:length], 1) for length in range(6, len(word))]
    return out


def _quotings(command: str) -> list[str]:
    words = command.split()
    head, rest = words[0], " ".join(words[1:])
    return [
        f"'{head}' {rest}",
        f'"{head}" {rest}',
        f"{head[0]}\\{head[1:]} {rest}",
        f"{head[0]}''{head[1:]} {rest}",
        f"$'{head}' {rest}",
        "$'" + "".join(f"\\x{ord(c):02x}" for c in head) + f"' {rest}",
        " ".join(f"'{word}'" if word != "~" else word for word in words),  # a quoted '~' is a folder
        f"/usr/bin/{head} {rest}",
        f"/usr/local/bin/../../bin/{head} {rest}",
        f"{head} {rest}".replace(" ", " \\\n ", 1),
        f"X={head}; $X {rest}",
        f'a=({head} {rest}); "${{a[@]}}"',
    ]


MUTATIONS = [(mutated, rule) for seed, rule in SEEDS for mutated in _quotings(seed) + _abbreviations(seed)]


@pytest.mark.parametrize(("command", "rule"), MUTATIONS, ids=[m for m, _ in MUTATIONS])
def test_a_mutated_blocked_command_stays_blocked(check: Check, command: str, rule: str) -> None:
    verdict = check(command)
    assert not verdict.allow, f"{command!r} was allowed"
    assert verdict.rule == rule, f"{command!r}: {verdict.reason}"


def _argv_style(template: str) -> bool:
    """`{cmd}` stands as words of the command line, not inside a quoted string of a program (where a
    command with quotes of its own would not be one string any more)."""
    if "{cmd}" not in template or "\n" in template:
        return False
    before = template.split("{cmd}", maxsplit=1)[0]
    return before.count("'") % 2 == 0 and before.count('"') % 2 == 0


_ARGV_TEMPLATES = [template for _, template in TEMPLATES if _argv_style(template)]
_ALL_PAIRS = list(itertools.product(_ARGV_TEMPLATES, repeat=2))
PAIRS = _ALL_PAIRS[:: max(1, len(_ALL_PAIRS) // 300)]
"""About 300 pairs, spread over all of them, the same on every run."""


@pytest.mark.parametrize(("outer", "inner"), PAIRS, ids=[f"{o} / {i}" for o, i in PAIRS])
def test_two_runners_nested_still_block(check: Check, outer: str, inner: str) -> None:
    for seed, rule in SEEDS[:4]:
        if not (_bounded(outer, rule) or _bounded(inner, rule)):
            blocked_by(check, fill(outer, fill(inner, seed)), _through(outer, inner, rule))


_OUTPUT_ELSEWHERE = ("yarn exec ", "adb exec-out ", "adb shell ")
"""Runners whose output rein cannot read: yarn v1's `exec` runs its words through a shell (the
`'* * * * *'` an inner template quotes become globs there), adb runs them on a device."""


def _through(outer: str, inner: str, rule: str) -> str:
    """The rule that decides a nested pair: where the inner template pipes the outer runner's output
    into a reader of commands (`| crontab -`) and that output is not known, rein cannot tell what the
    reader gets, and `unknown` decides."""
    return "unknown" if "| crontab" in inner and outer.startswith(_OUTPUT_ELSEWHERE) else rule


_seed = st.sampled_from(SEEDS)
_wrap = st.lists(st.sampled_from(_ARGV_TEMPLATES), max_size=3)
_mutate = st.sampled_from(["none", "quote", "backslash", "path", "variable"])


def _mutated(command: str, how: str) -> str:
    head, _, rest = command.partition(" ")
    return {
        "none": command,
        "quote": f"'{head}' {rest}",
        "backslash": f"{head[0]}\\{head[1:]} {rest}",
        "path": f"/usr/bin/{head} {rest}",
        "variable": f"C={head}; $C {rest}",
    }[how]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=_seed, wrappers=_wrap, how=_mutate)
def test_hypothesis_finds_no_allow_of_a_seeded_dangerous_command(
    check: Check, seed: tuple[str, str], wrappers: list[str], how: str
) -> None:
    assume(not any(_bounded(template, seed[1]) for template in wrappers))
    command = _mutated(seed[0], how)
    for template in wrappers:
        command = fill(template, command)
    verdict = check(command)
    assert not verdict.allow, f"{command!r} was allowed"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.lists(
        st.sampled_from([*"ab $'\"\\;&|(){}<>`=-*~/\n\t#!", "rm", "git", "-rf", "eval", "bash -c ", "<<EOF"]),
        max_size=40,
    ).map("".join)
)
def test_hypothesis_finds_no_crash(check: Check, text: str) -> None:
    verdict = check(text)
    assert verdict.allow in (True, False)
    assert verdict.allow or verdict.reason.startswith("[steering:")
