"""The checkpoint errors.

CheckpointError          git could not snapshot or restore (its message names the store and git's words)
`-- TooManyFiles         the project holds more files outside .gitignore than a snapshot may take
"""

from __future__ import annotations


class CheckpointError(Exception):
    """A snapshot or a restore failed; the message says which store and what git said."""


class TooManyFiles(CheckpointError):
    """The project has more files than `MAX_FILES` outside its .gitignore: a snapshot would make every
    turn slow, so checkpoints stay off until the big directories are ignored."""
