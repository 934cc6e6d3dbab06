"""git configuration as one git command sees it: what the command line set with `git config`, the
`-c` and `--config-env` options, and the `GIT_CONFIG_*` environment; which keys hold commands git runs;
and what a `git config` command changes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import cast

from rein.steering.bash.commands._git_config_file import key_of
from rein.steering.bash.commands._git_options import GIT_GLOBAL
from rein.steering.bash.commands._git_repo import Repo, find_repo, read_config
from rein.steering.bash.commands._git_repo import Value as OnDisk
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


def is_command_key(key: str) -> bool:
    """Whether git runs the value of `key` as a shell command (`core.pager`, `diff.x.command`, ...)."""
    if key in _COMMAND_KEYS:
        return True
    if (key.startswith("credential.") and key.endswith(".helper")) or key == "credential.helper":
        return True
    return key.startswith(_COMMAND_PREFIXES) and (key.startswith("pager.") or key.endswith(_COMMAND_SUFFIXES))


class Config:
    """The configuration one git command reads: what this command line decides, over what the
    configuration files on disk set (`disk`, with where each value is set)."""

    def __init__(
        self,
        values: dict[str, Value],
        any_key: bool,
        given: frozenset[str],
        disk: Mapping[str, OnDisk] | None = None,
        repo: Repo | None = None,
    ) -> None:
        self._values = values
        self._any_key = any_key
        self.given = given
        """Keys set on this command itself (`-c`), as opposed to earlier in the line."""
        self.disk: Mapping[str, OnDisk] = disk or {}
        self.repo = repo
        """The repository on disk the command runs in, when rein found one."""

    def get(self, key: str) -> Value | None:
        """The value of `key`: as this command line set it, else as the files on disk do; None when
        neither sets it, UNKNOWN when the line may have."""
        value = self._values.get(key)
        if value is None and self._any_key:
            return UNKNOWN
        if value is None and key in self.disk:
            return self.disk[key].text
        return value

    def source(self, key: str) -> OnDisk | None:
        """Where a value `get` gives comes from, when that is a file on disk."""
        return self.disk.get(key) if key not in self._values and not self._any_key else None

    def items(self) -> Iterator[tuple[str, Value]]:
        return iter(self._values.items())


def config_view(call: Call) -> Config:
    values: dict[str, Value] = {key: value for key, value in call.git_config.items() if key != ANY_KEY}
    repo, disk = _on_disk(call)
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
    return Config(values, any_key, frozenset(given), disk, repo)


def _on_disk(call: Call) -> tuple[Repo | None, Mapping[str, OnDisk]]:
    """The repository and its configuration files on disk, read once per analysis for each place
    git runs."""
    disk, cwd = call.disk, call.state.cwd
    if disk is None or isinstance(cwd, Unknown):
        return None, {}
    env = call.state.env
    names = (
        "GIT_DIR",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "XDG_CONFIG_HOME",
        "HOME",
    )
    home = env.get("HOME")
    branch = call.state.branch
    key = (
        "git config",
        cwd,
        tuple(env.get(name) for name in names),
        branch if isinstance(branch, str) else None,
    )
    cached = disk.memo.get(key)
    if isinstance(cached, tuple):
        return cast(tuple[Repo | None, dict[str, OnDisk]], cached)
    repo = find_repo(disk, cwd, env)
    found = read_config(disk, repo, home, env, branch) if isinstance(home, str) else {}
    disk.memo[key] = (repo, found)
    return repo, found


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
