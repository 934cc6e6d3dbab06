"""Turn the tables of a `.rein/steering.toml` into rules and observers, with errors naming file and line.

[[rule]]
name = "no-npm"                 # letters, digits, . _ -
reason = "Use pnpm here."
command = "npm"                 # basename, or a list
subcommand = ["install", "i"]   # leading words ("stash drop"), or a list of them
flags = ["-g"]                  # any present; bundled short flags are split
not_flags = ["--dry-run"]       # none present
args = ["^\\+"]                 # regexes; some positional argument matches
pattern = "regex"               # searched in the canonical command line
requires = "regex"              # must also match the command line
unless = "regex"                # must not match it
tool = "bash"                   # or write / edit / read, with field = "path" | "content"
                                # or any tool or glob ("mcp__pg__*"), field = "sql" | "options.branch"
allow_override = false          # true: an agent may lift it with `# steering-override: <rule> - <why>`
no_override = false             # true: never overridable, whatever allow_override lists say
on_unknown = "block"            # or "allow"
verdict = "block"               # or "ask": ask the person (blocks where nobody can answer)
writes = ["^/dev/sd"]           # regexes: some file the command writes (redirects, cp, dd of=, tee)
sql = ["drop", "truncate"]      # kinds of SQL statement the command runs (delete-all, update-all, write)
code = ["dropDatabase\\("]      # regexes searched in the code it runs (a client's queries, a one-liner)
test = "system-path"            # a structural test rein names: system-path, fork-bomb
on_fire = { write = ["npm-blocked"] }
[rule.when]
cwd = "~/work/*"                # globs
branch = ["main", "release/*"]
happened = { event = "tests-passed", in = "agent_loop", since = "file-written" }
not = { happened = { event = "tests-passed" } }
upstream = true                 # plugin predicates by name

[[observer]]
name = "tests"
writes = ["tests-passed"]
watch = { tool = "bash", command = "^(pytest|make test)", exit_code = 0 }
# or watch = { tool = "mcp__github__create_*", field = "base", pattern = "^main$" }
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import cast, get_args

from rein.steering._anytool import any_tool, bad_field, bad_glob
from rein.steering._names import check_name
from rein.steering._pack_tests import TESTS
from rein.steering._pattern import SafePattern
from rein.steering._rule import Decision, Happened, Matcher, Observer, OnUnknown, Rule, Scope, Watch, When
from rein.steering.errors import ConfigError

RULE_KEYS = frozenset(
    {
        "name",
        "reason",
        "tool",
        "field",
        "pattern",
        "command",
        "subcommand",
        "flags",
        "not_flags",
        "args",
        "requires",
        "unless",
        "when",
        "allow_override",
        "no_override",
        "on_unknown",
        "on_fire",
        "verdict",
        "writes",
        "sql",
        "code",
        "test",
    }
)
SQL_KINDS = ("drop", "truncate", "delete-all", "update-all", "write")
_BUILTIN = "bash, write, edit, read"
BASH_ONLY = ("command", "subcommand", "flags", "not_flags", "args", "writes", "code", "test")
"""Keys a rule on another tool (which reads arguments, not a command line) has no use for."""
FILE_FIELDS = ("command", "path", "content")
WHEN_CORE = frozenset({"cwd", "branch", "happened", "not"})
HAPPENED_KEYS = frozenset({"event", "in", "since"})
ON_FIRE_KEYS = frozenset({"write"})
OBSERVER_KEYS = frozenset({"name", "writes", "watch"})
WATCH_KEYS = frozenset({"tool", "command", "path", "exit_code", "field", "pattern"})


def show(value: object) -> str:
    """`value` as TOML writes it (`"yes"`, `5`, `[1]`), for messages."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


class Reader:
    """Reads one table of one file; every error it raises names the file and the table's line."""

    def __init__(
        self, table: Mapping[str, object], *, file: str, line: int | None, what: str, lazy: bool = False
    ) -> None:
        self.table = table
        self.file = file
        self.line = line
        self.what = what
        self.lazy = lazy
        """Regexes compile at their first search (rein's own packs, which its tests compile)."""

    def fail(self, message: str) -> ConfigError:
        return ConfigError(f"{self.what}: {message}", file=self.file, line=self.line)

    def known(self, keys: frozenset[str]) -> None:
        for key in self.table:
            if key not in keys:
                raise self.fail(f"unknown key {key!r} (known: {', '.join(sorted(keys))})")

    def string(self, key: str, default: str | None = None) -> str | None:
        value = self.table.get(key, default)
        if value is not None and not isinstance(value, str):
            raise self.fail(f"{key} must be a string, not {show(value)}")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.table.get(key, ())
        if isinstance(value, str):
            return (value,)
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return tuple(cast(list[str], value))
        raise self.fail(f"{key} must be a string or a list of strings, not {show(value)}")

    def boolean(self, key: str) -> bool:
        value = self.table.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(f"{key} must be true or false, not {show(value)}")
        return value

    def choice(self, key: str, options: tuple[str, ...], default: str) -> str:
        value = self.table.get(key, default)
        if not isinstance(value, str) or value not in options:
            raise self.fail(f"{key} must be one of {', '.join(options)}, not {show(value)}")
        return value

    def regex(self, key: str, text: str | None = None) -> SafePattern | None:
        source = self.string(key) if text is None else text
        if source is None:
            return None
        try:
            return SafePattern(source, lazy=self.lazy)
        except ValueError as error:
            raise self.fail(f"{key} is not a valid regex ({error}): {source!r}") from None

    def regexes(self, key: str) -> tuple[SafePattern, ...]:
        return tuple(p for text in self.strings(key) if (p := self.regex(key, text)) is not None)

    def table_of(self, key: str) -> Mapping[str, object]:
        value = self.table.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(f"{key} must be a table, not {show(value)}")
        return cast(dict[str, object], value)

    def child(self, table: Mapping[str, object], what: str) -> Reader:
        return Reader(table, file=self.file, line=self.line, what=f"{self.what} {what}", lazy=self.lazy)


def table_lines(text: str, header: str) -> list[int]:
    """The line of each `[[header]]` table, in order."""
    pattern = re.compile(rf"^[ \t]*\[\[[ \t]*{header}[ \t]*\]\]", re.MULTILINE)
    return [text.count("\n", 0, match.start()) + 1 for match in pattern.finditer(text)]


def _when(reader: Reader) -> When:
    happened_table = reader.table_of("happened")
    happened: Happened | None = None
    if happened_table:
        spec = reader.child(happened_table, "happened")
        spec.known(HAPPENED_KEYS)
        event = spec.string("event")
        if event is None:
            raise spec.fail("needs an event")
        scope = cast(Scope, spec.choice("in", get_args(Scope), "agent_loop"))
        happened = Happened(event=event, in_=scope, since=spec.string("since"))
    not_table = reader.table_of("not")
    plugin = {key: value for key, value in reader.table.items() if key not in WHEN_CORE}
    return When(
        cwd=reader.strings("cwd"),
        branch=reader.strings("branch"),
        happened=happened,
        not_=_when(reader.child(not_table, "not")) if not_table else None,
        plugin=plugin,
    )


def read_rule(
    table: Mapping[str, object],
    *,
    file: str,
    line: int | None,
    index: int,
    default_verdict: str = "block",
    lazy: bool = False,
) -> Rule:
    reader = Reader(table, file=file, line=line, what=f"rule #{index + 1}", lazy=lazy)
    name = check_name("rule", table.get("name"), file=file, line=line)
    reader.what = f"rule {name!r}"
    reader.known(RULE_KEYS)
    if not reader.string("reason"):
        raise reader.fail("needs a reason (the agent reads it to know what to do instead)")
    tool = _tool(reader)
    if any_tool(tool):
        return _any_tool_rule(reader, name, tool, default_verdict)
    field_name = reader.table.get("field", "command" if tool == "bash" else "path")
    if field_name not in FILE_FIELDS:
        raise reader.fail(
            f"field must be one of {', '.join(FILE_FIELDS)}, not {show(field_name)} (an argument of another"
            ' tool needs that tool named: tool = "mcp__server__tool", or a glob of names)'
        )
    subcommands = tuple(tuple(sub.split()) for sub in reader.strings("subcommand"))
    for kind in reader.strings("sql"):
        if kind not in SQL_KINDS:
            raise reader.fail(_bad_kind(kind))
    test_name = reader.string("test")
    test = TESTS.get(test_name) if test_name is not None else None
    if test_name is not None and test is None:
        raise reader.fail(f"test must be one of {', '.join(sorted(TESTS))}, not {show(test_name)}")
    matcher = Matcher(
        pattern=reader.regex("pattern"),
        command=frozenset(reader.strings("command")),
        subcommand=subcommands,
        flags=frozenset(reader.strings("flags")),
        not_flags=frozenset(reader.strings("not_flags")),
        args=reader.regexes("args"),
        writes=reader.regexes("writes"),
        sql=frozenset(reader.strings("sql")),
        code=reader.regexes("code"),
        test=test,
        tests_any_name=test is not None and not table.get("command"),
    )
    if matcher.empty:
        raise reader.fail(
            "needs a matcher: pattern, command, subcommand, flags, args, writes, sql, code or test"
        )
    if tool != "bash" and matcher.pattern is None:
        raise reader.fail(f"a {tool} rule matches its {field_name} with a pattern")
    return _rule(reader, name, tool, field_name, matcher, default_verdict)


def _rule(reader: Reader, name: str, tool: str, field: str, matcher: Matcher, default_verdict: str) -> Rule:
    """The rule of a table whose tool, field and matcher are read: the keys every rule shares."""
    fire = reader.child(reader.table_of("on_fire"), "on_fire")
    fire.known(ON_FIRE_KEYS)
    return Rule(
        name=name,
        source="user",
        reason=reader.string("reason") or "",
        tool=tool,
        field=field,
        matcher=matcher,
        requires=reader.regex("requires"),
        unless=reader.regex("unless"),
        when=_when(reader.child(reader.table_of("when"), "when")),
        allow_override=reader.boolean("allow_override"),
        no_override=reader.boolean("no_override"),
        on_unknown=cast(OnUnknown, reader.choice("on_unknown", ("block", "allow"), "block")),
        verdict=cast(Decision, reader.choice("verdict", get_args(Decision), default_verdict)),
        writes_on_fire=fire.strings("write"),
        origin=f"{reader.file}:{reader.line}" if reader.line else reader.file,
    )


def _tool(reader: Reader) -> str:
    """A table's `tool`: bash, a file tool, or any other tool's name or a glob of names."""
    tool = reader.table.get("tool", "bash")
    if not isinstance(tool, str):
        raise reader.fail(f"tool must be one of {_BUILTIN}, not {show(tool)} (or another tool's name)")
    why = bad_glob(tool) if any_tool(tool) else None
    if why is not None:
        raise reader.fail(
            f"tool must be one of {_BUILTIN}, not {show(tool)} (or another tool's name, or a glob of"
            f" names: {why})"
        )
    return tool


def _not_for(reader: Reader, tool: str, key: str) -> ConfigError:
    """A key of bash or the file tools on a table about another tool: most likely a misnamed tool."""
    return reader.fail(
        f"tool must be one of {_BUILTIN}, not {show(tool)}, with {key} (a rule or watch on another tool"
        " reads its arguments, with field and pattern)"
    )


def _bad_kind(kind: str) -> str:
    return (
        f"sql kinds are {', '.join(SQL_KINDS[:-1])}, not {show(kind)} (write, too: any statement but a read)"
    )


def _field(reader: Reader) -> str:
    """A rule's or a watch's argument of another tool: a dotted path, or "" for all of them."""
    field = reader.string("field", "") or ""
    if field and bad_field(field):
        raise reader.fail(
            f"field must be an argument's name or a dotted path into one (options.branch), not {show(field)}"
        )
    return field


def _any_tool_rule(reader: Reader, name: str, tool: str, default_verdict: str) -> Rule:
    """A rule on a tool other than bash and the file tools: matched on the arguments of its calls."""
    for key in BASH_ONLY:
        if key in reader.table:
            raise _not_for(reader, tool, key)
    field = _field(reader)
    for kind in reader.strings("sql"):
        if kind not in SQL_KINDS:
            raise reader.fail(_bad_kind(kind))
    matcher = Matcher(pattern=reader.regex("pattern"), sql=frozenset(reader.strings("sql")))
    if field and matcher.empty:
        raise reader.fail(f"field {show(field)} needs a pattern or sql kinds to match it with")
    return _rule(reader, name, tool, field, matcher, default_verdict)


def read_observer(table: Mapping[str, object], *, file: str, line: int | None, index: int) -> Observer:
    name = check_name("observer", table.get("name"), file=file, line=line)
    reader = Reader(table, file=file, line=line, what=f"observer {name!r}")
    reader.known(OBSERVER_KEYS)
    watch = reader.child(reader.table_of("watch"), "watch")
    watch.known(WATCH_KEYS)
    exit_code = watch.table.get("exit_code")
    if exit_code is not None and (not isinstance(exit_code, int) or isinstance(exit_code, bool)):
        raise watch.fail(f"exit_code must be an integer, not {show(exit_code)}")
    writes = reader.strings("writes")
    for entry_type in writes:
        check_name("entry type", entry_type, file=file, line=line)
    tool = _tool(watch)
    for key in ("command", "path", "exit_code") if any_tool(tool) else ():
        if key in watch.table:
            raise _not_for(watch, tool, key)
    if not any_tool(tool) and ("field" in watch.table or "pattern" in watch.table):
        raise watch.fail(f"field and pattern read another tool's arguments; a {tool} watch has command, path")
    return Observer(
        name=name,
        source="user",
        watch=Watch(
            tool=tool,
            command=watch.regex("command"),
            path=watch.strings("path"),
            exit_code=exit_code,
            field=_field(watch),
            pattern=watch.regex("pattern"),
        ),
        writes=writes,
        origin=f"{file}:{line}" if line else file,
    )
