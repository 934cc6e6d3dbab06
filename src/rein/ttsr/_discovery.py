"""Find rule files on disk. The only module of `rein.ttsr` that reads files.

Sources, in order; the first rule of a name wins and later ones are reported as shadowed:

1. `<cwd>/.rein/rules/*.md`
2. `<home>/.rein/rules/*.md`
3. formats users already have, in the project: `.pi/rules/*.md`, `.omp/rules/*.md`,
   `.cursor/rules/*.mdc`, `.windsurf/rules/*.md`, `.clinerules` (a folder of `*.md`, or one file),
   `.agent/rules/*.md`
4. rein's built-in rules (package data in `rein/ttsr/builtin/`)

Each folder is read flat, files in name order. A file that cannot be read or parsed becomes a
`RuleIssue` (reported once, with file and line); the other files still load.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rein.ttsr._parse import parse_rule
from rein.ttsr._rule import Rule, RuleIssue, shadowed
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
    """(label, folder or file, file suffix) for every on-disk source, in precedence order."""
    sources = [
        (".rein/rules", cwd / ".rein" / "rules", ".md"),
        ("~/.rein/rules", home / ".rein" / "rules", ".md"),
    ]
    sources += [(label, cwd / label, suffix) for label, suffix in _PROJECT_SOURCES]
    return sources


def discover_rules(cwd: Path, home: Path, *, builtin: bool = True) -> Discovery:
    """Read every source under `cwd` and `home` (and the built-in rules unless `builtin` is False)."""
    rules: list[Rule] = []
    issues: list[RuleIssue] = []
    seen: dict[str, Rule] = {}
    searched: list[str] = []
    visited: set[Path] = set()
    for label, place, suffix in rule_sources(cwd, home):
        searched.append(str(place))
        resolved = place.resolve() if place.exists() else place
        if resolved in visited:
            continue
        visited.add(resolved)
        for path in _files(place, suffix):
            _add(load_rule_file(path, origin=label), rules, issues, seen)
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


def load_rule_file(path: Path, *, origin: str = "") -> Rule | RuleIssue:
    """Read and parse one rule file; a problem comes back as a `RuleIssue` instead of an exception."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return RuleIssue(path=str(path), reason=f"cannot read the file: {error}")
    try:
        return parse_rule(text, name=path.stem, path=str(path), origin=origin)
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


def _files(place: Path, suffix: str) -> list[Path]:
    if place.is_file():
        return [place]
    if not place.is_dir():
        return []
    return sorted(p for p in place.iterdir() if p.is_file() and p.name.endswith(suffix))


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
    seen[item.name] = item
    rules.append(item)
