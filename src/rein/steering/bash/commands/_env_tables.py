"""Option tables of the environment tools that run a command: `uv` (`uv run`, `uv tool run`), `uvx`,
`pipx run`, `poetry run`, `pdm run`, `conda run`, `hatch run`, `bundle exec`, `devbox run`,
`nix-shell`.

Sources: astral-sh/uv (crates/uv-cli/src/lib.rs, crates/uv-cache/src/cli.rs: clap, no abbreviation,
global options also after the subcommand); pypa/pipx (src/pipx/main.py), pdm-project/pdm
(src/pdm/cli/commands/run.py, cli/options.py, core.py), conda/conda (conda/cli/main_run.py,
cli/helpers.py): argparse, which takes a unique prefix of a long option; python-poetry/poetry
(console/io/inputs/run_argv_input.py); pypa/hatch (src/hatch/cli/run/__init__.py, click);
rubygems bundler (lib/bundler/cli.rb) and rails/thor (lib/thor/parser/options.rb, no abbreviation);
jetify-com/devbox (internal/boxcli/{run,env,config,root}.go, cobra); NixOS/nix
(src/nix/nix-build/nix-build.cc, src/libmain/shared.cc).
"""

from __future__ import annotations

from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import RUNNER, longs

_UV_GLOBAL = """
    allow-insecure-host= cache-dir= color= config-file= directory= preview-feature= preview-features=
    project= python-fetch= python-preference= trusted-host= allow-python-downloads help isolated
    managed-python native-tls no-cache no-cache-dir no-color no-config no-installer-metadata
    no-managed-python no-native-tls no-offline no-preview no-progress no-python-downloads no-system-certs
    offline preview quiet show-settings system-certs verbose version
"""
"""uv's global options (TopLevelArgs, CacheArgs, GlobalArgs), read after the subcommand too."""
_UV_RUN = """
    config-setting= config-settings-package= config-settings= default-index= env-file=
    exclude-newer-package= exclude-newer= extra-index-url= extra= find-links= fork-strategy= group=
    index-strategy= index-url= index= keyring-provider= link-mode= max-recursion-depth= no-binary-package=
    no-build-isolation-package= no-build-package= no-editable-package= no-extra= no-group=
    no-sources-package= only-group= package= prerelease-package= prerelease= python-platform= python=
    refresh-package= reinstall-package= resolution= upgrade-group= upgrade-package= with-editable=
    with-requirements= with= active all-extras all-groups all-packages binary build build-isolation
    compile compile-bytecode dev editable exact force-reinstall frozen gui-script inexact locked module
    no-active no-all-extras no-binary no-build no-build-isolation no-compile no-compile-bytecode
    no-default-groups no-dev no-editable no-env-file no-exact no-index no-project no-refresh no-reinstall
    no-sources no-sync no-upgrade no_workspace only-dev pre refresh reinstall script show-resolution
    upgrade
"""
"""`uv run`'s own options (RunArgs)."""
_UVX = """
    build-constraint= build-constraints= config-setting= config-settings-package= config-settings=
    constraint= constraints= default-index= env-file= exclude-newer-package= exclude-newer=
    extra-index-url= find-links= fork-strategy= from= generate-shell-completion= index-strategy=
    index-url= index= keyring-provider= link-mode= no-binary-package= no-build-isolation-package=
    no-build-package= no-sources-package= override= overrides= prerelease-package= prerelease=
    python-platform= python= refresh-package= reinstall-package= resolution= torch-backend= upgrade-group=
    upgrade-package= with-editable= with-requirements= with= binary build build-isolation compile
    compile-bytecode force-reinstall lfs no-binary no-build no-build-isolation no-compile
    no-compile-bytecode no-env-file no-index no-refresh no-reinstall no-sources no-upgrade pre refresh
    reinstall show-resolution upgrade
"""
"""uvx's and `uv tool run`'s own options (UvxArgs, ToolRunArgs)."""

ENVIRONMENTS: dict[str, Options] = {
    "uv": Options(long=longs(_UV_GLOBAL), permute=False, abbreviate=False),
    # `uv run [options] COMMAND`: `-m`/`--module` is a flag (the first operand is the module).
    "uv run": Options(
        short_value="CPfipw", long=longs(f"{_UV_RUN} {_UV_GLOBAL}"), permute=False, abbreviate=False
    ),
    # uvx and `uv tool run`: its options, then the package's command.
    "uvx": Options(
        short_value="CPbcfipw", long=longs(f"{_UVX} {_UV_GLOBAL}"), permute=False, abbreviate=False
    ),
    # pipx 1.x `run` (argparse, app and its arguments are REMAINDER after the first operand).
    "pipx run": Options(
        short_value="i",
        long=longs("""
            backend= cooldown= fetch-python= index-url= pip-args= python-args= python= spec= with=
            editable fetch-missing-python global help no-cache no-path-check path pypackages quiet refresh
            skip-maintenance system-site-packages verbose
        """),
        permute=False,
    ),
    # `poetry run`: every word after `run` is the command (poetry's RunArgvInput reads no option
    # there, save one given before `run`).
    "poetry run": RUNNER,
    # pdm `run` (argparse): `--venv` takes an optional value, which argparse takes from the next word
    # when it does not start with `-`.
    "pdm run": Options(
        short_value="kp",
        long=longs("project= skip= venv= global help json list quiet recreate site-packages verbose"),
        permute=False,
    ),
    # conda `run` (argparse); `mamba run` and `micromamba run` are read with it too.
    "conda run": Options(
        short_value="np",
        long=longs("""
            cwd= name= prefix= debug debug-wrapper-scripts dev help live-stream no-capture-output trace
            verbose
        """),
        permute=False,
    ),
    # `hatch run [ENV:]ARGS`: no options (click ignore_unknown_options); leading `+var`/`-var` words
    # select matrix variables.
    "hatch run": RUNNER,
    # bundler `exec` (Thor, exact names; the first operand starts the command) and bundler's class
    # options (`-r`/`--retry`, `-V`/`--verbose`, `--no-color`).
    "bundle exec": Options(
        short_value="r",
        long=longs("gemfile= retry= keep-file-descriptors no-color no-keep-file-descriptors verbose"),
        permute=False,
        abbreviate=False,
    ),
    # devbox `run` (cobra; devbox puts `--` before the first operand itself). `--trace` takes an
    # attached value only.
    "devbox run": Options(
        short_value="ce",
        long=longs("""
            config= env-file= env= environment= trace? all-projects debug help list omit-nix-env pure
            quiet recompute
        """),
        permute=False,
        abbreviate=False,
    ),
    # nix-shell (nix-build.cc): exact names, options anywhere. `--arg`/`--argstr`/`--option` take two
    # words and every Nix setting is an option (`--max-jobs 4`); those are not known here, and the
    # handler reads only --run/--command.
    "nix-shell": Options(
        short_value="Ao",
        long=longs("""
            attr= command= drv-link= exclude= keep= out-link= run= add-drv-link check dry-run expr
            fallback help impure indirect keep-failed keep-going no-build-output no-link no-out-link
            packages pure run-env version
        """),
        abbreviate=False,
    ),
}
