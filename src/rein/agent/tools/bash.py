"""`bash`: run a command in a shell, with a timeout, output truncation, and abort that kills the group."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Mapping
from pathlib import Path

from rein.agent._tool import ExecutionMode, ToolContext, ToolError, ToolOutput
from rein.agent.tools import _args

DEFAULT_TIMEOUT = 120
MAX_OUTPUT = 30_000
KILL_GRACE = 2.0


def truncate(output: str, limit: int = MAX_OUTPUT, earlier: int = 0) -> str:
    """Keep the tail (errors and results come last), saying how much was cut; `earlier` characters
    were dropped before `output` already."""
    cut = earlier + max(0, len(output) - limit)
    if not cut:
        return output
    return f"[... {cut} characters cut ...]\n" + output[-limit:]


class _Tail:
    """What `truncate` would keep of the output so far, without holding all of it: the last characters
    (at most twice the limit between trims) and how many came before them. Bytes are decoded
    incrementally, so a character split across two reads stays whole."""

    def __init__(self, limit: int = MAX_OUTPUT) -> None:
        self.limit = limit
        self.cut = 0
        self.kept = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def feed(self, data: bytes, *, final: bool = False) -> None:
        self.kept += self._decoder.decode(data, final)
        if len(self.kept) > 2 * self.limit:
            excess = len(self.kept) - self.limit
            self.cut += excess
            self.kept = self.kept[excess:]

    def text(self) -> str:
        return truncate(self.kept, self.limit, self.cut)


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            await asyncio.wait_for(process.wait(), KILL_GRACE)
            return
        except TimeoutError:
            continue


class Bash:
    name = "bash"
    description = (
        "Run a bash command in the working directory and return its output (stdout and stderr together)."
        f" Default timeout {DEFAULT_TIMEOUT} s. Long output keeps its last {MAX_OUTPUT // 1000}K characters."
    )
    parameters: Mapping[str, object] = {
        "type": "object",
        "properties": {
            "command": {"type": "string"},
            "timeout": {"type": "integer", "description": "Seconds before the command is killed."},
        },
        "required": ["command"],
    }
    # Sequential: validation commands must not overlap sibling tool calls.
    execution_mode: ExecutionMode = "sequential"

    def mutates(self, args: Mapping[str, object], cwd: str) -> str | None:
        return None

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        command = _args.text(args, "command")
        timeout = _args.integer(args, "timeout", DEFAULT_TIMEOUT, minimum=1)
        if not Path(context.cwd).is_dir():
            raise ToolError(f"working directory {context.cwd} does not exist")
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            cwd=context.cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # its own process group, so abort reaches its children too
        )
        tail = _Tail()

        async def pump() -> None:
            assert process.stdout is not None
            while data := await process.stdout.read(4096):
                tail.feed(data)
                context.on_update(ToolOutput(text=tail.text()))
            await process.wait()

        reader = asyncio.ensure_future(pump())
        aborted = asyncio.ensure_future(context.abort.wait())
        try:
            done, _ = await asyncio.wait(
                {reader, aborted}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            aborted.cancel()
        if reader not in done:
            await _kill_group(process)
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            why = "aborted" if context.abort.aborted else f"timed out after {timeout} s"
            tail.feed(b"", final=True)
            return ToolOutput(
                text=tail.text() + f"\n[command {why}; its process group was killed]",
                is_error=True,
                details={"exit_code": None, "aborted": context.abort.aborted},
            )
        code = process.returncode
        tail.feed(b"", final=True)
        output = tail.text() or "(no output)"
        if code != 0:
            output += f"\n[exit code {code}]"
        return ToolOutput(text=output, is_error=code != 0, details={"exit_code": code})
