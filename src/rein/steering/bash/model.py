"""The values bash analysis produces: words, command references, walker state.

Everything here is a frozen value. The analysis reads a command line once and hands every rule the same
normalized view, so a rule never re-parses and never sees quoting tricks: `\\rm`, `r\\m`, `'rm'` and
`$'\\x72m'` all arrive as the word `rm`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, Literal, Protocol


class Unknown:
    """The value of something that cannot be known without running the command (`cd $(pwd)`)."""

    _instance: Unknown | None = None

    def __new__(cls) -> Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<unknown>"

    def __reduce__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = Unknown()
"""The unknown value of which nothing is known. Test for unknown values with `isinstance(x, Unknown)`:
a `Bounded` value is unknown too."""

BoundKind = Literal["temp", "below", "ref", "reflines", "link"]


class Bounded(Unknown):
    """An unknown value of which rein knows where it can point.

    `temp`: a fresh temporary path (`$(mktemp -d)`): absolute, new, never `/`, home or a flag.
    `below`: a path at or below `path` (`find . -exec rm {} +` gives paths below `.`); `path` is
    absolute, or relative to an unknown cwd. `ref`: a git ref name (`$(git branch --show-current)`),
    which never starts with `-`. `reflines`: lines that each start with a git ref name (`git branch
    -vv`): their first field is a ref, the rest is any text. `link`: the content of a file the line
    made a symbolic link to `path` (`ln -s / r`).
    """

    __slots__ = ("kind", "path")

    def __new__(cls, kind: BoundKind, path: str = "") -> Bounded:
        value = object.__new__(cls)
        value.kind, value.path = kind, path
        return value

    def __init__(self, kind: BoundKind, path: str = "") -> None:
        self.kind: BoundKind = kind
        self.path = path

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bounded) and (other.kind, other.path) == (self.kind, self.path)

    def __hash__(self) -> int:
        return hash((self.kind, self.path))

    def __repr__(self) -> str:
        return f"<{self.kind} {self.path}>" if self.path else f"<{self.kind}>"

    def __reduce__(self) -> tuple[type[Bounded], tuple[str, str]]:  # type: ignore[override]
        return (Bounded, (self.kind, self.path))


ExpansionKind = Literal["var", "command", "arith", "process", "glob", "runtime", "option", "other"]
"""`runtime`: an argument a runner supplies when it runs (`xargs`, `find -exec ... {}`); `option`: an
abbreviated option the tool reads as one of several (`git push --forc`): either may be any flag."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Expansion:
    """A part of a word that only the shell knows at run time."""

    kind: ExpansionKind
    raw: str
    """The source text, e.g. `$HOME`, `${WS}`, `$(pwd)`."""
    name: str | None = None
    """For `var`: the variable name (`HOME`), so the walker can resolve it from tracked assignments."""
    value: str | Unknown | None = None
    """What the walker worked out about the value where it could: a command substitution's output
    (`$(pwd)`, `$(mktemp)`), the bound of a run-time argument; None when it did not."""
    index: str | None = None
    """For an array element `${a[0]}` or `${a[@]}`: the subscript as written."""
    span: tuple[int, int | None] | None = None
    """For a slice `${@:2}`, `${a[@]:1:2}`: the offset and the length (None: to the end)."""
    quoted: bool = False
    """Inside double quotes: the value is one word, not split on blanks."""


WordPart = str | Expansion


@dataclass(frozen=True, slots=True, kw_only=True)
class Word:
    """One shell word after quote removal.

    `value` is the canonical text: quotes removed, backslash escapes resolved, `$'...'` decoded,
    adjacent parts joined. Expansions stay in `value` as their raw text (`rm -rf "$HOME"` has the
    word `$HOME`), so a regex can still see them; `dynamic` says the word holds one.
    """

    value: str
    raw: str
    parts: tuple[WordPart, ...] = ()
    """Literal strings and expansions in order. Empty means the whole word is the literal `value`."""

    @property
    def dynamic(self) -> bool:
        return bool(self.parts) and any(isinstance(part, Expansion) for part in self.parts)

    @classmethod
    def literal(cls, text: str) -> Word:
        return cls(value=text, raw=text)


def named(word: Word) -> bool:
    """A command word whose directory is only known at run time but whose file name is literal
    (`$VENV/bin/python`, `$(npm bin)/eslint`): it runs a program of that name."""
    last = word.parts[-1] if word.parts else ""
    if not isinstance(last, str) or "/" not in last:
        return False
    base = last.rpartition("/")[2]
    return bool(base) and base not in (".", "..") and not any(char in base for char in "*?[")


@dataclass(frozen=True, slots=True, kw_only=True)
class Code:
    """The program text of an interpreter one-liner (`python -c`, `node -e`, `perl -e`, `ruby -e`), or
    what a database client runs (`psql -c`, a heredoc to `mysql`, `redis-cli FLUSHALL`): language
    `sql`, `cql`, `mongo` or `redis`."""

    language: str
    text: str


Env = Mapping[str, "str | Unknown"]
EMPTY_ENV: Final[Env] = MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class State:
    """What the shell state is when one command runs.

    `cwd` is absolute, or UNKNOWN. `env` is the command's own environment, what it and any shell it
    starts see: the variables known at start (with HOME, and PWD kept as the shell's own directory),
    those the command line assigned or exported, and those its prefix (`D=x cmd`) and its wrappers
    (`env D=x cmd`, `sudo D=x cmd`, `env -u D`, `env -i`) set or remove (values may be UNKNOWN; a
    missing one is unknown too). `values` holds each tracker's value by tracker name; the git
    plugin's tracker keeps `branch` there (a branch name, None for detached or not a repo, UNKNOWN).

    The command's words are expanded before any of that applies, by the shell that runs the command
    line: `D=/; D=/tmp/x rm -rf "$D"/*` removes `/*`. `expand_env` holds the variables they were
    expanded with, when they differ from `env`; read them through `expansion`.
    """

    cwd: str | Unknown
    env: Env = field(default_factory=lambda: EMPTY_ENV)
    values: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    expand_env: Env | None = None
    """The shell variables the command's arguments and redirects were expanded with; None: `env`."""

    @property
    def expansion(self) -> Env:
        """The variables `$D`, `${D}` and `~` in the command's own words read (not the command's `env`)."""
        return self.env if self.expand_env is None else self.expand_env

    @property
    def branch(self) -> str | Unknown | None:
        value = self.values.get("branch")
        return value if isinstance(value, str | Unknown) else None


@dataclass(frozen=True, slots=True)
class Stdin:
    """Where a command's standard input comes from, and what rein knows of it."""

    kind: Literal["heredoc", "herestring", "file", "pipe"]
    text: str = ""
    """The heredoc body or herestring as written; for a file, its path."""
    content: str | Unknown = UNKNOWN
    """What the command reads, after the shell's expansions; UNKNOWN where rein cannot tell (a pipe
    from a command whose output it does not know, a file on disk). A `Bounded` content says what each
    line is (`find .` prints paths below `.`)."""


CommandKind = Literal["inert", "runner", "unknown"]
"""What rein's command model says of a command name: its arguments are data and it runs nothing
(`inert`: `echo`, `grep`, `git commit -m`), a table entry says where the command it runs is (`runner`:
`sudo`, `xargs`, `bash -c`, `uv run`), or rein does not know the program (`unknown`), so every suffix of
its argv that starts with a command rein knows, and every string argument that parses as bash, is
checked as if it ran."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandRef:
    """One command the shell would execute, with the state at its position.

    For `sudo bash -c 'cd /tmp && rm -rf x'` there are refs for `sudo` (the outer command as
    written), `cd /tmp` and `rm -rf x`: wrappers are unwrapped, the inner commands carry the
    wrapper chain, and the outer one is kept too so rules about the wrapper itself still work.
    """

    index: int
    """Position in `Analysis.refs`, in execution order."""
    argv: tuple[Word, ...]
    raw: str
    """The source text this command came from (for an unwrapped command, its own text)."""
    state: State
    wrappers: tuple[str, ...] = ()
    """Wrapper chain, outermost first, e.g. `("sudo", "bash -c")`."""
    via: str = ""
    """How it was reached when not directly: `$()`, `<()`, heredoc, eval, function, ..."""
    code: Code | None = None
    unknown: tuple[str, ...] = ()
    """Why parts of this command cannot be known statically (dynamic command name, dynamic eval)."""
    after: tuple[int, ...] = ()
    """Indices of refs that have certainly exited 0 whenever this one runs (`a && b`: b.after = (a,))."""
    kind: CommandKind = "inert"
    why: str = ""
    """Why rein checks this command although it is not written as one: the suffix of an unknown
    command's argv, a string argument that parses as bash, a function body at its call site, ..."""
    background: bool = False
    """It runs in the background (`cmd &`, a detached session): the shell does not wait for it."""
    origin: str = ""
    """The file on disk it comes from, as a place a person can find (`package.json scripts.clean`,
    `Makefile:12`, `deploy.sh:3`); empty for a command the line itself holds."""
    lenient: bool = False
    """It comes from a file of the person's that rein read from disk (one the agent has not written
    or changed this session): a rule blocks it only on a definite finding, never on what rein cannot
    know there, since project scripts build commands at run time all the time."""
    rewritten: tuple[str, ...] = ()
    """Why `argv` is not the argv written: an alias or configuration written out as the program will
    act on it (`'git undo' is the alias 'git reset --hard' (.git/config:9)`)."""
    tolerated: tuple[str, ...] = ()
    """What rein could not read in a file of the person's this command runs (shown by `rein explain`;
    never blocking)."""
    writes: tuple[str, ...] = ()
    """The files the command writes, by absolute path, as far as rein can name them: its own
    redirects (`> /dev/sdb`) and what the command model says it writes (`cp`, `dd of=`, `tee`, ...)."""

    _name: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_name", posixpath.basename(self.argv[0].value) if self.argv else "")

    @property
    def name(self) -> str:
        """The basename of the command word: `/usr/bin/git` is `git`."""
        return self._name

    @property
    def name_dynamic(self) -> bool:
        """Whether the command's name is only known at run time (`$CMD`). A word whose directory is
        dynamic but whose file name is literal (`$VENV/bin/python`) names its program."""
        return bool(self.argv) and self.argv[0].dynamic and not named(self.argv[0])

    @property
    def args(self) -> tuple[Word, ...]:
        return self.argv[1:]

    @property
    def text(self) -> str:
        """The canonical command line: argv values joined by single spaces."""
        return " ".join(word.value for word in self.argv)

    def flags(self) -> Iterator[str]:
        """Each flag argument, with bundled short flags also split: `-uf` gives `-uf`, `-u`, `-f`."""
        for word in self.args:
            value = word.value
            if value == "--":
                return
            if value.startswith("--"):
                yield value.split("=", 1)[0]
            elif value.startswith("-") and len(value) > 1:
                yield value
                if len(value) > 2 and value[1:].isalpha():
                    yield from (f"-{letter}" for letter in value[1:])


@dataclass(frozen=True, slots=True, kw_only=True)
class Analysis:
    """The result of analysing one command line.

    `problems` is empty only when the parser understood all of the input. Anything else (a parse
    error, a node the walker does not model) makes the evaluator fail closed.
    """

    source: str
    refs: tuple[CommandRef, ...]
    problems: tuple[str, ...] = ()
    comments: tuple[str, ...] = ()
    """The text of every real shell comment (not `#` inside quotes), for override comments."""
    exhausted: str = ""
    """Why the analysis stopped before the end (nesting or work past rein's budget); empty when it
    read everything. Such a command is blocked."""
    writes: tuple[str, ...] = ()
    """The files the line writes, by absolute path (redirects, `tee`, `cp`, edits in place, ...)."""
    writes_unnamed: bool = False
    """The line may write files rein cannot name (a download, an archive, a program that writes)."""
    contents: tuple[tuple[str, str], ...] = ()
    """What the line leaves in each file of `writes` whose whole text rein knows, by path."""

    @property
    def understood(self) -> bool:
        return not self.problems and not self.exhausted


class Tracker(Protocol):
    """One dimension of walker state that a plugin models, such as the git plugin's `branch`.

    Both methods are pure and must not raise (if one does, the walker records a problem and uses
    UNKNOWN); return UNKNOWN when the effect cannot be known. The walker owns scoping, so a tracker
    only describes one command's effect: `if`/`case` keep only values all branches agree on; a
    value changed where the walker cannot say whether or when the change lands (a subshell, a
    pipeline member, `$( )`, a background job, a loop body, `xargs` or `find -exec`) becomes
    UNKNOWN afterwards, since a tracker's state (a checked-out branch) can outlive the process that
    changed it; a command run by a wrapper that finishes first (`sudo`, `bash -c`) passes its value
    on. `ref.state` is the state before the command, with this tracker's incoming value in `values`.
    """

    name: str

    def at(self, value: object, ref: CommandRef) -> object:
        """The value the command itself sees (`git -C dir ...` sees dir's branch, not ours)."""
        ...

    def after(self, value: object, ref: CommandRef) -> object:
        """The value for the commands that follow (`git checkout x` makes it `x`)."""
        ...
