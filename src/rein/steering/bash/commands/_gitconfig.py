"""git configuration as one git command sees it: what the command line set with `git config`, the
`-c` and `--config-env` options, and the `GIT_CONFIG_*` environment; which keys hold commands git runs;
and what a `git config` command changes."""

from __future__ import annotations

from collections.abc import Iterator

from rein.steering.bash.commands._git_tables import GIT_GLOBAL
from rein.steering.bash.commands._inner import Argv, Call, Value
from rein.steering.bash.commands._options import Options, long_options, parse
from rein.steering.bash.model import UNKNOWN, Unknown, Word

ANY_KEY = "*"
"""Set when the line wrote a configuration key rein cannot know: any key may hold anything."""

COMMAND_ENV = (
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "PAGER",
    "VISUAL",
    "EDITOR",
)
"""Environment variables holding a command git runs (a pager, an editor, a password prompt)."""

_COMMAND_KEYS = frozenset({
    "core.sshcommand", "core.pager", "core.editor", "core.askpass", "core.fsmonitor", "sequence.editor",
    "diff.external", "gpg.program", "interactive.difffilter", "uploadpack.packobjectshook",
})  # fmt: skip
_COMMAND_SUFFIXES = (".command", ".textconv", ".driver", ".clean", ".smudge", ".process", ".program")
_COMMAND_PREFIXES = ("pager.", "diff.", "merge.", "filter.", "gpg.", "difftool.", "mergetool.")


def key_of(name: str) -> str:
    """A key as git compares it: section and variable name ignore case, a subsection does not."""
    section, _, rest = name.partition(".")
    middle, _, variable = rest.rpartition(".")
    return f"{section.lower()}.{middle}.{variable.lower()}" if middle else name.lower()


def is_command_key(key: str) -> bool:
    """Whether git runs the value of `key` as a shell command (`core.pager`, `diff.x.command`, ...)."""
    if key in _COMMAND_KEYS:
        return True
    if (key.startswith("credential.") and key.endswith(".helper")) or key == "credential.helper":
        return True
    return key.startswith(_COMMAND_PREFIXES) and (key.startswith("pager.") or key.endswith(_COMMAND_SUFFIXES))


class Config:
    """The configuration one git command reads (the part this command line decides)."""

    def __init__(self, values: dict[str, Value], any_key: bool, given: frozenset[str]) -> None:
        self._values = values
        self._any_key = any_key
        self.given = given
        """Keys set on this command itself (`-c`), as opposed to earlier in the line."""

    def get(self, key: str) -> Value | None:
        """The value of `key`; None when this command line did not set it, UNKNOWN when it may have."""
        value = self._values.get(key)
        return UNKNOWN if value is None and self._any_key else value

    def items(self) -> Iterator[tuple[str, Value]]:
        return iter(self._values.items())


def config_view(call: Call) -> Config:
    values: dict[str, Value] = {key: value for key, value in call.git_config.items() if key != ANY_KEY}
    any_key = ANY_KEY in call.git_config
    env = call.state.env
    count = env.get("GIT_CONFIG_COUNT")
    if isinstance(count, Unknown):
        any_key = True
    elif count is not None and count.isdigit():
        for number in range(min(int(count), 64)):
            key, value = env.get(f"GIT_CONFIG_KEY_{number}"), env.get(f"GIT_CONFIG_VALUE_{number}", UNKNOWN)
            if isinstance(key, str):
                values[key_of(key)] = value
            else:
                any_key = True
    if "GIT_CONFIG_PARAMETERS" in env:
        any_key = True  # git's own quoting of -c pairs: not read, so anything may be set
    parsed = (
        parse(call.argv, 1, GIT_GLOBAL)
        if any(word.value.startswith("-") for word in call.argv[1:2])
        else None
    )
    given: set[str] = set()
    for name, word in parsed.options if parsed is not None else ():
        if word is None or name not in ("-c", "--config-env"):
            continue
        text = _literal(word)
        head = word.parts[0] if word.parts else word.value
        if text is None and (not isinstance(head, str) or "=" not in head):
            any_key = True  # the key itself is only known at run time
            continue
        key, eq, value = (text or word.value).partition("=")
        given.add(key_of(key))
        if text is None:
            values[key_of(key)] = UNKNOWN
        elif name == "-c":
            values[key_of(key)] = value if eq else "true"
        else:
            values[key_of(key)] = env.get(value, UNKNOWN)
    return Config(values, any_key, frozenset(given))


def _literal(word: Word) -> str | None:
    """The word's text when nothing in it is expanded (a glob that matches no file stays as written,
    as in `remote.origin.push=+refs/heads/*:refs/heads/*`); None otherwise."""
    if not word.dynamic:
        return word.value
    parts = [
        part if isinstance(part, str) else part.raw if part.kind == "glob" else None for part in word.parts
    ]
    return None if None in parts else "".join(part for part in parts if part is not None)


_CONFIG = Options(
    short_value="f",
    long=long_options(
        "file=",
        "blob=",
        "type=",
        "default=",
        "comment=",
        "value=",
        "global",
        "system",
        "local",
        "worktree",
        "add",
        "replace-all",
        "unset",
        "unset-all",
        "get",
        "get-all",
        "get-regexp",
        "get-urlmatch",
        "list",
        "edit",
        "null",
        "name-only",
        "show-origin",
        "show-scope",
        "includes",
        "bool",
        "int",
        "bool-or-int",
        "path",
        "expiry-date",
        "all",
        "append",
        "fixed-value",
        "rename-section",
        "remove-section",
        "get-color",
        "get-colorbool",
    ),
)
_READS = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--edit", "-e",
          "--get-color", "--get-colorbool", "--rename-section", "--remove-section")  # fmt: skip


def setting(argv: Argv, index: int) -> tuple[str, Value | None] | None:
    """What `git config` at subcommand `index` sets: (key, value), (key, None) for an unset, None when it
    only reads. A key rein cannot know is `ANY_KEY`."""
    parsed = parse(argv, index + 1, _CONFIG)
    operands = list(parsed.operands)
    action = operands[0].value if operands else ""
    if action in ("set", "unset"):
        operands = operands[1:]
    elif action in ("get", "list", "edit", "rename-section", "remove-section") or parsed.has(*_READS):
        return None
    if not operands:
        return None
    name = operands[0]
    if name.dynamic:
        return ANY_KEY, UNKNOWN
    key = key_of(name.value)
    if action == "unset" or parsed.has("--unset", "--unset-all"):
        return key, None
    if len(operands) < 2:
        return None
    value = operands[1]
    return key, UNKNOWN if value.dynamic else value.value
