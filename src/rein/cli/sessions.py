"""`rein sessions`: this directory's sessions (or every project's), newest first, one line each.

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  listed (also when there are none, or some files cannot be read: those are listed with why)
    2  usage error: a bad option
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer

from rein.cli._typer import command, plain_app, run_app
from rein.session import SessionInfo, list_all_sessions, list_sessions, sessions_dir

app = plain_app("List the sessions of this directory.")

ID_WIDTH = 8
"""How much of a session id the list shows; `rein export` takes any unique prefix."""


def run(args: list[str], prog: str) -> int:
    """Entry point used by `rein` (see `rein.cli.COMMANDS`)."""
    return run_app(app, args, prog)


@command(app)
def sessions(
    cwd: Annotated[
        Path | None,
        typer.Option("--cwd", metavar="<dir>", help="List the sessions of this directory (default: here)."),
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", help="List every project's sessions, grouped by directory.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per session.")] = False,
) -> None:
    """List the sessions of this directory, newest first: date, id, entries and size, model, and the
    first prompt.

    Sessions live in ~/.rein/sessions/; a file that cannot be read is listed with its problem. `rein
    export ID` writes one as an HTML page, `rein --resume FILE` continues it.

    Exit status: 0 listed, 2 usage error.
    """
    if every and cwd is not None:
        typer.echo("rein sessions: --all lists every directory; leave out --cwd", err=True)
        raise typer.Exit(2)
    home = Path.home()
    where = str((cwd or Path.cwd()).resolve())
    infos = list_all_sessions(home) if every else list_sessions(home, where)
    if as_json:
        for info in infos:
            print(json.dumps(info_json(info), ensure_ascii=False))
        return
    if not infos:
        looked = home / ".rein" / "sessions" if every else sessions_dir(home, where)
        print(f"no sessions {'yet' if every else 'of ' + where} (looked in {looked})")
        return
    columns = shutil.get_terminal_size().columns
    if not every:
        for info in infos:
            print(line(info, columns))
        return
    for directory, group in grouped(infos):
        print(f"{directory}:")
        for info in group:
            print(line(info, columns, indent="  "))


def info_json(info: SessionInfo) -> dict[str, object]:
    """A session as `--json` prints it (`problem` only for a file that cannot be read)."""
    out: dict[str, object] = {
        "id": info.id,
        "file": str(info.path),
        "cwd": info.cwd,
        "created": info.created,
        "modified": info.modified.isoformat(timespec="seconds"),
        "entries": info.entries,
        "bytes": info.bytes,
        "first_prompt": info.first_prompt,
        "model": info.model,
    }
    if info.problem is not None:
        out["problem"] = info.problem
    return out


def line(info: SessionInfo, columns: int, indent: str = "") -> str:
    """`2026-01-24 16:22  3f9a2c1e  12 entries  4.1 kB  faux/default  first prompt`, cut to `columns`."""
    head = f"{indent}{info.modified:%Y-%m-%d %H:%M}  {info.id[:ID_WIDTH]:<{ID_WIDTH}}  "
    if info.problem is not None:
        return head + info.problem
    count = f"{info.entries} {'entry' if info.entries == 1 else 'entries'}"
    prompt = " ".join(info.first_prompt.split()) or "(no prompt)"
    text = f"{head}{count:>11}  {size(info.bytes):>8}  {info.model or '-'}  {prompt}"
    return text if len(text) <= columns else text[: max(columns - 3, len(head))] + "..."


def size(count: int) -> str:
    """A file size as people read it: `812 B`, `4.1 kB`, `2.3 MB`."""
    if count < 1000:
        return f"{count} B"
    value = float(count)
    for unit in ("kB", "MB", "GB"):
        value /= 1000
        if value < 1000 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


def grouped(infos: Iterable[SessionInfo]) -> list[tuple[str, list[SessionInfo]]]:
    """Sessions by directory (a file that cannot be read: by the folder it is in), the directory with
    the newest session first; each group keeps the order it was given."""
    groups: dict[str, list[SessionInfo]] = {}
    for info in infos:
        groups.setdefault(info.cwd or str(info.path.parent), []).append(info)
    return list(groups.items())
