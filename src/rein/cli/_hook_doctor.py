"""`rein hook doctor HOST [--user | --project]`: is rein's hook installed, trusted, current and fast?

Prints one line per finding and the two probe calls with their times; exit 0 when the hooks will run
and answer (an allowed `ls`, a blocked force push), 1 when something needs fixing (said on its line).
"""

from __future__ import annotations

from pathlib import Path

from rein.hooks import (
    ALLOWED,
    DENIED,
    SETTINGS,
    UNKNOWN_EXIT,
    Scope,
    installed,
    module,
    pre_tool,
    probe,
    stale,
    start,
)


def run(host: str, scope: Scope) -> int:
    cwd, home = Path.cwd(), Path.home()
    title = SETTINGS[host].title
    path, commands = installed(host, scope, cwd, home)
    if not commands:
        print(f"{title}: rein's hooks are not installed in {path}")
        print(f"  fix: rein hook install {host}{' --project' if scope == 'project' else ''}")
        return 1
    problems = 0
    print(f"{title}: rein's hooks in {path}")
    for event, command in commands.items():
        print(f"  {event}: {command}")
    hook = commands.get(pre_tool(host))
    for why in dict.fromkeys(filter(None, map(stale, commands.values()))):  # one line per program
        problems += 1
        print(f"  stale: {why}")
    trusting = module(host)
    if trusting is not None:
        state = trusting.status(path, scope=scope, cwd=cwd, home=home)
        problems += not state.trusted
        print(f"  trust: {'trusted' if state.trusted else 'NOT TRUSTED'} ({state.detail})")
    if host in UNKNOWN_EXIT:
        print(f"  exit codes: {UNKNOWN_EXIT[host]}")
    running = start(str(home))  # so the probes show the time of a warm call
    print(f"  daemon: {running if isinstance(running, str) else f'running, pid {running.pid}'}")
    if hook is None:
        print(f"  no pre-tool hook ({pre_tool(host)}): nothing blocks tool calls")
        return 1
    for command, want in ((ALLOWED, False), (DENIED, True)):
        result = probe(host, command, hook, cwd)
        shown = "blocked" if result.denied else "allowed"
        print(f"  probe {command!r}: {shown if result.ok else 'FAILED'} in {result.ms:.0f} ms", end="")
        print(f" ({result.reason})" if result.reason else "")
        problems += not result.ok or result.denied != want
    print("ok" if not problems else f"{problems} problem(s) found")
    return 0 if not problems else 1
