"""The docs a newcomer reads: README.md and docs/*.md.

- Every internal link resolves: a relative file link names a file that exists, and a `#anchor` names a
  heading of the page it points to, with the slug rules of mkdocs' `toc` extension (reimplemented here;
  the slow build test checks the reimplementation against the ids in the built site).
- Every runnable command runs. The convention (also stated in docs/index.md): a ```bash block holds
  commands a reader can run as they are, one per line; a line ending in a backslash continues on the
  next, and blank and comment lines are skipped. Each line runs in `bash -c`, in a fresh git repository
  per page (lines of a page run in order, so files persist between them; `cd` and variables do not),
  with HOME set to an empty temporary directory, no API keys in the environment, the virtualenv's bin
  first on PATH (so `rein` resolves), stdin closed, and a timeout per command; it must exit 0.
  Commands that need a key or a person, that are expected to fail, or that run somewhere else (the
  repository's own `make` targets) go in ```console or ```text blocks, which are never run. `make demo`
  and `make test` are not run even in a ```bash block: they are the demo and this suite themselves.
- `mkdocs build --strict` succeeds, offline, into a temporary directory.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
NOT_RUN = frozenset({"make demo", "make test"})
SHELL_INFOS = frozenset({"sh", "shell", "zsh", "shell-session", "shellsession"})
TIMEOUT = 60
UNCLOSED = "\x00unclosed"

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^`\s]*)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TAG = re.compile(r"<[^>]*>")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<!\w)(__|_)(?=\S)(.+?)(?<=\S)\1(?!\w)")
_LINK_TEXT = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    info: str
    start: int  # 1-based line of the opening fence
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    line: int
    text: str


def split(text: str) -> tuple[list[Block], list[tuple[int, str]]]:
    """Fenced blocks, and the other lines (1-based number, text): the prose where headings and links are."""
    blocks: list[Block] = []
    prose: list[tuple[int, str]] = []
    fence: tuple[str, str, int] | None = None
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence, body = (match.group(1), match.group(2).lower(), number), []
            else:
                prose.append((number, line))
            continue
        marker, info, start = fence
        closing = line.strip()
        if closing and set(closing) == {marker[0]} and len(closing) >= len(marker):
            blocks.append(Block(info=info, start=start, lines=tuple(body)))
            fence = None
        else:
            body.append(line)
    if fence is not None:  # never closed: what follows is code, as a renderer shows it
        blocks.append(Block(info=fence[1], start=fence[2], lines=(*body, UNCLOSED)))
    return blocks, prose


def commands(block: Block) -> list[Command]:
    """The lines of a ```bash block as commands: continuations joined, blanks and comments skipped."""
    found: list[Command] = []
    pending: list[str] = []
    first = 0
    for offset, line in enumerate(block.lines, start=1):
        if not pending:
            first = block.start + offset
            if not line.strip() or line.lstrip().startswith("#"):
                continue
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        found.append(Command(line=first, text=" ".join([*pending, line]).strip()))
        pending = []
    if pending:
        found.append(Command(line=first, text=" ".join(pending).strip()))
    return found


def slugify(value: str) -> str:
    """Python-Markdown's toc `slugify` with its defaults (separator "-", ASCII only)."""
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def heading_name(raw: str) -> str:
    """The text toc slugifies: the heading rendered, tags stripped, entities decoded; code kept as written."""
    parts: list[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(raw):
        parts.append(_plain(raw[last : match.start()]))
        parts.append(match.group(2).strip())
        last = match.end()
    parts.append(_plain(raw[last:]))
    return " ".join("".join(parts).split())


def _plain(text: str) -> str:
    text = _LINK_TEXT.sub(r"\1", text)
    text = _UNDERSCORE_EMPHASIS.sub(r"\2", text)
    return html.unescape(_TAG.sub("", text))


def anchors(text: str) -> set[str]:
    """Every heading id of a page, duplicates suffixed `_1`, `_2`, ... as toc does."""
    used: set[str] = set()
    for _, line in split(text)[1]:
        match = _HEADING.match(line)
        if not match:
            continue
        slug = slugify(heading_name(match.group(2)))
        if slug in used or not slug:
            count = 1
            while f"{slug}_{count}" in used:
                count += 1
            slug = f"{slug}_{count}"
        used.add(slug)
    return used


def links(text: str) -> list[tuple[int, str]]:
    """Link targets in the prose (code spans and blocks excluded), with their line numbers."""
    found: list[tuple[int, str]] = []
    for number, line in split(text)[1]:
        prose = _CODE_SPAN.sub("", line)
        found.extend((number, target) for target in _LINK.findall(prose))
        ref = _REF_DEF.match(prose)
        if ref:
            found.append((number, ref.group(1)))
    return found


def broken_links(page: Path, docs: Path = DOCS) -> list[str]:
    problems: list[str] = []
    for number, target in links(page.read_text()):
        if not target or _SCHEME.match(target):
            continue
        where = f"{page.name}:{number}: {target}"
        path_part, _, anchor = target.partition("#")
        resolved = (page.parent / path_part).resolve() if path_part else page
        if not resolved.exists():
            problems.append(f"{where}: no such file")
            continue
        if page.parent == docs and not resolved.is_relative_to(docs):
            problems.append(f"{where}: a docs page may only link inside docs/ (mkdocs cannot follow it)")
            continue
        if anchor:
            if resolved.suffix != ".md":
                problems.append(f"{where}: an anchor into a file that is not a page")
            elif anchor not in anchors(resolved.read_text()):
                problems.append(f"{where}: no heading with the id '{anchor}' in {resolved.name}")
    return problems


def runnable(page: Path) -> list[Command]:
    return [
        command
        for block in split(page.read_text())[0]
        if block.info == "bash"
        for command in commands(block)
        if command.text not in NOT_RUN and UNCLOSED not in command.text
    ]


def test_the_docs_exist_and_the_readme_is_the_front_door() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 200, "README.md is the front door; the reference goes in docs/"
    assert "## What it looks like" in readme, "the place for the capture of the UI"
    assert (DOCS / "index.md").is_file()
    assert runnable(ROOT / "README.md"), "the README's tour shows runnable commands"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_internal_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shell_blocks_say_whether_they_run(page: Path) -> None:
    unclear = [
        f"{page.relative_to(ROOT)}:{block.start}: ```{block.info}"
        for block in split(page.read_text())[0]
        if block.info in SHELL_INFOS
    ]
    assert unclear == [], "mark a shell block bash (run by the tests) or console (shown, never run)"
    unclosed = [block.start for block in split(page.read_text())[0] if block.lines[-1:] == (UNCLOSED,)]
    assert unclosed == [], f"{page.name}: code blocks opened at these lines are never closed"


def test_the_checker_finds_what_is_broken(tmp_path: Path) -> None:
    # The checker itself must fail on what it is there to catch (a test that cannot fail proves nothing).
    text = (
        "# A `rein` page\n\n## Two words\n\n```bash\n# [no](nope.md)\necho a \\\n  b\n```\n"
        "[x](#two-words) [y](#a-rein-page) [z](#gone)\n"
    )
    assert anchors(text) == {"a-rein-page", "two-words"}
    assert [t for _, t in links(text)] == ["#two-words", "#a-rein-page", "#gone"]
    assert commands(split(text)[0][0]) == [Command(line=7, text="echo a    b")]
    assert split("```bash\nls\n")[0][0].lines == ("ls", UNCLOSED)
    cases = {
        "`rein rules test [FILE|-] [--tool NAME]`": "rein-rules-test-file-tool-name",
        "Steering: `rein check` and [explain](x.md), _fast_": "steering-rein-check-and-explain-fast",
        "The `<system-reminder>` block &amp; more": "the-system-reminder-block-more",
        "Code in other languages": "code-in-other-languages",
    }
    assert {raw: slugify(heading_name(raw)) for raw in cases} == cases
    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "outside.md").write_text("# Outside\n")
    (docs / "b.md").write_text("# B\n\n## Here\n")
    (docs / "a.md").write_text(
        "# A\n\n[ok](b.md#here) [anchor](b.md#there) [file](c.md) [out](../outside.md) [web](https://x.org/y)\n"
    )
    assert broken_links(docs / "a.md", docs) == [
        "a.md:3: b.md#there: no heading with the id 'there' in b.md",
        "a.md:3: c.md: no such file",
        "a.md:3: ../outside.md: a docs page may only link inside docs/ (mkdocs cannot follow it)",
    ]


def _environment(home: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.endswith(("_API_KEY", "_BASE_URL")) and name not in {"CODEX_HOME", "VIRTUAL_ENV"}
    }
    venv_bin = Path(sys.executable).parent
    env.update(
        HOME=str(home),
        PATH=f"{venv_bin}{os.pathsep}{env.get('PATH', '')}",
        NO_COLOR="1",
        COLUMNS="120",
        GIT_AUTHOR_NAME="Docs Test",
        GIT_AUTHOR_EMAIL="docs@example.invalid",
        GIT_COMMITTER_NAME="Docs Test",
        GIT_COMMITTER_EMAIL="docs@example.invalid",
    )
    return env


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if runnable(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_runnable_command_exits_zero(page: Path, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = _environment(home)
    assert (Path(sys.executable).parent / "rein").exists(), "run the tests from the virtualenv"
    subprocess.run(["git", "init", "-q"], cwd=project, env=env, check=True)
    for command in runnable(page):
        where = f"{page.relative_to(ROOT)}:{command.line}: {command.text}"
        try:
            done = subprocess.run(
                ["bash", "-c", command.text],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"{where}: still running after {TIMEOUT} s")
        assert done.returncode == 0, (
            f"{where}: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )


@pytest.mark.slow
def test_the_site_builds_strict_and_offline(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    # Any fetch at build time (fonts, social cards) would go to a closed port and fail the build.
    env.update(NO_MKDOCS_2_WARNING="1", HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", site],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for page in sorted(DOCS.glob("*.md")):
        built = site / ("index.html" if page.stem == "index" else f"{page.stem}/index.html")
        ids = set(re.findall(r'\sid="([^"]+)"', built.read_text()))
        missing = anchors(page.read_text()) - ids
        assert missing == set(), f"{page.name}: the slug rules here differ from the built site: {missing}"
