"""The steering engine's contract: what a host passes in, what it gets back, and the ports it provides.

The engine does no I/O. A host gives it a `Context` holding two ports: an `EntryStore` (the session's
typed entries, which observers write and `when.happened` reads) and optionally a `GitPort` (for the git
plugin's predicates). Everything else is values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, Protocol

from rein.steering.bash import EMPTY_ENV, Analysis, CommandRef, Env, Unknown

ToolName = Literal["bash", "write", "edit", "read"]
TOOLS: tuple[ToolName, ...] = ("bash", "write", "edit", "read")
"""The tools whose own rules read a command or a file; rules on any other tool (an MCP server's
`mcp__<server>__<tool>`, an extension's) read its arguments."""

NO_ARGS: Mapping[str, object] = MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """A tool call the agent wants to make. `command` for bash; `path` and `content` for files;
    `args`, the JSON arguments the model sent, for every tool (what rules on other tools read)."""

    tool: str
    command: str = ""
    path: str | None = None
    content: str | None = None
    id: str = ""
    args: Mapping[str, object] = field(default_factory=lambda: NO_ARGS)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """What a tool call produced. `exit_code` is None when the tool has none (file tools)."""

    call: ToolCall
    exit_code: int | None = None
    output: str = ""
    is_error: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """A typed session entry written by an observer, an `on_fire` hook or an override audit.

    `seq` orders entries: later entries have larger numbers. Speculative entries (synthesized for a
    `&&` chain during evaluation, never stored) order after every real one.
    """

    type: str
    data: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    agent_loop: int = 0
    seq: int = 0
    speculative: bool = False


class EntryStore(Protocol):
    """The session's entry log, as the host keeps it (pi's session JSONL, a per-session file, memory).

    `find` returns entries of one type, oldest first. `append` must not raise for valid input; a
    host that cannot persist reports that itself. Neither is called concurrently by the engine.
    """

    def find(self, type: str) -> Sequence[Entry]: ...

    def append(self, type: str, data: Mapping[str, object], agent_loop: int) -> Entry: ...


class MemoryEntries:
    """An in-memory `EntryStore`, for tests, `rein check` and hosts without a session file."""

    def __init__(self, entries: Sequence[Entry] = ()) -> None:
        self._entries: list[Entry] = list(entries)

    def find(self, type: str) -> Sequence[Entry]:
        return [entry for entry in self._entries if entry.type == type]

    def append(self, type: str, data: Mapping[str, object], agent_loop: int) -> Entry:
        seq = self._entries[-1].seq + 1 if self._entries else 1
        entry = Entry(type=type, data=MappingProxyType(dict(data)), agent_loop=agent_loop, seq=seq)
        self._entries.append(entry)
        return entry

    @property
    def entries(self) -> Sequence[Entry]:
        return tuple(self._entries)


@dataclass(frozen=True, slots=True, kw_only=True)
class GitResult:
    code: int
    stdout: str = ""


class GitPort(Protocol):
    """Runs `git` for the git plugin's predicates. Must not raise: a failure is a non-zero code."""

    def run(self, args: Sequence[str], cwd: str) -> GitResult: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class FileRead:
    """A file as a host read it for steering."""

    text: str | None
    """Its text; None when it is not a regular text file rein reads (too big, binary, unreadable)."""
    mtime: float
    """When it was last modified (seconds since the epoch), to tell what the agent changed."""
    executable: bool = False


class FilesPort(Protocol):
    """The host's file system as steering reads it at check time: the scripts, package.json files,
    makefiles, task files and git configuration a command will run. Hosts cache reads by path and
    modification time (the hook daemon keeps them warm). None of these may raise."""

    def read(self, path: str) -> FileRead | None:
        """The regular file at absolute `path`; None when there is none."""
        ...

    def exists(self, path: str) -> bool:
        """Whether anything is at absolute `path` (a file, a directory, a link)."""
        ...

    def which(self, name: str) -> str | None:
        """The program `name` as the host's PATH finds it (absolute), or None."""
        ...

    def now(self) -> float:
        """The current time, in the same clock as `FileRead.mtime`."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """Where and when a tool call happens.

    `branch` is the branch checked out at `cwd` when the call starts (None when not a repository or
    detached, UNKNOWN when the host could not tell). `agent_loop` is the index of the current user
    prompt; hosts advance it on each new prompt, and `when.happened` with `in = "agent_loop"` only
    sees entries written in the same loop.
    """

    cwd: str
    home: str
    env: Env = field(default_factory=lambda: EMPTY_ENV)
    branch: str | Unknown | None = None
    agent_loop: int = 0
    entries: EntryStore = field(default_factory=MemoryEntries)
    git: GitPort | None = None
    files: FilesPort | None = None
    """Where the files a command runs are read from at check time; None: only what the line itself
    writes is read (as before hosts gave one)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Override:
    """An accepted `# steering-override: <rule> - <why>` comment, on a rule the user made overridable."""

    rule: str
    why: str
    source: str = ""
    """The source of the rule it lifted (`defaults`, `user`, a plugin's name, `rein`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """The decision on one tool call, carrying the rule and source that decided.

    `reason` is tagged `[steering:<rule>@<source>] ...` when a rule decided. An allowed call may
    still name the rule that an override comment waived (`override`).
    """

    allow: bool
    reason: str = ""
    ask: bool = False
    """A call not allowed outright that a pack rule says to ask the person about: a host that can ask
    (an approval prompt, Claude Code's `permissionDecision: "ask"`, ACP's permission request) asks and
    runs it on a yes; a host where nobody can answer (print mode, CI) blocks it with `reason`."""
    pack: str | None = None
    """The pack of the rule that decided, when a pack rule did."""
    rule: str | None = None
    source: str | None = None
    ref: CommandRef | None = None
    analysis: Analysis | None = None
    override: Override | None = None
    decisions: tuple[RefDecision, ...] = ()
    """For `rein explain`: which rule (if any) decided each extracted command."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RefDecision:
    ref: CommandRef
    rule: str | None = None
    source: str | None = None
    unknown: bool = False
    """True when the rule fired because a value it needed could not be known."""
    pack: str | None = None
    """The pack of the rule, when a pack rule decided."""
    ask: bool = False
    """The rule asks the person rather than blocking."""
