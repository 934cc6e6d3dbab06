"""The faux provider as the registry builds it (`get_provider("faux")`): the echo script, or the replies
of a JSON script file named by `REIN_FAUX_SCRIPT`, for end-to-end tests and demos of a `rein serve` or
`rein` process that cannot be handed a Python script.

    {"delay": 0.05, "chunkSize": 4, "replies": [
        [{"text": "Let me look."}, {"tool": "bash", "id": "c1", "arguments": {"command": "ls"}}],
        [{"thinking": "done"}, {"text": "All good."}],
        {"blocks": [{"text": "half a repl"}], "error": "connection reset"}
    ]}

The replies are served in order across the whole process (every provider the registry builds takes
the next one), then the echo script answers. A file that cannot be used fails each stream with one
line naming the file and the problem.
"""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from collections.abc import Mapping
from pathlib import Path

from rein.ai._messages import Context, JsonValue, TextContent, ThinkingContent, ToolCall
from rein.ai.errors import ProviderError
from rein.ai.providers.faux import FauxBlock, FauxProvider, FauxReply, FauxTurn, echo

SCRIPT_VARIABLE = "REIN_FAUX_SCRIPT"

_queues: dict[str, deque[FauxReply]] = {}
_lock = threading.Lock()


def from_environment() -> FauxProvider:
    """A faux provider on the script `REIN_FAUX_SCRIPT` names, else on the echo script."""
    path = os.environ.get(SCRIPT_VARIABLE)
    if not path:
        return FauxProvider()
    try:
        delay, chunk_size, replies = load_script(Path(path))
    except ValueError as error:
        problem = str(error)

        def failing(context: Context) -> FauxTurn:
            raise ProviderError(problem)

        return FauxProvider(failing)
    with _lock:
        queue = _queues.setdefault(path, deque(replies))

    def next_reply(context: Context) -> FauxTurn:
        with _lock:
            return queue.popleft() if queue else echo(context)

    return FauxProvider(next_reply, delay=delay, chunk_size=chunk_size)


def load_script(path: Path) -> tuple[float, int, list[FauxReply]]:
    """(delay, chunk size, replies) of a script file; ValueError names the file and the problem."""
    try:
        data: object = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: cannot read the faux script: {error}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a faux script is an object with `replies`")
    delay, size, replies = data.get("delay", 0.0), data.get("chunkSize", 4), data.get("replies", [])
    if not isinstance(delay, int | float) or isinstance(delay, bool) or delay < 0:
        raise ValueError(f"{path}: delay: expected a number of seconds, got {delay!r}")
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"{path}: chunkSize: expected a positive integer, got {size!r}")
    if not isinstance(replies, list):
        raise ValueError(f"{path}: replies: expected a list")
    return float(delay), size, [_reply(item, f"{path}: replies[{i}]") for i, item in enumerate(replies)]


def _reply(item: object, where: str) -> FauxReply:
    error: object = None
    stop: object = None
    blocks = item
    if isinstance(item, dict):
        blocks, error, stop = item.get("blocks", []), item.get("error"), item.get("stopReason")
    if not isinstance(blocks, list):
        raise ValueError(f"{where}: expected a list of blocks or an object with `blocks`")
    if error is not None and not isinstance(error, str):
        raise ValueError(f"{where}.error: expected a string")
    parsed = tuple(_block(block, f"{where}[{i}]") for i, block in enumerate(blocks))
    calls = any(isinstance(block, ToolCall) for block in parsed)
    reason = stop if stop is not None else ("tool_use" if calls else "stop")
    if reason not in ("stop", "length", "tool_use"):
        raise ValueError(f"{where}.stopReason: expected stop, length or tool_use, got {reason!r}")
    return FauxReply(blocks=parsed, stop_reason=reason, error=error)


def _block(block: object, where: str) -> FauxBlock:
    if isinstance(block, dict):
        if isinstance(text := block.get("text"), str):
            return TextContent(text=text)
        if isinstance(thought := block.get("thinking"), str):
            return ThinkingContent(thinking=thought)
        name, arguments = block.get("tool"), block.get("arguments", {})
        if isinstance(name, str) and isinstance(arguments, Mapping):
            call_id = block.get("id")
            args: dict[str, JsonValue] = dict(arguments)
            return ToolCall(
                id=call_id if isinstance(call_id, str) else f"call-{name}", name=name, arguments=args
            )
    raise ValueError(
        f'{where}: expected {{"text"}}, {{"thinking"}} or {{"tool", "arguments"}}, got {block!r:.80}'
    )
