"""The option tables of the commands rein reads, by the key a handler asks for (`sudo`, `uv run`,
`docker compose exec`): which options take a value, as the real tool's parser reads them.

The tables live by family: `_wrapper_tables` (sudo, env, timeout, ...), `_feeder_tables` (xargs,
parallel, make, watchexec, find's primaries), `_js_tables` (npm, npx, pnpm, yarn, bun), `_env_tables`
(uv, pipx, poetry, pdm, conda, bundle, devbox, nix-shell), `_container_tables` (docker, podman,
nerdctl, kubectl, heroku), `_version_tables` (volta, rustup, mise, fnm, pipenv, brew), `_hook_tables`
(split, sort, firebase, gh alias), `_console_tables` (psql, sqlite3, vim, gdb, tmux, screen) and
`_git_options`. The runners that are data (`_runner_tables`) name these tables by key. An option a
table does not know is reported by `parse` as unknown, so a handler can fall back to checking every
suffix of the arguments.
"""

from __future__ import annotations

from rein.steering.bash.commands._console_tables import CONSOLES
from rein.steering.bash.commands._container_tables import CONTAINERS
from rein.steering.bash.commands._env_tables import ENVIRONMENTS
from rein.steering.bash.commands._feeder_tables import FEEDERS
from rein.steering.bash.commands._hook_tables import HOOKS
from rein.steering.bash.commands._js_tables import JS
from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import RUNNER, longs
from rein.steering.bash.commands._version_tables import VERSIONS
from rein.steering.bash.commands._wrapper_tables import WRAPPERS

TOOL_OPTIONS: dict[str, Options] = {
    **WRAPPERS,
    **FEEDERS,
    **JS,
    **ENVIRONMENTS,
    **CONTAINERS,
    **VERSIONS,
    **HOOKS,
    **CONSOLES,
    # coreutils rm: getopt_long "dfirvIR", options anywhere.
    "rm": Options(
        long=longs("""
            interactive? preserve-root? dir force help no-preserve-root one-file-system recursive verbose
            version
        """)
    ),
}

_NORMALIZED = frozenset({"rm"})
"""Commands whose long options rein knows in full, so an abbreviation can be written out for rules."""


def spec(name: str) -> Options:
    """How the command or subcommand `name` reads its options (one without an entry: a runner whose
    options take no value)."""
    return TOOL_OPTIONS.get(name, RUNNER)


def spec_for(name: str) -> Options | None:
    """The options of a command whose long options rein knows in full, so abbreviations can be
    written out (None for others)."""
    return TOOL_OPTIONS[name] if name in _NORMALIZED else None
