"""Option tables of the version managers and OS package managers that can run a command: `volta run`,
`rustup run`, `mise exec`, `fnm exec`, `pipenv run`, `brew` (`bundle exec`, `sh`), and the task runners
`tox`.

Sources: volta-cli/volta (src/command/run.rs, clap), rust-lang/rustup (src/cli/rustup_mode.rs, clap),
jdx/mise (src/cli/exec.rs and src/cli/args, clap), Schniz/fnm (src/commands/exec.rs, src/config.rs,
clap), pypa/pipenv (pipenv/cli/command.py and cli/options.py: click, which takes no abbreviation and
stops `run` at its first operand), Homebrew/brew (Library/Homebrew/bundle/commands, dev-cmd/sh.rb, cmd/
bundle.rb: Ruby OptionParser), tox-dev/tox (src/tox/config/cli/parser.py, session/cmd/exec_.py:
argparse).
"""

from __future__ import annotations

from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import longs


def _clap(short_value: str, names: str) -> Options:
    """A clap command whose command starts at its first operand (trailing_var_arg)."""
    return Options(short_value=short_value, long=longs(names), permute=False, abbreviate=False)


VERSIONS: dict[str, Options] = {
    # volta run: the tool versions and `--env NAME=value` take a value; the command follows.
    "volta run": _clap("", "env= node= npm= pnpm= yarn= bundled-npm help no-pnpm no-yarn quiet verbose"),
    # rustup run: `--install`, then the toolchain operand, then the command.
    "rustup run": _clap("", "help install"),
    # mise exec / x: `-c`/`--command` takes a shell string, `-j`/`--jobs` a number; operands before
    # `--` are tool@version specs, not the command.
    "mise exec": _clap("cj", "command= jobs= fresh-env help no-prepare raw"),
    # fnm exec: `--using VERSION`; the global options (`--fnm-dir`, `--log-level`, ...) come too.
    "fnm exec": _clap(
        "",
        """
        arch= fnm-dir= log-level= node-dist-mirror= using= version-file-strategy= corepack-enabled help
        resolve-engines using-file
        """,
    ),
    # pipenv run (click): the shared options, then the command.
    "pipenv run": _clap(
        "", "pypi-mirror= python= clear help no-site-packages quiet site-packages system three two verbose"
    ),
    # brew (Ruby OptionParser): the global flags take no value.
    "brew": _clap("", "debug help quiet verbose version"),
    # brew bundle exec: the Brewfile options, then the command (usually after `--`).
    "brew bundle exec": _clap("", "file= check debug global help no-upgrade quiet services upgrade verbose"),
    # brew sh: `--env=std` and `-c`/`--cmd=` (a shell string); a FILE operand is a script.
    "brew sh": Options(short_value="c", long=longs("cmd= env= debug help quiet verbose")),
}
