"""Which provider answers when none is named: `rein` and `rein serve` choose alike.

    choose_provider(None, settings["rein"], os.environ)   # "anthropic", "openai", "local"; or NoProvider

The order: `--provider`, else `[rein] provider` in the settings, else the first API key in the
environment (`ANTHROPIC_API_KEY`, then `OPENAI_API_KEY`), else the embedded local model when it is
installed. Nothing here imports a provider, so asking costs a file lookup, not a model load.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rein.ai.providers.local_files import INSTALL_HINT, local_available

KEYED: tuple[tuple[str, str], ...] = (("ANTHROPIC_API_KEY", "anthropic"), ("OPENAI_API_KEY", "openai"))
"""The environment variables that choose a provider, in the order they are tried."""


class NoProvider(Exception):
    """No provider was named, no API key is set and the local model is not installed."""


def choose_provider(
    name: str | None, settings: Mapping[str, object], env: Mapping[str, str] = os.environ
) -> str:
    """The provider `name` names, else the one `settings` (the `[rein]` group) or `env` points at.
    Raises NoProvider, whose message says how to get a model."""
    if name:
        return name
    configured = settings.get("provider")
    if isinstance(configured, str):
        return configured
    for variable, provider in KEYED:
        if env.get(variable):
            return provider
    if local_available():
        return "local"
    raise NoProvider(
        "no model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or install the embedded local model"
        f" ({INSTALL_HINT})."
    )
