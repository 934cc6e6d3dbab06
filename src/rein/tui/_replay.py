"""A resumed session shown (`rein -c`, `rein --resume X`, `/resume`): one line naming it, then its last
few turns as they looked when they ran (prompts, replies, folded tool calls), older ones counted.

The status line's token count is `context_tokens`: the context the next request carries (the last
reply's reported usage plus estimates for what came after it; all estimated when no reply reported
usage). It means the same before and after a resume, a compaction or a branch switch.
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from rein.agent import AgentMessage, CustomMessage, ToolOutput
from rein.ai import AssistantMessage, ThinkingContent, ToolResultMessage, UserMessage
from rein.session import AgentSession
from rein.session.compaction import context_tokens as estimate_context
from rein.tui._format import describe, thinking, tokens, tool_result
from rein.tui._scrollback import Scrollback

TURNS = 3
"""User turns replayed; the messages before them are counted in one dim line."""
REPLY_LINES = 12
"""Lines of one replayed reply's text; the rest is counted."""


def context_tokens(session: AgentSession) -> int:
    """The status line's number: the tokens of the model's context on the active branch now."""
    return estimate_context(session.messages, session.usage_from)


def session_line(session: AgentSession, verb: str) -> str:
    """`[session] resumed <id>: 4 messages, 1.2k tokens of context, 12 entries` (`/session` shows
    its file)."""
    store = session.store
    size = f"{len(session.messages)} messages, {tokens(context_tokens(session))} of context"
    return f"[session] {verb} {store.id}: {size}, {len(store.tree)} entries"


def replay(out: Scrollback, session: AgentSession, turns: int = TURNS) -> None:
    """The active branch's last `turns` user turns (compactions ignored: what happened), after a dim
    line counting the earlier messages."""
    messages = session.branch_messages
    starts = [i for i, m in enumerate(messages) if isinstance(m, UserMessage)]
    first = starts[-turns] if len(starts) >= turns else 0
    if first:
        out.line(f"... {first} earlier message" + ("" if first == 1 else "s"), "class:banner")
    for fragments in transcript(messages[first:]):
        out.write(fragments)


def transcript(messages: Sequence[AgentMessage]) -> list[StyleAndTextTuples]:
    """Each message as the live view showed it: the prompt echoed, the reply's text, thinking folded to
    a line, each tool call with the first lines of its output."""
    calls = {
        call.id: describe(call)
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    }
    shown: list[StyleAndTextTuples] = []
    for message in messages:
        if isinstance(message, UserMessage):
            shown.append(echo(message.text))
        elif isinstance(message, AssistantMessage):
            shown.extend(_reply(message))
        elif isinstance(message, ToolResultMessage):
            summary = calls.get(message.tool_call_id, f"[{message.tool_name}]")
            shown.append(tool_result(summary, ToolOutput(text=message.text, is_error=message.is_error)))
        elif isinstance(message, CustomMessage) and message.display:
            shown.append([("class:custom", message.content)])
    return shown


def echo(text: str) -> StyleAndTextTuples:
    """A prompt as it stays in the scrollback: after a blank line, `> ` and the text."""
    lines = text.splitlines() or [""]
    body = "\n".join([f"> {lines[0]}", *(f"  {line}" for line in lines[1:])])
    return [("", "\n"), ("class:user", body)]


def _reply(message: AssistantMessage) -> list[StyleAndTextTuples]:
    shown: list[StyleAndTextTuples] = []
    for block in message.content:
        if isinstance(block, ThinkingContent) and block.thinking.strip():
            shown.append([("class:thinking", thinking(block.thinking))])
    lines = message.text.strip("\n").splitlines()
    if any(line.strip() for line in lines):
        kept = "\n".join(lines[:REPLY_LINES])
        more = f"\n  ... {len(lines) - REPLY_LINES} more lines" if len(lines) > REPLY_LINES else ""
        shown.append([("", kept), ("class:tool.output", more)] if more else [("", kept)])
    if message.stop_reason == "aborted":
        shown.append([("class:aborted", "[aborted]")])
    elif message.stop_reason == "error":
        shown.append([("class:error", f"[error] {message.error_message or 'the reply failed'}")])
    return shown
