"""The vocabulary of `no-dev-server`'s tables: how one tool serves, watches or follows, and what makes it
exit.

A `Tool` says how one command (or one subcommand, keyed `"kubectl logs"`) behaves: the subcommands that
serve, or that it serves unless given one of its other subcommands (`vite` serves, `vite build` does
not); the options that make it watch, serve or follow (`--watch`, `-f`), read as that tool reads them
(`-w` is watch for tsc and maxWorkers for jest; `--watch=false` and `--no-watch` are off); the options
that make it exit or detach (`karma start --single-run`, `symfony serve -d`); and the words after a
serving subcommand that exit (`jupyter lab build`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Flags:
    """Options by long name (`watch` is `--watch`, also `-watch` as tsc reads it) and short letters."""

    longs: frozenset[str] = frozenset()
    shorts: str = ""
    bundles: bool = False
    """Short flags cluster (`rollup -cw`), so a letter inside a cluster counts too."""


NONE = Flags()


@dataclass(frozen=True, slots=True)
class Tool:
    serves: frozenset[str] = frozenset()
    """Subcommands (one or two words) that never exit; `""` when it is given none."""
    quiet: frozenset[str] | None = None
    """Set: it serves unless its first operand is one of these (`vite build`); `frozenset()`: always."""
    watch: Flags = NONE
    """Options that make any subcommand watch, serve or follow."""
    exits: Flags = NONE
    """Options that make it exit or detach."""
    watching: bool = False
    """Serving is its default watch mode, which `--no-watch`/`--watch=false` turns off (`vitest`)."""
    stops: frozenset[str] = frozenset()
    """Two-word subcommands under a serving one that exit (`notebook list`, `lab build`)."""


def _set(names: str) -> frozenset[str]:
    """Names separated by blanks; `+` joins the words of a two-word subcommand (`pages+dev`)."""
    return frozenset(name.replace("+", " ") for name in names.split())


def serves(names: str, watch: Flags = NONE, exits: Flags = NONE, bare: bool = False, stops: str = "") -> Tool:
    """A tool whose subcommands `names` serve (`bare`: also when given none, `next` is `next dev`)."""
    return Tool(serves=_set(names) | ({""} if bare else set()), watch=watch, exits=exits, stops=_set(stops))


def unless(
    quiet: str = "", watch: Flags = NONE, exits: Flags = NONE, watching: bool = False, bare: bool = True
) -> Tool:
    """A tool that serves unless its first operand is one of `quiet` (always, when empty); `bare` False:
    not when given no operand at all (`ping` needs a host, `watch` a command)."""
    quiet_set = _set(quiet) | {"help", "version"}
    return Tool(
        serves=frozenset({""} if bare else ()), quiet=quiet_set, watch=watch, exits=exits, watching=watching
    )


def flags(longs: str, shorts: str = "", bundles: bool = False) -> Flags:
    return Flags(frozenset(longs.split()), shorts, bundles)


def watch(longs: str = "watch", shorts: str = "", bundles: bool = False, exits: Flags = NONE) -> Tool:
    """A tool that watches (or serves, or stays in the foreground) only when told to (`tsc -w`)."""
    return Tool(watch=flags(longs, shorts, bundles), exits=exits)


ALWAYS = unless()
NEEDS = unless(bare=False)
EXITS = Tool()
"""A subcommand that exits, listed so its tool's own options do not read it (`nvidia-smi mig -lgi` is
no `-l` loop, `tailscale ping` stops after its pings)."""
"""Serves when given something to serve or run (`gunicorn app:app`, `entr make`)."""
WATCH = flags("watch")
WATCH_W = flags("watch", "w", bundles=True)
FOLLOW = watch("follow", "f")
DAEMON = flags("daemon detach", "d")

GENERIC_WATCH = flags("watch watchAll watch-all")
"""What a script is taken to read as watch: not `-w` (maxWorkers to jest)."""
FALSY = frozenset({"false", "0", "no", "off", "n"})
