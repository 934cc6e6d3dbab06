"""The event persister: what the loop's events write to the session store.

Every message that joins the history is appended as its `message_end` arrives, so a crash loses at most
the reply being streamed; a turn's entries are fsync'd at `turn_end` (and `agent_end`), then synced to the
store's server. A write that fails never raises into the loop: the store keeps it (`write_error`), the
run's signal is aborted, and `raise_write_error` raises it to the host once the loop has stopped.
"""

from __future__ import annotations

from rein.agent import AgentEvent, AgentMessage, CustomMessage
from rein.ai import AbortSignal, message_to_json
from rein.extensions import UI
from rein.session._session import Session
from rein.session.errors import SessionSyncError, SessionWriteError


async def record(event: AgentEvent, store: Session, signal: AbortSignal, ui: UI) -> None:
    """Write what `event` adds to `store`; a failed write (this one, or an extension's) aborts `signal`."""
    try:
        if event.type == "message_end" and event.message is not None:
            _append(store, event.message)
        elif event.type in ("turn_end", "agent_end"):
            store.sync()  # a finished turn is on disk (fsync) before the next one starts
            await _flush(store, signal, ui)
    except SessionWriteError:
        pass  # the store keeps it (`write_error`); the run raises it when the loop has stopped
    if store.write_error is not None:
        signal.abort("the session file cannot be written")


def raise_write_error(store: Session) -> None:
    """Raise the store's failed write, if any: the loop swallows listener errors, so a failed save ends
    the run through the abort signal and reaches the host from here."""
    failed = store.write_error
    if failed is not None:
        raise SessionWriteError(failed.path, failed.reason, saved=failed.saved)


async def _flush(store: Session, signal: AbortSignal, ui: UI) -> None:
    """Sync a turn to the store's server (a no-op for a local file). A failure does not call the model
    again: the next flush recovers; a replaced history stops the run."""
    try:
        await store.flush()
    except SessionSyncError as error:
        ui.notify(str(error), "warning")
        if error.stops_run:
            signal.abort(str(error))


def _append(store: Session, message: AgentMessage) -> None:
    if isinstance(message, CustomMessage):
        store.append_custom_message(
            message.custom_type,
            message.content,
            display=message.display,
            details=dict(message.details) or None,
        )
        return
    # Aborted and failed replies are kept for the record; providers skip them in requests.
    store.append_message(dict(message_to_json(message)))
