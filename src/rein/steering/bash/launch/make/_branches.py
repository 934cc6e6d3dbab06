"""Conditionals for the make reader: rein cannot know which branch of an `ifeq`/`ifdef` make takes,
so it reads them all. Each branch starts from the variables as they were before the conditional;
after `endif` a variable may hold whatever any branch (or, without `else`, no branch) left it."""

from __future__ import annotations

from dataclasses import dataclass, field

from rein.steering.bash.launch._launch import RUNTIME
from rein.steering.bash.launch.make._expand import MAX_ALTERNATIVES, Value, Values


@dataclass(slots=True)
class Branches:
    """An open conditional: the variables before it, and at the end of each branch read so far."""

    before: dict[str, Values]
    done: list[dict[str, Values]] = field(default_factory=list)
    plain_else: bool = False

    def next_branch(self, table: dict[str, Values], *, plain: bool) -> None:
        """At `else` (`plain`) or `else ifeq ...`: the next branch starts from `before` again."""
        self.done.append(dict(table))
        table.clear()
        table.update(self.before)
        self.plain_else = self.plain_else or plain

    def close(self, table: dict[str, Values]) -> None:
        """At `endif`: every value any branch may have left, in `table`."""
        branches = [*self.done, dict(table), *([] if self.plain_else else [self.before])]
        names = dict.fromkeys(name for branch in branches for name in branch)
        table.clear()
        for name in names:
            table[name] = capped(tuple(value for branch in branches for value in branch.get(name, (None,))))


def capped(values: Values) -> Values:
    """The distinct values, or one unknown value when there are too many to follow."""
    unique = tuple(dict.fromkeys(values))
    if len(unique) <= MAX_ALTERNATIVES:
        return unique
    return (Value(RUNTIME, False, "a make variable has too many possible values"),)
