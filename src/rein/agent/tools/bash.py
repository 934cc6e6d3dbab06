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
DRAIN = 0.3
"""Seconds the output is still read after the shell exits: a process it started in the background
(`npm run dev &`) may hold the output open for as long as it runs, and the call does not wait for it."""

_background: set[asyncio.Future[None]] = set()
"""Readers still draining the output of background processes after their call returned: kept reading,
so a server's next log line does not meet a closed pipe."""


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
        # The output pipe is ours, not asyncio's: `process.wait()` then returns when the shell exits,
        # not when the last process holding the pipe open (a server started with `&`) closes it.
        read_end, write_end = os.pipe()
        try:
            process = await asyncio.create_subprocess_exec(
                "bash",
                "-c",
                command,
                cwd=context.cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_end,
                stderr=write_end,
                start_new_session=True,  # its own process group, so abort reaches its children too
            )
        finally:
            os.close(write_end)
        stream = asyncio.StreamReader()
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream), os.fdopen(read_end, "rb", 0)
        )
        tail = _Tail()
        returned = False

        async def pump() -> None:
            try:
                while data := await stream.read(4096):
                    if not returned:
                        tail.feed(data)
                        context.on_update(ToolOutput(text=tail.text()))
            finally:
                transport.close()

        reader = asyncio.ensure_future(pump())
        exited = asyncio.ensure_future(process.wait())
        aborted = asyncio.ensure_future(context.abort.wait())
        try:
            done, _ = await asyncio.wait(
                {exited, aborted}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            aborted.cancel()
        if exited in done:  # the shell is done; what it left running in the background is not waited for
            await asyncio.wait({reader}, timeout=DRAIN)
            returned = True
            if not reader.done():
                _background.add(reader)
                reader.add_done_callback(_background.discard)
        else:
            exited.cancel()
        if exited not in done:
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
