"""What a task runner would run: pure readers from a task file's text to the commands one task runs,
in the order the runner runs them, each with the line it is written on.

`just_recipe`, `taskfile_task`, `tox_commands`, `nox_sessions`, `poe_task` and `mise_task` read a
justfile, a go-task Taskfile, a tox configuration, a noxfile, poethepoet tasks and mise TOML tasks
(each module's docstring says what it reads, after the runner's documentation). Every reader:

- is pure: no I/O. A file the runner also reads (a justfile `import`/`mod`, a Taskfile `includes`,
  a poe `include`, a mise `file = ...` script) is named in `TaskPlan.includes`, as a path relative
  to the called file's directory; while it is not given, the plan says so in `unknown`. Read the
  files and call again with `files={path: text}` (None: the file does not exist), until every
  include is given: a call may name more (an include's own includes).
- is bounded: more than `MAX_TEXT` characters in all, or more than `MAX_STEPS` tasks, templates and
  includes followed, is an `unknown` reason, never a hang.
- never raises: a file that does not parse is a plan whose `unknown` says so; a bug in a reader is
  caught and reported the same way (fail closed).

A task that does not exist is an empty plan (the runner stops with an error and runs nothing). A
part of a command only known at run time is the text `RUNTIME`, which the bash walker reads as a
variable it cannot know; `unknown` is for what the reader cannot follow at all.
"""

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.tasks._just import just_recipe
from rein.steering.bash.tasks._mise import mise_task
from rein.steering.bash.tasks._nox import nox_sessions
from rein.steering.bash.tasks._plan import MAX_STEPS, MAX_TEXT, TaskCommand, TaskPlan
from rein.steering.bash.tasks._poe import poe_task
from rein.steering.bash.tasks._taskfile import taskfile_task
from rein.steering.bash.tasks._tox import tox_commands

__all__ = [
    "MAX_STEPS",
    "MAX_TEXT",
    "RUNTIME",
    "TaskCommand",
    "TaskPlan",
    "just_recipe",
    "mise_task",
    "nox_sessions",
    "poe_task",
    "taskfile_task",
    "tox_commands",
]
