"""What both modes do with the session between prompts: the banner, a resumed session's last turns,
the echoed prompt, one prompt run without a traceback whatever it raises, the quit check and the
line that says how to continue."""

from __future__ import annotations

from rein import __version__
from rein.session import AgentSession, SessionWriteError
from rein.session.remote import RemoteSession
from rein.tui._format import one_line
from rein.tui._live import Live
from rein.tui._replay import context_tokens, replay, session_line
from rein.tui._scrollback import Scrollback

QUIT = frozenset({"/quit", "/exit"})


def banner(cwd: str) -> str:
    return f"rein {__version__} in {cwd} | /help for commands | Esc aborts, Ctrl-D quits"


def show_session(out: Scrollback, session: AgentSession, verb: str) -> None:
    """A session with entries (continued, resumed, switched to): the line naming it, then its last
    turns. A new, empty session shows nothing here."""
    if len(session.store.tree):
        out.line(session_line(session, verb), "class:notice.info")
        replay(out, session)


def switched(out: Scrollback, live: Live, session: AgentSession, store: object) -> None:
    """A `/new` or `/resume` moved the session to another file: the line naming it (and the context's
    token count), then its last turns."""
    live.tokens = context_tokens(session)
    out.line(session_line(session, "now"), "class:notice.info")
    replay(out, session)


def quit_line(session: AgentSession) -> str:
    """What the person reads after the session ends: which session it was, and how to carry on."""
    store = session.store
    if isinstance(store, RemoteSession):
        url = store.transport.url
        return f"session saved on {url}: {store.id}; continue with `rein --server {url} -c`"
    return f"session saved: {store.id}; continue with `rein -c` (or `rein --resume {store.id[:8]}`)"


def wants_quit(session: AgentSession, text: str) -> bool:
    """`/quit` and `/exit` end the session even if no extension registered them."""
    return session.quit_requested or (text in QUIT and text[1:] not in session.registry.commands)


async def run_prompt(session: AgentSession, out: Scrollback, live: Live, text: str) -> None:
    """One prompt (a message or a `/command`). A `SessionWriteError` (the session file cannot be
    written) ends the session: it is raised for the caller to report once the screen is closed.
    Anything else is one red line, not a traceback, and the session goes on."""
    live.begin()
    try:
        await session.prompt(text)
    except SessionWriteError:
        raise
    except Exception as error:
        out.line(f"[error] {one_line(f'{type(error).__name__}: {error}')}", "class:error")
    finally:
        live.end()
        live.tokens = context_tokens(session)  # `/tree`, `/compact`: the context changed under it
