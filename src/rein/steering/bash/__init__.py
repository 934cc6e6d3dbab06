"""Bash analysis: every command a command line would execute, in order, with its shell state.

`analyze` parses with tree-sitter-bash, extracts one `CommandRef` per executed command (through
chains, groups, substitutions, functions, heredocs fed to shells, and wrappers such as `sudo`,
`bash -c`, `find -exec`, `eval`, `ssh`), gives each its canonical argv and the cwd, env and tracker
values at its position, and reports whatever it did not understand as `problems`.
"""

from rein.steering.bash._analyze import analyze
from rein.steering.bash._branch import BranchTracker
from rein.steering.bash.model import (
    EMPTY_ENV,
    UNKNOWN,
    Analysis,
    Bounded,
    BoundKind,
    Code,
    CommandKind,
    CommandRef,
    Env,
    Expansion,
    ExpansionKind,
    State,
    Stdin,
    Tracker,
    Unknown,
    Word,
    WordPart,
)

__all__ = [
    "EMPTY_ENV",
    "UNKNOWN",
    "Analysis",
    "BoundKind",
    "Bounded",
    "BranchTracker",
    "Code",
    "CommandKind",
    "CommandRef",
    "Env",
    "Expansion",
    "ExpansionKind",
    "State",
    "Stdin",
    "Tracker",
    "Unknown",
    "Word",
    "WordPart",
    "analyze",
]
