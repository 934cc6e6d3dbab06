"""Find rule files on disk. The only module of `rein.ttsr` that reads files.

Sources, in order; the first rule of a name wins and later ones are reported as shadowed:

1. `<cwd>/.rein/rules/*.md`
2. `<home>/.rein/rules/*.md`
3. formats users already have, in the project: `.pi/rules/*.md`, `.omp/rules/*.md`,
   `.cursor/rules/*.mdc`, `.windsurf/rules/*.md`, `.clinerules` (a folder of `*.md`, or one file),
   `.agent/rules/*.md`
4. rein's built-in rules (package data in `rein/ttsr/builtin/`)

The rules of 3 were written for JavaScript agents: their conditions are read as JavaScript regular
expressions (`dialect="javascript"`). rein's own sources (1, 2, 4) keep Python's reading.

Each folder is read flat, files in name order. A file that cannot be read or parsed becomes a
`RuleIssue` (reported once, with file and line); the other files still load. So does an entry that
looks like a rule file but is not one (a directory named `x.md`, a link to nothing) and a source that
is a link to nothing: never silence.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rein.ttsr._parse import parse_rule
from rein.ttsr._rule import Dialect, Rule, RuleIssue, shadowed
from rein.ttsr.errors import NotAStreamRule, RuleError

BUILTIN_ORIGIN = "builtin"

_PROJECT_SOURCES: tuple[tuple[str, str], ...] = (
    (".pi/rules", ".md"),
    (".omp/rules", ".md"),
    (".cursor/rules", ".mdc"),
    (".windsurf/rules", ".md"),
    (".clinerules", ".md"),
    (".agent/rules", ".md"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Discovery:
    """Every usable rule found (one per name, in source order) and every file that was not used."""

    rules: tuple[Rule, ...]
    issues: tuple[RuleIssue, ...]
    searched: tuple[str, ...]
    """The places looked at, in order (for `rein rules list`)."""


def rule_sources(cwd: Path, home: Path) -> list[tuple[str, Path, str]]:
    """(label, folder or file, file suffix) for every on-disk source, in precedence order. `dialect_of`
    gives each label's regex dialect."""
    sources = [
        (".rein/rules", cwd / ".rein" / "rules", ".md"),
        ("~/.rein/rules", home / ".rein" / "rules", ".md"),
    ]
    sources += [(label, cwd / label, suffix) for label, suffix in _PROJECT_SOURCES]
    return sources


def dialect_of(origin: str) -> Dialect:
    """The regex dialect of a discovery source: `javascript` for JavaScript agents' folders."""
    return "javascript" if any(origin == label for label, _ in _PROJECT_SOURCES) else "python"


def discover_rules(
    cwd: Path, home: Path, *, builtin: bool = True, folders: Sequence[Path] | None = None
) -> Discovery:
    """Read every source under `cwd` and `home` (and the built-in rules unless `builtin` is False).
    `folders` replaces the on-disk sources with these folders of `*.md` rule files."""
    rules: list[Rule] = []
    issues: list[RuleIssue] = []
    seen: dict[str, Rule] = {}
    searched: list[str] = []
    visited: set[Path] = set()
    places = rule_sources(cwd, home) if folders is None else [(str(f), f, ".md") for f in folders]
    for label, place, suffix in places:
        searched.append(str(place))
        resolved = place.resolve() if place.exists() else place
        if resolved in visited:
            continue
        visited.add(resolved)
        for found in _files(place, suffix):
            loaded = (
                load_rule_file(found, origin=label, dialect=dialect_of(label))
                if isinstance(found, Path)
                else found
            )
            _add(loaded, rules, issues, seen)
    if builtin:
        searched.append("builtin")
        for name, text in builtin_rule_texts():
            item: Rule | RuleIssue
            try:
                item = parse_rule(text, name=Path(name).stem, path=f"builtin:{name}", origin=BUILTIN_ORIGIN)
            except RuleError as error:  # pragma: no cover - the shipped rules are tested
                item = _issue(error, f"builtin:{name}")
            _add(item, rules, issues, seen)
    return Discovery(rules=tuple(rules), issues=tuple(issues), searched=tuple(searched))


def load_rule_file(path: Path, *, origin: str = "", dialect: Dialect = "python") -> Rule | RuleIssue:
    """Read and parse one rule file; a problem comes back as a `RuleIssue` instead of an exception."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return RuleIssue(path=str(path), reason=f"cannot read the file: {error}")
    try:
        return parse_rule(text, name=path.stem, path=str(path), origin=origin, dialect=dialect)
    except RuleError as error:
        return _issue(error, str(path))


def builtin_rule_texts() -> Iterator[tuple[str, str]]:
    """(file name, text) of each built-in rule, in name order."""
    folder = resources.files("rein.ttsr") / "builtin"
    entries = sorted(
        (entry for entry in folder.iterdir() if entry.name.endswith(".md")), key=lambda e: e.name
    )
    for entry in entries:
        yield entry.name, entry.read_text(encoding="utf-8")


def _files(place: Path, suffix: str) -> list[Path | RuleIssue]:
    """The rule files of a source (a folder, or one file), and an issue for each entry that is named
    like one but cannot be read as a file."""
    if place.is_file():
        return [place]
    if not place.is_dir():
        return [_not_a_file(place)] if place.is_symlink() else []  # a source linked to nothing
    return [
        path if path.is_file() else _not_a_file(path)
        for path in sorted(place.iterdir())
        if path.name.endswith(suffix)
    ]


def _not_a_file(path: Path) -> RuleIssue:
    """The issue of a rule path that is not a regular file (reading a fifo would block)."""
    if path.is_dir():
        reason = "is a directory, not a rule file"
    elif path.is_symlink() and not path.exists():
        reason = f"is a link to {path.readlink()}, which does not exist"
    else:
        reason = "is not a regular file"
    return RuleIssue(path=str(path), reason=reason)


def _issue(error: RuleError, path: str) -> RuleIssue:
    info = isinstance(error, NotAStreamRule)
    return RuleIssue(
        path=error.path or path, line=error.line, reason=error.reason, severity="info" if info else "error"
    )


def _add(item: Rule | RuleIssue, rules: list[Rule], issues: list[RuleIssue], seen: dict[str, Rule]) -> None:
    if isinstance(item, RuleIssue):
        issues.append(item)
        return
    first = seen.get(item.name)
    if first is not None:
        issues.append(shadowed(item, first))
        return
    issues.extend(item.warnings)
    seen[item.name] = item
    rules.append(item)
