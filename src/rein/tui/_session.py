"""What both modes do with the session between prompts: the banner, the echoed prompt, one prompt
run without a traceback whatever it raises, and the quit check."""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from rein import __version__
from rein.agent import AgentMessage
from rein.ai import AssistantMessage
from rein.session import AgentSession, Session, SessionWriteError
from rein.tui._format import one_line, tokens
from rein.tui._live import Live
from rein.tui._scrollback import Scrollback

QUIT = frozenset({"/quit", "/exit"})


def banner(cwd: str) -> str:
    return f"rein {__version__} in {cwd} | /help for commands | Esc aborts, Ctrl-D quits"


def echo(text: str) -> StyleAndTextTuples:
    """A sent prompt as it stays in the scrollback: after a blank line, `> ` and the text."""
    lines = text.splitlines() or [""]
    body = "\n".join([f"> {lines[0]}", *(f"  {line}" for line in lines[1:])])
    return [("", "\n"), ("class:user", body)]


def tokens_of(messages: Sequence[AgentMessage]) -> int:
    return sum(m.usage.total for m in messages if isinstance(m, AssistantMessage))


def switched(out: Scrollback, live: Live, session: AgentSession, store: object) -> None:
    """A `/new` or `/resume` moved the session to another file: one line, and its token count."""
    messages = session.messages
    live.tokens = tokens_of(messages)
    name = store.id if isinstance(store, Session) else "?"
    out.line(f"[session] now {name}: {len(messages)} messages, {tokens(live.tokens)}", "class:notice.info")


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
