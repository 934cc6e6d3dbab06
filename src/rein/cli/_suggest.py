"""A mistyped subcommand is not a prompt: `rein sesions`, `rein chek -- ls`, `rein serv --port 1` say
"unknown command" with the nearest one and exit 2, where they would have started a model session with
that text. Loaded only on the agent's path (a hook never pays for it)."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Sequence

CUTOFF = 0.8
"""difflib's similarity: `sesions`/`sessions` 0.93, `chek`/`check` 0.89, `hok`/`hook` 0.86; a word
of a prompt such as `fix` or `hello` is far below it."""


def mistyped(args: Sequence[str], commands: Sequence[str]) -> str | None:
    """The command `args[0]` looks like a typo of, when nothing after it reads as a sentence: it is
    alone, or options follow it (`--port 1`, `-- ls`). Else None: the words are the agent's prompt."""
    if not args or not args[0].isalpha() or not args[0].islower():
        return None
    if len(args) > 1 and not args[1].startswith("-"):
        return None  # `rein expert advice`: a sentence
    found = difflib.get_close_matches(args[0], commands, n=1, cutoff=CUTOFF)
    return found[0] if found else None


def refuse(word: str, command: str) -> int:
    print(
        f"rein: unknown command {word!r}; did you mean {command!r}? "
        f"(to send it to the agent as a prompt: rein -- {word})",
        file=sys.stderr,
    )
    return 2
