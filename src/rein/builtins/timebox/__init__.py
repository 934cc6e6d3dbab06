"""The timebox (`rein.timebox`) in rein's own agent session: the `/timebox` command, the budget
restored with the session, and the nudge and the stop, at turn start and while a run goes.

    extension(rein)                  rein's extension entry point (`TimeboxExtension(rein).register()`)
    TimeboxExtension(rein, clock=..., scheduler=..., run_on_stop=...)   the same, injectable
    call_later(delay, callback)      the default `Scheduler`: one-shot, on the running asyncio loop
    streamed_tokens(partial)         a streaming reply's tokens so far (reported, or estimated)

The clock and the on-stop runner come from `rein.machine`, shared with the Claude Code hooks.
"""

from rein.builtins.timebox._bridges import CHARS_PER_TOKEN, streamed_tokens
from rein.builtins.timebox._extension import WARNING, TimeboxExtension, extension
from rein.builtins.timebox._timer import Cancellable, Scheduler, call_later

__all__ = [
    "CHARS_PER_TOKEN",
    "WARNING",
    "Cancellable",
    "Scheduler",
    "TimeboxExtension",
    "call_later",
    "extension",
    "streamed_tokens",
]
