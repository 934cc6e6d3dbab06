"""`Program`: where an interpreter or shell takes its program from, as each option reader returns it."""

from __future__ import annotations

from dataclasses import dataclass

from rein.steering.bash.model import Word


@dataclass(frozen=True, slots=True)
class Program:
    """Where an interpreter or shell takes its program from."""

    language: str
    code: tuple[Word, ...] = ()
    """Inline program text (`-c`, `-e`; several, as perl, ruby, node and gawk take, joined by newlines)."""
    script: Word | None = None
    """The script operand, when the program is a file."""
    module: Word | None = None
    """`python -m module`: the module run as the program."""
    rest: int = 0
    """Index of the first argument passed to the program (after `-m module`)."""
    files: tuple[Word, ...] = ()
    """More program files read along with the code or script (`gawk -f a.awk -f b.awk`, `gawk -e X -f
    lib.awk`): each is read like the script."""
    dialect: str = ""
    """A tool whose program is the language with more in it: "ipython" (`!cmd` lines run a shell),
    "rake" (its `sh` runs a command line)."""

    @property
    def from_stdin(self) -> bool:
        return (
            not self.code
            and not self.files
            and self.module is None
            and (self.script is None or self.script.value == "-")
        )
