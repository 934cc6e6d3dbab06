"""Observers: which tool results they watch, and the entries a `&&` chain will write before a command.

In `make test && git commit`, `git commit` only runs if `make test` exited 0, so an observer that
writes `tests-passed` for `make test` will have written it by then. The evaluator sees that entry
speculatively (never stored). `;` and `||` give no such guarantee, so they get nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from rein.steering._anytool import any_tool, tool_matches, watch_args
from rein.steering._match import match_path
from rein.steering._rule import Observer, Watch
from rein.steering._types import Context, Entry, ToolResult
from rein.steering.bash import Analysis, CommandRef

SPECULATIVE_BASE = 1 << 60
"""Speculative entries order after every stored entry, in chain order."""


def watch_matches(
    watch: Watch, result: ToolResult, refs: Callable[[], Sequence[CommandRef]], cwd: str
) -> bool:
    """Whether an observer sees `result`: same tool (or one its glob names), command or path, exit code;
    for another tool, the argument its pattern is about.

    `refs` gives the extracted commands; it is only called when the raw command does not match
    already, so a result is parsed only when some observer needs it."""
    call = result.call
    if not tool_matches(watch.tool, call.tool):
        return False
    if any_tool(call.tool):
        return watch_args(watch, call)
    if watch.exit_code is not None and result.exit_code != watch.exit_code:
        return False
    if watch.path and not (call.path and any(match_path(g, call.path, cwd) for g in watch.path)):
        return False
    command = watch.command
    if command is None or command.search(call.command) is not None:
        return True
    return any(command.search(ref.text) is not None for ref in refs())


def speculative_entries(
    ref: CommandRef, analysis: Analysis, observers: tuple[Observer, ...], context: Context
) -> tuple[Entry, ...]:
    """Entries that observers will have written, on success, for the commands before `ref` in its
    `&&` chain."""
    if not ref.after or not observers:
        return ()
    entries: list[Entry] = []
    for index in ref.after:
        earlier = analysis.refs[index]
        for observer in observers:
            watch = observer.watch
            if watch.tool != "bash" or watch.exit_code not in (None, 0):
                continue
            if watch.command is None or watch.command.search(earlier.text) is None:
                continue
            data = MappingProxyType({"observer": observer.name, "command": earlier.text, "exit_code": 0})
            entries.extend(
                Entry(
                    type=entry_type,
                    data=data,
                    agent_loop=context.agent_loop,
                    seq=SPECULATIVE_BASE + index,
                    speculative=True,
                )
                for entry_type in observer.writes
            )
    return tuple(entries)


def observer_entries(
    observer: Observer, result: ToolResult, context: Context
) -> Mapping[str, Mapping[str, object]]:
    """The entries an observer writes for a result it sees: its handler's, or one per `writes`."""
    if observer.on_result is not None:
        return observer.on_result(result, context) or {}
    data: dict[str, object] = {"observer": observer.name, "tool": result.call.tool}
    if result.call.tool == "bash":
        data.update(command=result.call.command, exit_code=result.exit_code)
    elif any_tool(result.call.tool):
        data.update(args=dict(result.call.args), error=result.is_error)
    else:
        data.update(path=result.call.path)
    return dict.fromkeys(observer.writes, data)
