"""Stream rules on the Agents SDK's model output: its Responses-format stream events (text, reasoning
and function-call argument deltas, block ends) and its finished output items, fed to a `Watch`."""

from __future__ import annotations

from collections.abc import Sequence

from agents.items import TResponseOutputItem, TResponseStreamEvent
from openai.types.responses import (
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseTextDeltaEvent,
)

from rein.integrations._guard import Cut, Watch


class StreamWatch:
    """One model call's stream events through a `Watch`. Tool-call argument deltas are told apart by
    their output index (the chat-completions adapter gives every call the same placeholder item id)."""

    def __init__(self, watch: Watch) -> None:
        self._watch = watch
        self._calls: dict[int, tuple[str, str]] = {}
        """output index -> (tool name, call id), from the call's `output_item.added`."""

    def feed(self, event: TResponseStreamEvent) -> Cut | None:
        match event:
            case ResponseTextDeltaEvent():
                return self._watch.feed(event.delta)
            case ResponseReasoningTextDeltaEvent() | ResponseReasoningSummaryTextDeltaEvent():
                return self._watch.feed(event.delta, source="thinking")
            case ResponseOutputItemAddedEvent(item=ResponseFunctionToolCall() as call):
                self._calls[event.output_index] = (call.name, call.call_id)
            case ResponseFunctionCallArgumentsDeltaEvent():
                name, call_id = self._calls.get(event.output_index, ("", str(event.output_index)))
                return self._watch.feed(event.delta, source="tool", tool_name=name, tool_call_id=call_id)
            case ResponseOutputItemDoneEvent():
                return self._block_done(event.item)
        return None

    def _block_done(self, item: TResponseOutputItem) -> Cut | None:
        """The end-of-block check (`$`, a trailing word boundary) when an output item is complete."""
        match item:
            case ResponseOutputMessage():
                return self._watch.feed("", final=True)
            case ResponseReasoningItem():
                return self._watch.feed("", source="thinking", final=True)
            case ResponseFunctionToolCall():
                return self._watch.feed(
                    "", source="tool", tool_name=item.name, tool_call_id=item.call_id, final=True
                )
        return None


def check_output(watch: Watch, output: Sequence[TResponseOutputItem]) -> Cut | None:
    """A finished response (`get_response`) checked whole, item by item; the first cut wins."""
    for item in output:
        cut: Cut | None = None
        match item:
            case ResponseOutputMessage():
                text = "".join(part.text for part in item.content if isinstance(part, ResponseOutputText))
                cut = watch.check_whole(text)
            case ResponseReasoningItem():
                parts = [s.text for s in item.summary] + [c.text for c in item.content or ()]
                cut = watch.check_whole("\n".join(parts), source="thinking")
            case ResponseFunctionToolCall():
                cut = watch.feed(
                    item.arguments, source="tool", tool_name=item.name, tool_call_id=item.call_id, final=True
                )
        if cut is not None:
            return cut
    return None
