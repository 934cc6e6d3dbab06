"""Hosts that run hooks only once the user trusts them: Codex (each hook's command, by hash) and Gemini
CLI (the project folder). `rein hook install --trust` records the trust; without it, install says the
hooks will not run yet, and `rein hook doctor` reports it.

    TRUST["codex"]                      -> "rein.hooks._trust_codex"
    module.status(hooks_file, ...)      -> Trust (trusted or not, and how to trust them)
    module.trust(hooks_file, ...)       -> Change of the host's trust record (write() to apply)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from rein.hooks._install import Change, Scope

TRUST: dict[str, str] = {
    "codex": "rein.hooks._trust_codex",
    "gemini": "rein.hooks._trust_gemini",
}
"""Host name -> the module that reads and writes its trust record; hosts not named trust every hook."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Trust:
    trusted: bool
    record: Path
    """The file holding the host's trust (Codex's config.toml, Gemini's trustedFolders.json)."""
    stale: bool = False
    """Not trusted now, but the host holds a trust record for rein's hooks as an earlier install wrote
    them (rein moved, or its hooks changed): a re-install trusts the new ones without `--trust`."""
    detail: str
    """One line: what is trusted, or what is missing and how to trust it (`rein hook install HOST
    --trust`, or the host's own way)."""


class Module(Protocol):
    def status(self, hooks_file: Path, *, scope: Scope, cwd: Path, home: Path) -> Trust: ...

    def trust(self, hooks_file: Path, *, scope: Scope, cwd: Path, home: Path) -> Change: ...


def module(host: str) -> Module | None:
    """The trust module of `host`, or None when the host runs installed hooks without asking."""
    name = TRUST.get(host)
    return cast(Module, importlib.import_module(name)) if name else None
