"""Shared reading for the command-model tests: what a command line runs, as (text, wrapper chain)."""

from __future__ import annotations

from rein.steering.bash import Analysis
from tests.steering.bash.helpers import run


def inner(source: str) -> list[str]:
    """The commands the line's runners run, each as its canonical text (the outer commands left out)."""
    return [ref.text for ref in run(source).refs if ref.wrappers or ref.via]


def chains(source: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each command a runner runs, with the wrapper chain that led to it."""
    return [(ref.text, ref.wrappers) for ref in run(source).refs if ref.wrappers or ref.via]


def unknown(source: str) -> tuple[str, ...]:
    """Why the first command of the line is not known statically (empty when it is)."""
    return run(source).refs[0].unknown


def analysed(source: str) -> Analysis:
    analysis = run(source)
    assert analysis.problems == (), analysis.problems
    return analysis
