"""The shell tool `Guard.bash` gives a framework: a command run with bash in the guard's directory.

Frameworks pass a tool's return value to the model and to rein's hooks as text, with no exit code, so
`Guard.bash` keeps each command's exit code for `Guard.tool_finished`: observers that wait for
`exit_code = 0` ("tests passed before commit") then work through every adapter.
"""

from __future__ import annotations

import os
import signal
import subprocess

MAX_OUTPUT = 30_000
"""Characters of output kept (the tail: errors and results come last), as rein's own bash tool."""
TIMEOUT = 120.0


def run_bash(command: str, *, cwd: str, timeout: float = TIMEOUT) -> tuple[str, int | None]:
    """Run `command` with `bash -c` in `cwd`: its output (stdout and stderr interleaved, the tail kept)
    and its exit code, None when it timed out (its process group is killed)."""
    with subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: a timeout kills what it started too
    ) as process:
        try:
            raw, _ = process.communicate(timeout=timeout)
            code: int | None = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raw, _ = process.communicate()
            code = None
    output = raw.decode(errors="replace") or "(no output)"
    if len(output) > MAX_OUTPUT:
        output = f"[... {len(output) - MAX_OUTPUT} characters cut ...]\n" + output[-MAX_OUTPUT:]
    if code is None:
        return output + f"\n[command timed out after {timeout:g} s; its process group was killed]", None
    return (output + f"\n[exit code {code}]" if code else output), code
