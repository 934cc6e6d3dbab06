"""Shared helpers for the task readers' tests."""

from __future__ import annotations

from rein.steering.bash.tasks import TaskPlan


def scripts(plan: TaskPlan) -> list[str]:
    """The scripts of a plan that has no unknown part."""
    assert not plan.unknown, plan.unknown
    return [command.script for command in plan.commands]


def lines(plan: TaskPlan) -> list[tuple[int, str]]:
    return [(command.line, command.script) for command in plan.commands]
