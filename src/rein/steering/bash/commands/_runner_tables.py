"""The runners that are data (see `_runner`), by command name: the process wrappers, and the
environment and version managers whose subcommand runs a command. Their option tables are in
`_wrapper_tables`, `_env_tables` and `_version_tables`; a tool with semantics of its own keeps a
handler (`_wrappers`, `_pkg`, `_versions`), which may still read its plain form with an entry here."""

from __future__ import annotations

from rein.steering.bash.commands._runner import Runner
from rein.steering.bash.commands._table_kit import RUNNER

WRAPPERS: dict[str, Runner] = {
    # sudo's plain form; `-s`/`-i` (a shell string) are read by its handler.
    "sudo": Runner(
        label="sudo",
        nothing=("-e", "--edit", "-l", "--list", "-v", "--validate", "-V", "--version", "-K"),
        env_assignments=True,
        chdir=("-D", "--chdir"),
        cwd_unknown_with=("-R", "--chroot"),
    ),
    "doas": Runner(label="doas", nothing=("-C",)),
    "command": Runner(label="command", mode="same", nothing=("-v", "-V")),
    "builtin": Runner(label="builtin", options=None, mode="same"),
    "exec": Runner(label="exec", mode="same"),
    # GNU time; the `time` keyword is read by its handler.
    "time": Runner(label="time"),
    "timeout": Runner(label="timeout", operands=1),
    # `nice -n N`; the obsolete `nice -5` is read by its handler.
    "nice": Runner(label="nice"),
    "nohup": Runner(label="nohup"),
    "ionice": Runner(label="ionice", nothing=("-p", "-P", "-u", "--pid", "--pgid", "--uid")),
    "chrt": Runner(label="chrt", priority=True, nothing=("-p", "--pid")),
    "taskset": Runner(label="taskset", operands=1, nothing=("-p", "--pid")),
    "stdbuf": Runner(label="stdbuf"),
    "unbuffer": Runner(label="unbuffer"),
    # Forks and returns with `-f` (unless `-w`); without it, it forks only when it leads its process
    # group, which a command a non-interactive shell runs does not, so the shell waits for it.
    "setsid": Runner(label="setsid", mode="maybe", fork=("-f", "--fork"), wait=("-w", "--wait")),
    "busybox": Runner(label="busybox", options=None),
    # pkexec runs the command in the target user's home unless `--keep-cwd`.
    "pkexec": Runner(label="pkexec", cwd_unknown=True, keep_cwd=("--keep-cwd",)),
    "chroot": Runner(label="chroot", operands=1, cwd_unknown=True),
}
"""Process wrappers: the command follows their options."""

TIME_KEYWORD = Runner(label="time", options=RUNNER, mode="same")
"""bash's `time` keyword: times a command in this shell."""


def _runs(label: str, key: str = "") -> Runner:
    """`TOOL SUBCOMMAND [options] cmd args`: the command follows the subcommand's options, which rein
    may not know in full."""
    return Runner(label=label, options=key, subcommands=(label.partition(" ")[2],), complete=False)


ENVIRONMENTS: dict[str, Runner] = {
    "poetry": _runs("poetry run"),
    "pdm": _runs("pdm run"),
    "conda": _runs("conda run"),
    "mamba": _runs("mamba run", "conda run"),
    "micromamba": _runs("micromamba run", "conda run"),
    "bundle": _runs("bundle exec"),
    "devbox": _runs("devbox run"),
}
"""Environment tools whose subcommand runs a command."""

_ENV_EXEC = ("pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "phpenv", "scalaenv")
"""The *env version managers: `NAME exec cmd args` runs cmd with the selected version."""

VERSIONS: dict[str, Runner] = {
    **{name: Runner(label=f"{name} exec", options=None, subcommands=("exec",)) for name in _ENV_EXEC},
    "volta": _runs("volta run"),
    "fnm": _runs("fnm exec"),
    "pipenv": _runs("pipenv run"),
}
"""Version managers whose subcommand runs a command."""

RUNNERS: dict[str, Runner] = {**WRAPPERS, **ENVIRONMENTS, **VERSIONS}
"""Every runner that is data, by command name (the contract test walks it)."""
