"""What the benchmarks share: one percentile definition, so their p90 and p99 figures compare, and a UI
that shows nothing."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rein.extensions import Level


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest rank: the smallest sample with at least `q` of the samples at or below it."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


class SilentUI:
    def notify(self, message: str, level: Level = "info") -> None:
        pass

    def set_status(self, key: str, text: str | None) -> None:
        pass

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        return None

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return None
