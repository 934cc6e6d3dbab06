"""How much of a model's window each part of a compacted context may take.

The settings are pi's (`reserve_tokens`, `keep_recent_tokens`) plus the user messages kept verbatim and
the files read again after a compaction. They are sized for large windows; a small window (a local
model's 2k-8k, or one learned from an overflow error) scales every part down, so what is kept plus the
summary always fits rather than the compaction failing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rein.ai import Model

LOCAL_WINDOW = 8192
"""The embedded local model's window (`rein.ai.providers.local.DEFAULT_CONTEXT`, which imports llama.cpp)."""
KNOWN_WINDOWS: tuple[tuple[str, int], ...] = (
    ("claude-", 200_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-5", 400_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gemini-", 1_048_576),
)
"""Model id prefixes and their windows, for models whose `Model.context_window` is unset."""


def model_window(model: Model, configured: int | None = None) -> int | None:
    """The window of `model`: its own `context_window`, `[rein] context_window`, the table, or None."""
    if model.context_window:
        return model.context_window
    if configured:
        return configured
    if model.provider == "local":
        return LOCAL_WINDOW
    return next((size for prefix, size in KNOWN_WINDOWS if model.id.startswith(prefix)), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionSettings:
    """`[compaction]` in settings.toml (docs/settings.md)."""

    enabled: bool = True
    reserve_tokens: int = 16_384
    keep_recent_tokens: int = 20_000
    keep_user_tokens: int = 20_000
    reinject_tokens: int = 8_000

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> CompactionSettings:
        """From the validated `[compaction]` group; keys it does not set keep their defaults."""
        defaults = cls()

        def count(name: str) -> int:
            value = values.get(name)
            return (
                value if isinstance(value, int) and not isinstance(value, bool) else getattr(defaults, name)
            )

        enabled = values.get("enabled")
        return cls(
            enabled=enabled if isinstance(enabled, bool) else True,
            reserve_tokens=count("reserve_tokens"),
            keep_recent_tokens=count("keep_recent_tokens"),
            keep_user_tokens=count("keep_user_tokens"),
            reinject_tokens=count("reinject_tokens"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """Token budgets for one window. `threshold`: compact when the context passes it."""

    window: int
    reserve: int
    keep_recent: int
    summary: int
    keep_user: int
    reinject: int

    @property
    def threshold(self) -> int:
        return self.window - self.reserve

    @classmethod
    def of(cls, window: int, settings: CompactionSettings, fixed: int = 0) -> Budget:
        """The budgets for `window` when `fixed` tokens (system prompt, tool schemas) go with every
        request. Shares of what is left after the reserve: kept turns 35%, summary 20%, the user's own
        words 15%, files read again 10%; the rest is slack for the estimate's error."""
        reserve = min(settings.reserve_tokens, window // 4)
        usable = max(0, window - reserve - fixed)
        return cls(
            window=window,
            reserve=reserve,
            keep_recent=min(settings.keep_recent_tokens, usable * 35 // 100),
            summary=max(64, min(reserve * 4 // 5, usable * 20 // 100)),
            keep_user=min(settings.keep_user_tokens, usable * 15 // 100),
            reinject=min(settings.reinject_tokens, usable * 10 // 100),
        )
