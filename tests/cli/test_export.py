"""`rein export`: a session as a self-contained HTML page, checked by its parsed structure."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rein.ai import (
    AssistantMessage,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    message_to_json,
)
from rein.builtins import steering, ttsr
from rein.builtins.timebox import WARNING
from rein.html import _entries as _html_entries
from rein.html import body
from rein.session import CustomEntry, Session, sessions_dir
from rein.steering._engine import AUDIT_ENTRY
from rein.timebox import ACTIVE, OFF
from tests.cli.helpers import run_rein

FIXTURES = Path(__file__).resolve().parents[1] / "session" / "fixtures"
HOSTILE = '</details></div><script>alert(1)</script>" onmouseover="alert(2)" \' x=\''
VOID = frozenset({"meta", "link", "br", "img", "hr", "input"})


@dataclass
class Node:
    tag: str
    attrs: dict[str, str | None]
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        found: list[Node] = []
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            if (tag is None or node.tag == tag) and (cls is None or cls in node.classes) and node is not self:
                found.append(node)
            stack.extend(reversed([c for c in node.children if isinstance(c, Node)]))
        return found


class TreeParser(HTMLParser):
    """A DOM of the page; `problems` lists every end tag that does not close the open element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.open: list[Node] = [self.root]
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.open[-1].children.append(node)
        if tag not in VOID:
            self.open.append(node)

    def handle_endtag(self, tag: str) -> None:
        if self.open[-1].tag != tag:
            self.problems.append(f"</{tag}> closes <{self.open[-1].tag}>")
            return
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


def parse(page: str) -> Node:
    parser = TreeParser()
    parser.feed(page)
    parser.close()
    assert parser.problems == []
    assert [n.tag for n in parser.open] == ["#root"]
    return parser.root


def by_id(root: Node, entry_id: str) -> Node:
    found = [n for n in root.all() if n.attrs.get("id") == f"e-{entry_id}"]
    assert len(found) == 1, entry_id
    return found[0]


def add(store: Session, message: Message) -> str:
    return store.append_message(message_to_json(message))


def reply(*content: TextContent | ThinkingContent | ToolCall) -> AssistantMessage:
    return AssistantMessage(content=content, provider="faux", model="default", stop_reason="tool_use")


def result(call: str, name: str, text: str, *, error: bool = False) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call, tool_name=name, content=(TextContent(text=text),), is_error=error
    )


@dataclass(frozen=True)
class Built:
    path: Path
    id: str
    ids: dict[str, str]


def build(cwd: Path, home: Path) -> Built:
    """A session with every kind of entry, a hostile text in each place text goes, and two branches."""
    store = Session.create(cwd, home=home)
    ids: dict[str, str] = {}
    ids["model"] = store.append_model_change("faux", "default")
    ids["user"] = add(store, UserMessage.of(f"Fix the tests {HOSTILE}"))
    ids["first"] = add(
        store,
        reply(
            ThinkingContent(thinking=f"think {HOSTILE}"),
            TextContent(text=f"Running them {HOSTILE}"),
            ToolCall(id="c1", name="bash", arguments={"command": f"pytest {HOSTILE}"}),
        ),
    )
    ids["result1"] = add(store, result("c1", "bash", f"FAILED test_x {HOSTILE}", error=True))
    cut = {"source": "text", "text": f"cut print( {HOSTILE}"}
    ids["record"] = store.append_custom("ttsr_injection", {"rules": ["no-print"], "records": [], "cut": cut})
    ids["injection"] = store.append_custom_message(
        "ttsr-injection", f"Do not print {HOSTILE}", display=False, details={"rules": ["no-print"]}
    )
    ids["push"] = add(store, reply(ToolCall(id="c2", name="bash", arguments={"command": "git push --force"})))
    block = "[steering:no-force-push@defaults] Force-pushing rewrites the remote branch."
    ids["blocked"] = add(store, result("c2", "bash", block, error=True))
    ids["steering"] = store.append_custom(
        "steering", {"type": "tests-failed", "data": {}, "agent_loop": 1, "seq": 1}
    )
    ids["timebox"] = store.append_custom("timebox-active", {"timeLimitMs": 900000, "active": True})
    ids["warning"] = store.append_custom_message(
        "timebox-warning", "80% of the timebox is used", display=False
    )
    ids["compaction"] = store.append_compaction(f"Summary {HOSTILE}", ids["push"], 12345)
    ids["label"] = store.append_label(ids["push"], f"push {HOSTILE}")
    ids["old_leaf"] = add(store, reply(TextContent(text="done on the first branch")))
    store.branch(ids["user"])
    ids["retry"] = add(store, reply(TextContent(text="a second try")))
    ids["branch_summary"] = store.append_branch_summary(ids["old_leaf"], f"tried pushing {HOSTILE}")
    ids["leaf"] = add(store, UserMessage.of("and now?"))
    assert store.path is not None
    return Built(path=store.path, id=store.id, ids=ids)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Built, str]:
    base = tmp_path_factory.mktemp("export")
    home, cwd = base / "home", base / "project"
    cwd.mkdir()
    built = build(cwd, home)
    out = base / "page.html"
    done = run_rein("export", str(built.path), "--html", "-o", str(out), cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    return built, out.read_text(encoding="utf-8")


def test_hostile_text_stays_text(exported: tuple[Built, str]) -> None:
    _, page = exported
    root = parse(page)
    assert root.all("script") == []
    assert all(not name.startswith("on") for node in root.all() for name in node.attrs)
    assert all(
        set(node.attrs) <= {"id", "class", "href", "open", "lang", "charset", "http-equiv", "content", "name"}
        for node in root.all()
    )
    texts = root.text()
    for where in (
        "Fix the tests",
        "think",
        "Running them",
        "pytest",
        "FAILED test_x",
        "Do not print",
        "Summary",
        "push",
        "tried pushing",
        "cut print(",
    ):
        assert f"{where} {HOSTILE}" in texts, where


def test_page_loads_nothing(exported: tuple[Built, str]) -> None:
    _, page = exported
    root = parse(page)
    hrefs = [node.attrs["href"] for node in root.all("a")]
    assert hrefs and all(href is not None and href.startswith("#e-") for href in hrefs)
    assert not [n for n in root.all() if n.tag in ("script", "link", "img", "iframe", "object", "embed")]
    assert "url(" not in page and "@import" not in page
    policy = [n for n in root.all("meta") if n.attrs.get("http-equiv") == "Content-Security-Policy"]
    assert policy and "default-src 'none'" in (policy[0].attrs["content"] or "")


def test_header_names_the_session(exported: tuple[Built, str]) -> None:
    built, page = exported
    facts = parse(page).all("dl", "facts")[0]
    terms = [dt.text() for dt in facts.all("dt")]
    values = dict(zip(terms, (dd.text() for dd in facts.all("dd")), strict=True))
    assert values["session"] == built.id
    assert values["model"] == "faux/default"
    assert values["entries"] == f"{len(built.ids)} in 2 branches"
    assert values["leaf"] == built.ids["leaf"]
    assert values["directory"].endswith("project")


def test_every_entry_is_on_the_page_and_the_active_path_is_marked(exported: tuple[Built, str]) -> None:
    built, page = exported
    root = parse(page)
    ids = built.ids
    active = {"model", "user", "retry", "branch_summary", "leaf"}
    for name, entry_id in ids.items():
        node = by_id(root, entry_id)
        if name in ("result1", "blocked"):
            assert node.tag == "span"  # its output is inside the call
            continue
        assert ("active" in node.classes) == (name in active), name
    assert "leaf" in by_id(root, ids["leaf"]).classes
    branches = root.all("details", "branch")
    assert len(branches) == 2
    assert [("active" in b.classes, "open" in b.attrs) for b in branches] == [(False, False), (True, True)]
    first, second = branches
    assert by_id(first, ids["old_leaf"]) and by_id(second, ids["retry"])


def test_tool_calls_fold_their_output_and_steering_blocks_are_marked(exported: tuple[Built, str]) -> None:
    built, page = exported
    root = parse(page)
    first = by_id(root, built.ids["first"])
    (thinking,) = first.all("details", "thinking")
    assert "open" not in thinking.attrs and f"think {HOSTILE}" in thinking.text()
    (call,) = first.all("div", "tool")
    assert f"pytest {HOSTILE}" in call.all("pre", "code")[0].text()  # the command, in a code block
    (output,) = call.all("details", "output")
    assert "open" not in output.attrs and output.all("summary")[0].text() == "output \u00b7 1 line"
    assert f"FAILED test_x {HOSTILE}" in output.all("pre", "result")[0].text()
    assert "error" in call.classes
    (blocked,) = by_id(root, built.ids["push"]).all("div", "tool")
    assert {"blocked", "steering"} <= blocked.classes
    assert "steering block: no-force-push@defaults" in [b.text() for b in blocked.all("span", "badge")]
    assert "open" in blocked.all("details", "output")[0].attrs  # a block's reason is shown unfolded


def test_injections_summaries_and_notices_are_marked(exported: tuple[Built, str]) -> None:
    built, page = exported
    root = parse(page)
    ids = built.ids
    injection = by_id(root, ids["injection"])
    assert {"ttsr", "injection"} <= injection.classes and "stream rule injected: no-print" in injection.text()
    assert "ttsr" in by_id(root, ids["record"]).classes and "no-print" in by_id(root, ids["record"]).text()
    assert "steering" in by_id(root, ids["steering"]).classes
    assert "tests-failed" in by_id(root, ids["steering"]).text()
    assert (
        "timebox" in by_id(root, ids["timebox"]).classes
        and "timebox set" in by_id(root, ids["timebox"]).text()
    )
    assert "timebox" in by_id(root, ids["warning"]).classes
    compaction = by_id(root, ids["compaction"])
    assert "tokens before: 12345" in compaction.text()
    assert [a.attrs["href"] for a in compaction.all("a") if a.text() == ids["push"]] == [f"#e-{ids['push']}"]
    summary = by_id(root, ids["branch_summary"])
    assert "branch-summary" in summary.classes and f"tried pushing {HOSTILE}" in summary.text()
    assert "faux/default" in by_id(root, ids["model"]).text()
    labelled = by_id(root, ids["push"])
    assert f"push {HOSTILE}" in [b.text() for b in labelled.all("span", "label")]


@pytest.mark.slow
def test_a_stream_rule_cut_shows_the_text_it_dropped(exported: tuple[Built, str]) -> None:
    built, page = exported
    (cut,) = by_id(parse(page), built.ids["record"]).all("details", "cut")
    assert "open" not in cut.attrs
    assert cut.all("summary")[0].text() == "cut reply (dropped, then retried) text"
    assert [pre.text() for pre in cut.all("pre", "cut-text")] == [f"cut print( {HOSTILE}"]
    tool = {"source": "tool", "toolName": "write", "text": "<b>x</b>"}
    record = CustomEntry(
        id="r1", parent_id=None, timestamp="", custom_type="ttsr_injection", data={"cut": tool}
    )
    _, _, inner = body(record, {})
    assert '<span class="meta">tool: write</span>' in inner and "&lt;b&gt;x&lt;/b&gt;" in inner
    reminder = CustomEntry(id="r2", parent_id=None, timestamp="", custom_type="ttsr_injection", data={})
    assert 'class="cut"' not in body(reminder, {})[2], "a record without a cut shows none"


@pytest.mark.slow
def test_id_prefix_writes_into_the_exports_folder_not_the_project(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    built = build(cwd, home)
    assert not (home / ".rein" / "exports").exists()
    done = run_rein("export", built.id[:6], cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    written = home / ".rein" / "exports" / f"{built.id}.html"  # the folder is made for it
    assert done.stdout == f"{written}\n"
    assert list(cwd.iterdir()) == []  # nothing in the project
    parse(written.read_text(encoding="utf-8"))
    to_stdout = run_rein("export", built.id, "-o", "-", cwd=cwd, home=home)
    assert to_stdout.returncode == 0
    assert to_stdout.stdout == written.read_text(encoding="utf-8")


def test_an_exports_folder_that_cannot_be_made_exits_1(tmp_path: Path) -> None:
    source = tmp_path / "pi.jsonl"
    shutil.copy(FIXTURES / "pi_v3.jsonl", source)
    home = tmp_path / "home"
    (home / ".rein").mkdir(parents=True)
    (home / ".rein" / "exports").write_text("a file where the folder would go\n", encoding="utf-8")
    done = run_rein("export", str(source), cwd=tmp_path, home=home)
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"rein export: cannot make the folder {home / '.rein' / 'exports'}: ")
    assert line.endswith("(-o <file> writes elsewhere)")


def test_pi_session_exports(tmp_path: Path) -> None:
    done = run_rein("export", str(FIXTURES / "pi_v3.jsonl"), "-o", "-", cwd=tmp_path, home=tmp_path)
    assert done.returncode == 0, done.stderr
    root = parse(done.stdout)
    (call,) = root.all("div", "tool")
    assert "src/cli.py" in call.all("code")[0].text()
    assert "import argparse" in call.all("pre", "result")[0].text()
    assert "The CLI lives in src/cli.py" in root.all("details", "thinking")[0].text()
    assert "flag-added" in [b.text() for b in root.all("span", "label")]
    assert "no-print" in by_id(root, "f6a7b8c9").text() and "ttsr" in by_id(root, "f6a7b8c9").classes
    assert "anthropic/claude-sonnet-4-5" in by_id(root, "a1b2c3d4").text()
    assert len(root.all("details", "branch")) == 2
    assert "compaction" in by_id(root, "e7f8a9b0").classes
    assert "branch-summary" in by_id(root, "a3b4c5d6").classes
    assert "session_info" in by_id(root, "d0e1f2a3").text()
    assert "active" in by_id(root, "f8a9b0c1").classes and "active" not in by_id(root, "f2a3b4c5").classes


def write_header(path: Path, session_id: str, cwd: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {
        "type": "session",
        "format": "rein",
        "version": 1,
        "id": session_id,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": str(cwd),
    }
    path.write_text(json.dumps(header) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("missing.jsonl", "missing.jsonl: no such file"),
        ("sub/missing", "sub/missing: no such file"),
        ("not-a-session.txt", "not-a-session.txt:1: not a session file"),
        ("adir", "adir: is a directory, not a session file"),
        ("ffff", "ffff: no such file, and no session of"),
        ("abc", "abc: the start of 2 session ids here: "),
    ],
)
@pytest.mark.slow
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, given: str, says: str) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    (cwd / "not-a-session.txt").write_text("hello\n", encoding="utf-8")
    (cwd / "adir").mkdir()
    folder = sessions_dir(home, cwd)
    write_header(folder / "2026-01-01T00-00-00-000Z_abc11111-0000.jsonl", "abc11111-0000", cwd)
    write_header(folder / "2026-01-01T00-00-01-000Z_abc22222-0000.jsonl", "abc22222-0000", cwd)
    done = run_rein("export", given, cwd=cwd, home=home)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rein export: {says}"), done.stderr
    if given == "abc":
        assert "abc11111-0000" in lines[0] and "abc22222-0000" in lines[0]


def test_unwritable_output_exits_1(tmp_path: Path) -> None:
    source = tmp_path / "pi.jsonl"
    shutil.copy(FIXTURES / "pi_v3.jsonl", source)
    done = run_rein(
        "export", str(source), "-o", str(tmp_path / "missing" / "x.html"), cwd=tmp_path, home=tmp_path
    )
    assert done.returncode == 1
    assert done.stderr.strip().startswith(f"rein export: cannot write {tmp_path / 'missing' / 'x.html'}")


def test_entry_types_match_the_extensions() -> None:
    assert _html_entries.TTSR_MESSAGE == ttsr.INJECTION_MESSAGE
    assert _html_entries.TTSR_RECORD == ttsr.INJECTION_ENTRY
    assert _html_entries.STEERING_ENTRY == steering.ENTRY
    assert _html_entries.STEERING_OVERRIDE == AUDIT_ENTRY
    assert (_html_entries.TIMEBOX_WARNING, _html_entries.TIMEBOX_ACTIVE, _html_entries.TIMEBOX_OFF) == (
        WARNING,
        ACTIVE,
        OFF,
    )
