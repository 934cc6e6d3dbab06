"""The session client: `rein --server URL`, a session whose tree and model calls live on `rein serve`.

    session = await open_remote(url, session_id_or_None, cwd)  # new, or the server's session by id
    latest_remote_session(url, cwd)              # the id of cwd's last session there (`-c`), or None
    provider = ServerProvider(session)           # the Provider contract; the server calls the model
    agent.load_extension("server-verdicts", server_verdicts(provider.blocked))  # its steering blocks calls
    AgentSession(store=session, provider=provider, ...)  # the agent does not know it is remote
    await session.flush()                        # send the server what it lacks (after each turn)
    await session.compact()                      # the server's compaction; the local tree follows

`ServerTransport` makes every HTTP call (chunked uploads above the request limit, retries of transient
failures and of a 409 WRITER_FENCED); `TreeSync` is the fork's incremental sync (append the tail the
server lacks, switch the leaf without resending, reconcile from the server's history when the trees
diverged). Errors are in `rein.session.remote._errors` (see its docstring): `ServerError` with a
`phase`, `SessionReconciled`, `SyncFailed`. The wire itself (hashes, codes, phases) is
`rein.protocol`.
"""

from rein.session.remote._errors import RemoteError, ServerError, SessionReconciled, SyncFailed
from rein.session.remote._events import ProxyReader, SseParser, assistant_from_json
from rein.session.remote._provider import SERVER_MODEL, ServerProvider, static_context
from rein.session.remote._remote import RemoteSession, connect, latest_remote_session, open_remote
from rein.session.remote._sync import Known, Reconciled, Snapshot, TreeSync, snapshot_from
from rein.session.remote._transport import ServerTransport, read_json
from rein.session.remote._verdicts import server_verdicts

__all__ = [
    "SERVER_MODEL",
    "Known",
    "ProxyReader",
    "Reconciled",
    "RemoteError",
    "RemoteSession",
    "ServerError",
    "ServerProvider",
    "ServerTransport",
    "SessionReconciled",
    "Snapshot",
    "SseParser",
    "SyncFailed",
    "TreeSync",
    "assistant_from_json",
    "connect",
    "latest_remote_session",
    "open_remote",
    "read_json",
    "server_verdicts",
    "snapshot_from",
    "static_context",
]
