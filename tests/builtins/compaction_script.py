"""A faux model that answers the agent's requests from a script and summary requests apart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rein.ai import Context, JsonValue, Message, TextContent, ToolCall, UserMessage
from rein.ai.providers.faux import FauxTurn


def is_summary(context: Context) -> bool:
    return "summar" in (context.system_prompt or "").lower() and not context.tools


def text_of(message: Message) -> str:
    if isinstance(message, UserMessage):
        return message.text
    return "".join(b.text for b in message.content if isinstance(b, TextContent))


@dataclass
class TwoModels:
    """`replies` answer the agent in order; a summary request gets `summary` (its request recorded)."""

    replies: list[FauxTurn | Callable[[Context], FauxTurn]]
    summary: str | Callable[[Context], FauxTurn] = ""
    requests: list[Context] = field(default_factory=list)
    summaries: list[Context] = field(default_factory=list)

    def __call__(self, context: Context) -> FauxTurn:
        if is_summary(context):
            self.summaries.append(context)
            if callable(self.summary):
                return self.summary(context)
            return [TextContent(text=self.summary)] if self.summary else []
        self.requests.append(context)
        reply = self.replies.pop(0)
        return reply(context) if callable(reply) else reply

    def sent(self, index: int = -1) -> str:
        """Everything the agent's request `index` carried, as one text."""
        return "\n".join(text_of(m) for m in self.requests[index].messages)


def call(name: str, call_id: str, **arguments: JsonValue) -> list[ToolCall | TextContent]:
    return [ToolCall(id=call_id, name=name, arguments=arguments)]
