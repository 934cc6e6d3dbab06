"""`rein hook install|uninstall HOST`: write the host's settings, trust the hooks where the host asks for
trust, and compile the hook path's bytecode.

An install must not silently do nothing. Codex runs a user's hook only once it is trusted, and Gemini
CLI loads a project's hooks only in a trusted folder: with `--trust` rein records that trust; without
it, install says plainly that the hooks will not run yet and how to trust them. A re-install after
rein moved trusts the new commands when the old ones were trusted (the user already said yes to
rein's hooks).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rein.hooks import SETTINGS, InstallError, Scope, Trust, compile_hook_path, install, module, uninstall


def _trusted(host: str, path: Path, scope: Scope, trust: bool, was: Trust | None) -> Trust | None:
    """The host's trust after the hooks file was written, recorded first when asked for (`--trust`) or
    when rein's earlier hooks were trusted; None for hosts that trust every hook."""
    trusting = module(host)
    if trusting is None or was is None:
        return None
    cwd, home = Path.cwd(), Path.home()
    state = trusting.status(path, scope=scope, cwd=cwd, home=home)
    if (trust or was.trusted or was.stale or state.stale) and not state.trusted:
        trusting.trust(path, scope=scope, cwd=cwd, home=home).write()
        state = trusting.status(path, scope=scope, cwd=cwd, home=home)
    return state


def settings(action: str, host: str, *, scope: Scope, dry_run: bool, trust: bool, where: str) -> int:
    """Run `rein hook install|uninstall`; 0 done, 2 a file rein will not edit. `--dry-run` prints the
    hooks file's diff only: the trust record is computed from the written hooks file."""
    cwd, home = Path.cwd(), Path.home()
    trusting = module(host) if action == "install" else None
    try:
        change = (install if action == "install" else uninstall)(host, scope=scope, cwd=cwd, home=home)
        if dry_run:
            sys.stdout.write(change.diff() if change.changed else f"{change.path}: no change\n")
            sys.stdout.write("dry run: nothing written\n")
            return 0
        was = trusting.status(change.path, scope=scope, cwd=cwd, home=home) if trusting else None
        change.write()
        state = _trusted(host, change.path, scope, trust, was) if action == "install" else None
    except BrokenPipeError:
        raise  # a closed stdout under --dry-run: the entry point ends quietly
    except InstallError as error:
        print(f"{where}: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a read-only project, a full disk: the file and the reason, no errno
        print(
            f"{where}: cannot write {error.filename or 'the settings'}: {error.strerror or error}",
            file=sys.stderr,
        )
        return 2
    title = SETTINGS[host].title
    if not change.changed:
        state_word = "already installed" if action == "install" else "not installed"
        print(f"rein's {title} hooks: {state_word} in {change.path}")
    elif action == "install":
        print(f"Installed rein's {title} hooks in {change.path}")
    else:
        print(f"Removed rein's {title} hooks from {change.path}")
    if state is not None:
        print(f"Trusted in {state.record}" if state.trusted else f"Not active yet: {state.detail}")
    if action == "install":
        for problem in compile_hook_path():
            print(f"{where}: warning: {problem}", file=sys.stderr)
    return 0
