"""What the option tables are written with: a block of long option names, and the shape of a runner."""

from __future__ import annotations

from collections.abc import Mapping

from rein.steering.bash.commands._options import Arity, Options, long_options


def words(block: str) -> tuple[str, ...]:
    """The names in a block, separated by blanks and newlines."""
    return tuple(block.split())


def longs(names: str) -> Mapping[str, Arity]:
    """A long-option table from a block of names: `repo=` takes a value (`--repo x` or `--repo=x`),
    `signed?` only an attached one (`--signed=yes`), `force` none."""
    return long_options(*words(names))


RUNNER = Options(permute=False, abbreviate=False)
"""A command that runs the rest of its argv and has no option that takes a value (`nohup`, `unbuffer`)."""
