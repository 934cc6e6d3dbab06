"""Split a rule file into its YAML frontmatter and its Markdown body. PyYAML stays behind this boundary."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from rein.ttsr.errors import FrontmatterError

_FENCE = re.compile(r"^---[ \t]*$")
_END_FENCE = re.compile(r"^(?:---|\.\.\.)[ \t]*$")
_LOOSE_LINE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
_QUOTED = r"(?:\"[^\"]*\"|'[^']*')"
_QUOTED_LIST = re.compile(rf"{_QUOTED}(?:[ \t]*,[ \t]*{_QUOTED})+")
_QUOTED_ITEM = re.compile(_QUOTED)


@dataclass(frozen=True, slots=True, kw_only=True)
class Frontmatter:
    """The parsed head of a rule file."""

    fields: dict[str, object]
    """Keys as written, values as YAML (or the loose reader) gave them."""
    lines: dict[str, int]
    """The file line of each top-level key, so a bad value can be reported where it is."""
    body: str
    """The Markdown after the closing fence, without surrounding blank lines."""


def split_frontmatter(text: str, path: str) -> Frontmatter:
    """Read `text` (a whole rule file). A file without an opening `---` has no fields and is all body.

    YAML that does not parse falls back to a loose `key: value` reader when every line has that shape
    (Cursor writes `globs: *.ts`, which YAML reads as an alias); otherwise `FrontmatterError` names the
    file and line.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if not lines or not _FENCE.match(lines[0]):
        return Frontmatter(fields={}, lines={}, body=text.strip("\n"))
    end = next((i for i in range(1, len(lines)) if _END_FENCE.match(lines[i])), None)
    if end is None:
        raise FrontmatterError("frontmatter has no closing '---' line", path=path, line=1)
    head = lines[1:end]
    body = "\n".join(lines[end + 1 :]).strip("\n")
    key_lines = {m.group(1): i + 2 for i, raw in enumerate(head) if (m := _LOOSE_LINE.match(raw))}
    try:
        loaded = yaml.safe_load("\n".join(head))
    except yaml.YAMLError as error:
        loose = _loose(head)
        if loose is not None:
            return Frontmatter(fields=loose, lines=key_lines, body=body)
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(error, "problem", None) or str(error).split("\n", 1)[0]
        raise FrontmatterError(f"frontmatter is not valid YAML: {problem}", path=path, line=line) from None
    if loaded is None:
        return Frontmatter(fields={}, lines=key_lines, body=body)
    if not isinstance(loaded, dict):
        raise FrontmatterError("frontmatter must be a mapping of keys to values", path=path, line=2)
    fields: dict[str, object] = {}
    for key, value in loaded.items():
        if not isinstance(key, str):
            raise FrontmatterError(f"frontmatter key {key!r} is not a string", path=path, line=2)
        fields[key] = value
    return Frontmatter(fields=fields, lines=key_lines, body=body)


def _loose(head: list[str]) -> dict[str, object] | None:
    """`key: value` lines read as plain strings (`true`/`false` as booleans, surrounding quotes removed);
    a run of quoted items separated by commas (`scope: "text","thinking"`) as the list of those items.
    None if any line has another shape, an unbalanced quote, or a flow list or mapping."""
    fields: dict[str, object] = {}
    for raw in head:
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        match = _LOOSE_LINE.match(raw)
        if match is None:
            return None
        value = match.group(2)
        if value[:1] in {"[", "{"}:
            return None
        if _QUOTED_LIST.fullmatch(value):
            fields[match.group(1)] = [item[1:-1] for item in _QUOTED_ITEM.findall(value)]
            continue
        if value[:1] in {"'", '"'}:
            if len(value) < 2 or value[-1] != value[0]:
                return None
            value = value[1:-1]
        lowered = value.lower()
        fields[match.group(1)] = True if lowered == "true" else False if lowered == "false" else value
    return fields
