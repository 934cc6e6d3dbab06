"""Steering where the exchanges meet it: checking a whole reply's tool calls (a non-streamed request),
and counting and logging each refusal the same way for both paths."""

from __future__ import annotations

import asyncio

from rein.proxy._codec import Codec, Json
from rein.proxy._state import Request, Shared
from rein.proxy._steer import Blocked


async def steer_whole(shared: Shared, request: Request, codec: Codec, response: Json) -> Blocked | None:
    """The first tool call of a whole reply steering refuses, or None (also when steering is off)."""
    steering = shared.steering
    if steering.mode == "off":
        return None
    calls = [
        (context.tool_name or "", text, context.json_arguments, 0)
        for context, text in codec.contents(response)
        if context.source == "tool"
    ]
    if not calls:
        return None
    return await asyncio.to_thread(steering.check, calls, cwd=request.cwd, session=request.session)


def record_refusal(shared: Shared, api: str, blocked: Blocked, *, attempt: int, action: str) -> None:
    """Count and log one tool call steering refused."""
    shared.status.steering_blocks[blocked.rule] += 1
    shared.log({
        "event": "steering", "api": api, "rule": blocked.rule, "tool": blocked.tool,
        "command": blocked.command[:200], "path": blocked.path, "ask": blocked.verdict.ask,
        "attempt": attempt, "action": action, "reason": blocked.verdict.reason,
    })  # fmt: skip
