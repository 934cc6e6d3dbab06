"""What the Perl, Ruby and PHP readers all promise, as one language's examples of each behaviour:
test_script_readers.py checks every language against it; each language's own test module holds its
examples, as constants named for the fields (`SHELL`, `ARGV`, ...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from types import ModuleType

from rein.steering.bash.launch import Launch

Argv = tuple[str | None, ...]


@dataclass(frozen=True)
class ScriptContract:
    language: str
    shell: Sequence[tuple[str, str, str]]
    """(code, api, shell): one string runs through a shell."""
    argv: Sequence[tuple[str, str, tuple[str, ...]]]
    """(code, api, argv): a list is an argv; a removal is the `rm` it amounts to."""
    folds: Sequence[tuple[str, str]]
    """(code, shell): `system` of a string the language's quoting, escapes and variables build."""
    holes: Sequence[tuple[str, str]]
    """(code, shell): a shell line with a part built at run time."""
    unknown: Sequence[tuple[str, str]]
    """(code, api): a launch nothing is known about."""
    nothing: Sequence[str]
    """Code that only looks like code that launches: its strings are data."""
    evals: Sequence[tuple[str, list[tuple[str, str]]]]
    """(code, [(api, shell)]): code in a literal string, read again as the language."""
    nested_eval: str
    """`system('ls')` inside twelve evals: deeper than rein reads."""
    lines: str
    """`ls` on line 3, `pwd` eval'd on line 4, `id` on line 5."""
    argv_hole: tuple[str, Argv]
    """An argv with one element built at run time: known, the element None."""
    argv_spread: tuple[str, Argv]
    """An argv spread from a list built at run time: how many arguments is unknown."""
    argv_program: tuple[str, Argv]
    """An argv whose program is built at run time: unknown."""
    broken: Sequence[str]
    """Programs that do not parse and mention a process API."""
    broken_quiet: str
    """A program that does not parse and mentions none."""
    broken_partial: Sequence[str]
    """Programs that do not parse after `system` of "git push -f" on line 1."""
    growing: Sequence[str]
    """Values that double sixty times."""
    pieces: Sequence[str]
    """Bits of the language that random programs are made of."""
    loops: Sequence[tuple[str, list[str]]]
    """(code, shells): a call in a loop over a known list, once per value."""
    changing_loops: Sequence[str]
    """Loops whose variable may change: read as built at run time."""
    removals: Sequence[tuple[str, str, tuple[str, ...]]]
    """(code, api, argv): removals of paths the language computes."""
    env_removal: tuple[str, dict[str, str], Launch]
    """A removal of an environment variable's path: that launch with the variable known, data without."""
    env_shell: tuple[str, dict[str, str]]
    """A shell line from an environment variable: `ls` with it known, unknown without."""

    @classmethod
    def of(cls, module: ModuleType) -> ScriptContract:
        """The contract a language's test module fills with its constants."""
        return cls(**{field.name: getattr(module, field.name.upper()) for field in fields(cls)})


def nested(code: str, wrap: Callable[[str], str]) -> str:
    """`code` inside twelve evals."""
    for _ in range(12):
        code = wrap(code)
    return code
