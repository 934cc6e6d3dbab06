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
- Every server command starts. A ```console block right after the line `<!-- runs: serves -->` (an
  HTML comment: the site does not show it) holds commands that serve until stopped (`rein serve`,
  `rein proxy`), one per `$ ` line; the other lines are their output. Each starts as a bash line does,
  on a free port (its `--port` replaced or added), must answer on that port, and must stop with exit 0
  on SIGINT (Ctrl+C) without a traceback or an error line.
- `mkdocs build --strict` succeeds, offline, into a temporary directory.
"""

from __future__ import annotations

import html
import os
import re
import signal
import socket
import subprocess
import sys
import time
import unicodedata
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
NOT_RUN = frozenset({"make demo", "make test"})
SERVES = "<!-- runs: serves -->"
HEALTH = {"rein serve": "/health", "rein proxy": "/rein/status"}
"""The servers a `runs: serves` block may start, and the path each answers (locally) once it serves."""
STARTUP_TIMEOUT = 60
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
_PORT = re.compile(r"--port(?:=|\s+)\S+")
_BAD_OUTPUT = re.compile(r"Traceback|\berror\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    info: str
    start: int  # 1-based line of the opening fence
    lines: tuple[str, ...]
    before: str = ""  # the line above the opening fence, stripped (where a `<!-- runs: ... -->` goes)


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
    above = ""
    previous = ""
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence, body, above = (match.group(1), match.group(2).lower(), number), [], previous
            else:
                prose.append((number, line))
            previous = line.strip()
            continue
        marker, info, start = fence
        closing = line.strip()
        if closing and set(closing) == {marker[0]} and len(closing) >= len(marker):
            blocks.append(Block(info=info, start=start, lines=tuple(body), before=above))
            fence, previous = None, ""
        else:
            body.append(line)
    if fence is not None:  # never closed: what follows is code, as a renderer shows it
        blocks.append(Block(info=fence[1], start=fence[2], lines=(*body, UNCLOSED), before=above))
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


def serving(page: Path) -> list[Command]:
    """The `$ ` lines of the ```console blocks marked `<!-- runs: serves -->`, without the prompt."""
    return [
        Command(line=block.start + offset, text=line.strip()[2:].strip())
        for block in split(page.read_text())[0]
        if block.info == "console" and block.before == SERVES
        for offset, line in enumerate(block.lines, start=1)
        if line.strip().startswith("$ ")
    ]


def on_port(command: str, port: int) -> str:
    """`command` without its trailing comment, listening on `port`."""
    code = without_comment(command)
    return _PORT.sub(f"--port {port}", code) if _PORT.search(code) else f"{code} --port {port}"


def without_comment(command: str) -> str:
    """A shell line up to its `#` comment (a `#` that starts a word outside quotes)."""
    quote = ""
    for index, char in enumerate(command):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or command[index - 1].isspace()):
            return command[:index].rstrip()
    return command.rstrip()


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
    marks = [number for number, line in split(page.read_text())[1] if line.strip().startswith("<!-- runs:")]
    marked = [block for block in split(page.read_text())[0] if block.before == SERVES]
    assert len(marks) == len(marked), f"{page.name}:{marks}: write `{SERVES}` right above a ```console block"
    assert all(block.info == "console" and serving_lines(block) for block in marked), (
        f"{page.name}: `{SERVES}` marks a ```console block of `$ ` command lines"
    )


def serving_lines(block: Block) -> list[str]:
    return [line for line in block.lines if line.strip().startswith("$ ")]


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
    served = f"# S\n\n{SERVES}\n```console\n$ rein serve   # then open it\nrein serve: listening\n```\n"
    (block,) = split(served)[0]
    assert block.before == SERVES and serving_lines(block) == ["$ rein serve   # then open it"]
    assert split(f"{SERVES}\n\n```console\n$ x\n```\n")[0][0].before == ""  # not right above: not marked
    assert on_port("rein serve   # then open http://127.0.0.1:4217/#x", 9) == "rein serve --port 9"
    assert on_port("rein proxy --port 8787 --upstream 'a#b' # c", 9) == "rein proxy --port 9 --upstream 'a#b'"
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
@pytest.mark.parametrize("page", [p for p in PAGES if serving(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_server_command_starts_and_stops(page: Path, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = _environment(home)
    subprocess.run(["git", "init", "-q"], cwd=project, env=env, check=True)
    for number, command in enumerate(serving(page)):
        where = f"{page.relative_to(ROOT)}:{command.line}: {command.text}"
        port = _free_port()
        program = next((name for name in HEALTH if command.text.startswith(name)), "")
        assert program, f"{where}: the test knows how to see these up: {', '.join(HEALTH)}"
        out = tmp_path / f"serve-{number}.log"
        with out.open("wb") as log:  # a new session: SIGINT reaches the server, not this test
            process = subprocess.Popen(
                ["bash", "-c", on_port(command.text, port)],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            _wait_until_served(process, f"http://127.0.0.1:{port}{HEALTH[program]}", where, out)
            os.killpg(process.pid, signal.SIGINT)
            code = process.wait(timeout=TIMEOUT)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        said = out.read_text(errors="replace")
        assert code == 0 and not _BAD_OUTPUT.search(said), f"{where}: exit {code} on SIGINT\n{said[-2000:]}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_served(process: subprocess.Popen[bytes], url: str, where: str, log: Path) -> None:
    """Until `url` answers 200: then the server handles signals itself (before, a Ctrl+C is Python's)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{where}: exited {process.returncode} before it served\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        time.sleep(0.05)
    pytest.fail(f"{where}: {url} did not answer in {STARTUP_TIMEOUT} s\n{log.read_text()[-2000:]}")


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
