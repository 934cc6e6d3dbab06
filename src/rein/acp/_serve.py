"""`rein acp` over stdio: the SDK's connection on this process's stdin and stdout.

stdout carries the protocol only, so nothing else may print there; rein's warnings go to stderr.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from pathlib import Path

from acp import run_agent

from rein.acp._agent import ReinAgent
from rein.acp._types import SessionFactory


def stdio_problem() -> str | None:
    """Why this process's stdin/stdout cannot carry ACP, or None. The SDK's streams need pipes,
    sockets or terminals (an editor starts `rein acp` on pipes); a regular file is refused."""
    for fd, name in ((0, "stdin"), (1, "stdout")):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            return f"{name} is closed; an editor starts rein acp with pipes on stdin and stdout"
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            return f"{name} is a file; an editor starts rein acp with pipes on stdin and stdout"
    return None


async def serve_stdio(factory: SessionFactory, *, home: Path | None = None) -> None:
    """Serve ACP on stdin/stdout until the editor closes stdin; every session is shut down then."""
    agent = ReinAgent(factory, home=home or Path.home())
    try:
        await run_agent(agent)
    finally:
        await agent.close()


def serve(factory: SessionFactory, *, home: Path | None = None) -> int:
    """`serve_stdio` in its own event loop; 0 when the editor closed the connection."""
    asyncio.run(serve_stdio(factory, home=home))
    if sys.stdout.closed:  # the SDK's pipe transport closes it when the editor went away first
        sys.stdout = Path(os.devnull).open("w", encoding="utf-8")  # noqa: SIM115 (lives until exit)
    return 0
