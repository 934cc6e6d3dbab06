"""`/compact [instructions]`: summarize the old turns of this branch now (docs/compaction.md)."""

from __future__ import annotations

from rein.extensions import ExtensionContext
from rein.session import AgentSession
from rein.session.compaction import NothingToCompact, SummaryError, SummaryOverflow


class CompactCommand:
    def __init__(self, session: AgentSession) -> None:
        self.session = session

    async def compact(self, args: str, ctx: ExtensionContext) -> None:
        ctx.ui.notify("compacting: summarizing the older turns of this branch...")
        try:
            await self.session.compact(args.strip() or None)
        except NothingToCompact as error:
            ctx.ui.notify(str(error), "warning")
        except (SummaryError, SummaryOverflow, RuntimeError) as error:
            ctx.ui.notify(f"compaction failed: {error}", "error")
