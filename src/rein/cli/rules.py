"""`rein rules`: list the stream rules rein finds, and stream a file through them to see which fire.

Module imports stay light (typer only): rich and `rein.ttsr` (hyperscan, regex, YAML) load inside the
commands, so `rein --help` and the other subcommands never pay for them.

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  listed, or tested (whether or not a rule fired)
    2  usage or input error: a bad option, an unknown rule name, a file that cannot be read, a
       settings file that cannot be used
"""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rein.cli._typer import command, plain_app, run_app
from rein.settings import shown_path

if TYPE_CHECKING:
    from rich.console import Console

    from rein.ttsr import Discovery, Rule, RuleIssue, RuleMatch, TtsrManager, TtsrSettings

app = plain_app("List and test stream rules (TTSR).", no_args_is_help=True)


class SourceChoice(enum.StrEnum):
    text = "text"
    thinking = "thinking"
    tool = "tool"


CwdOption = Annotated[
    Path | None,
    typer.Option("--cwd", metavar="<dir>", help="Project directory to discover rules in (default: here)."),
]
HomeOption = Annotated[
    Path | None,
    typer.Option("--home", metavar="<dir>", help="Home directory for ~/.rein (default: your home)."),
]

_ENGINE_LABELS = {"hyperscan": "hyperscan", "prefilter": "prefilter+confirm", "fallback": "fallback"}


def run(args: list[str], prog: str) -> int:
    """Entry point used by `rein` (see `rein.cli.COMMANDS`)."""
    return run_app(app, args, prog)


def _console(stderr: bool = False) -> Console:
    from rich.console import Console

    console = Console(stderr=stderr, highlight=False)
    return console if console.is_terminal else Console(stderr=stderr, highlight=False, width=200)


def _fail(message: str) -> typer.Exit:
    _console(stderr=True).print(f"rein rules: {message}", markup=False)
    return typer.Exit(2)


def _load(cwd: Path | None, home: Path | None) -> tuple[Path, Path, TtsrSettings, Discovery]:
    from rein.settings import SettingsFileError, load_settings
    from rein.ttsr import SettingsError, TtsrSettings, discover_rules

    root = (cwd or Path.cwd()).resolve()
    home_dir = (home or Path.home()).resolve()
    if not root.is_dir():
        raise _fail(f"--cwd {root} is not a directory")
    try:
        groups = load_settings(root, home_dir)
        settings = TtsrSettings.from_mapping(groups.get("ttsr", {}), source="[ttsr] settings")
    except (SettingsFileError, SettingsError) as error:
        raise _fail(str(error)) from None
    return root, home_dir, settings, discover_rules(root, home_dir, builtin=settings.builtin_rules)


def _engine_text(manager: TtsrManager, index: int) -> tuple[str, str]:
    conditions = [c for c in manager.plan.conditions if c.rule_index == index]
    labels = []
    for condition in conditions:
        label = _ENGINE_LABELS[condition.engine]
        if condition.engine == "hyperscan" and condition.confirm:
            label += " (line confirm)"
        if label not in labels:
            labels.append(label)
    why = "; ".join(dict.fromkeys(c.note for c in conditions if c.note and c.engine != "hyperscan"))
    return ", ".join(labels), why


def _repeat_text(rule: Rule, settings: TtsrSettings) -> str:
    if rule.counts_firings:
        parts = [f"max {rule.max_firings}" if rule.max_firings is not None else "unlimited"]
        if rule.cooldown:
            parts.append(f"cooldown {rule.cooldown:g}s")
        return ", ".join(parts)
    mode = rule.repeat_mode or settings.repeat_mode
    gap = rule.repeat_gap if rule.repeat_gap is not None else settings.repeat_gap
    return f"after-gap {gap}" if mode == "after-gap" else "once"


def _issue_rows(issues: list[RuleIssue], root: Path, home: Path) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    for issue in issues:
        shown = shown_path(issue.path, root, home) if issue.path else ""
        where = shown if issue.line is None else f"{shown}:{issue.line}"
        rows.append((where or "(rule set)", issue.severity, issue.reason))
    return rows


@command(app, "list")
def list_rules(cwd: CwdOption = None, home: HomeOption = None) -> None:
    """Show every rule found, where it came from, how it matches, and why any file was skipped."""
    from rich.table import Table

    from rein.ttsr import TtsrManager

    root, home_dir, settings, discovery = _load(cwd, home)
    manager = TtsrManager(discovery.rules, settings, root=str(root))
    console = _console()
    table = Table(title=f"Stream rules ({_counted(manager.rules)} active)", title_justify="left")
    for column in ("Rule", "Source file", "Scope", "Extent", "Interrupt", "Repeat", "Matching path", "Why"):
        table.add_column(column, overflow="fold")
    for index, rule in enumerate(manager.rules):
        engine, why = _engine_text(manager, index)
        table.add_row(
            rule.name,
            shown_path(rule.path, root, home_dir),
            ", ".join(rule.scope.tokens()) + (f" [globs: {', '.join(rule.globs)}]" if rule.globs else ""),
            rule.extent,
            rule.interrupt_mode or settings.interrupt_mode,
            _repeat_text(rule, settings),
            engine,
            why,
        )
    console.print(table)
    skipped = _issue_rows([*discovery.issues, *manager.issues], root, home_dir)
    if skipped:
        warned = any(row[1] == "warning" for row in skipped)
        title = "Not loaded, or loaded with a warning" if warned else "Not loaded"
        issues = Table(title=title, title_justify="left")
        for column in ("File", "Kind", "Reason"):
            issues.add_column(column, overflow="fold")
        for row in skipped:
            issues.add_row(*row)
        console.print(issues)
    console.print(
        f"settings: enabled={str(settings.enabled).lower()} interrupt_mode={settings.interrupt_mode} "
        f"repeat_mode={settings.repeat_mode} repeat_gap={settings.repeat_gap} "
        f"context_mode={settings.context_mode}",
        markup=False,
    )
    console.print("searched: " + ", ".join(discovery.searched), markup=False)


@command(app, "test")
def test_rules(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE", help="File to stream through the rules, or - for stdin (the default)."
        ),
    ] = "-",
    source: Annotated[
        SourceChoice,
        typer.Option(
            "--source", metavar="<text|thinking|tool>", help="Which stream the text is (default: text)."
        ),
    ] = SourceChoice.text,
    tool: Annotated[
        str | None,
        typer.Option("--tool", metavar="<name>", help="Tool name for --source tool (default: write)."),
    ] = None,
    path: Annotated[
        str | None, typer.Option("--path", metavar="<file>", help="File path the text is written to.")
    ] = None,
    chunk: Annotated[
        int, typer.Option("--chunk", metavar="<n>", min=1, help="Characters per delta (default: 20).")
    ] = 20,
    json_args: Annotated[
        bool, typer.Option("--json-args", help="With --source tool: the input is already the JSON arguments.")
    ] = False,
    only: Annotated[
        list[str] | None, typer.Option("--rule", metavar="<name>", help="Test only this rule (repeatable).")
    ] = None,
    cwd: CwdOption = None,
    home: HomeOption = None,
) -> None:
    """Stream a file through the rules in chunks; show which rules fire, where, and if they interrupt.

    With --source tool the text is sent as the JSON arguments {"path": ..., "content": ...} of a tool call,
    so the argument decoder and path globs run as they do in a session.
    """
    from dataclasses import replace

    from rein.ttsr import MatchContext, TtsrManager

    root, _, settings, discovery = _load(cwd, home)
    rules = list(discovery.rules)
    if only:
        known = {rule.name for rule in rules}
        missing = [name for name in only if name not in known]
        if missing:
            raise _fail(f"unknown rule(s) {', '.join(missing)}; known: {', '.join(sorted(known)) or 'none'}")
        rules = [rule for rule in rules if rule.name in only]
    text = _read_input(file)
    manager = TtsrManager(rules, replace(settings, enabled=True), root=str(root))
    is_tool = source is SourceChoice.tool
    payload = text
    if is_tool and not json_args:
        payload = json.dumps(
            {"path": path, "content": text} if path else {"content": text}, ensure_ascii=False
        )
    context = MatchContext(
        source=source.value,
        tool_name=(tool or "write") if is_tool else None,
        tool_call_id="test" if is_tool else None,
        file_paths=(path,) if path and (json_args or not is_tool) else (),
    )
    fired: list[tuple[int | None, RuleMatch]] = []
    deltas = [payload[i : i + chunk] for i in range(0, len(payload), chunk)]
    for number, delta in enumerate(deltas, start=1):
        fired.extend((number, match) for match in manager.check_delta(delta, context))
    fired.extend((None, match) for match in manager.end_block(context))
    _print_test(manager, settings, discovery, fired, len(deltas), chunk, len(text))


def _read_input(file: str) -> str:
    try:
        if file == "-":
            return sys.stdin.read()
        return Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise _fail(f"cannot read {file}: {error}") from None


def _print_test(
    manager: TtsrManager,
    settings: TtsrSettings,
    discovery: Discovery,
    fired: list[tuple[int | None, RuleMatch]],
    deltas: int,
    chunk: int,
    size: int,
) -> None:
    from rich.table import Table

    console = _console()
    errors = [i for i in (*discovery.issues, *manager.issues) if i.severity == "error"]
    for issue in errors:
        _console(stderr=True).print(f"warning: skipped rule: {issue}", markup=False)
    if not settings.enabled:
        console.print("note: stream rules are disabled in settings (enabled = false); testing anyway.")
    head = f"{_counted(manager.rules)}, {size} characters in {deltas} deltas of {chunk}"
    if not fired:
        console.print(f"No rule fired ({head}).", markup=False)
        return
    table = Table(title=f"Rules fired ({head})", title_justify="left")
    for column in ("Delta", "Rule", "Where", "Offset", "Line:Col", "Interrupt", "Matching path", "Excerpt"):
        table.add_column(column, overflow="fold")
    for number, match in fired:
        table.add_row(
            str(number) if number is not None else "end",
            match.name,
            match.argument or match.source,
            str(match.offset),
            f"{match.line}:{match.column}",
            "yes" if match.interrupt else "no (reminder)",
            _ENGINE_LABELS[match.engine],
            match.excerpt,
        )
    console.print(table)
    first = next(((n, m) for n, m in fired if m.interrupt), None)
    if first is None:
        console.print("No match would interrupt: the rules would be delivered as reminders.")
    else:
        where = f"delta {first[0]}" if first[0] is not None else "the end of the block"
        console.print(f"The reply would be cut at {where} by {first[1].name!r}.", markup=False)


def _counted(rules: Sequence[Rule]) -> str:
    """`1 rule of yours and 7 built-in`: the built-in ones are not what a person wrote."""
    builtin = sum(1 for rule in rules if rule.builtin)
    own = len(rules) - builtin
    mine = f"{own} rule{'' if own == 1 else 's'} of yours"
    return f"{mine} and {builtin} built-in" if builtin else mine
