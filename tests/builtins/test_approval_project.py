"""Approvals that outlive a question: "Allow for this session" across branch switches of the same
session, "Always allow in this project" saved in `.rein/approved.toml` for the next session, and
what `/steering` says became of each call."""

from __future__ import annotations

import asyncio
import tomllib
from datetime import UTC, datetime
from pathlib import Path

from rein.ai import TextContent, ToolCall, ToolResultMessage
from rein.builtins._approved import FILE, command_argvs, load, save
from rein.builtins.approval import ALLOW_ONCE, ALLOW_PROJECT, ALLOW_SESSION, DENY, OPTIONS, PROJECT_OPTIONS
from rein.session import Session
from tests.builtins.conftest import Harness, MakeHarness


def bash(id: str, command: str) -> ToolCall:
    return ToolCall(id=id, name="bash", arguments={"command": command})


def write(id: str, path: str) -> ToolCall:
    return ToolCall(id=id, name="write", arguments={"path": path, "content": "x\n"})


def run(h: Harness, *prompts: str) -> list[ToolResultMessage]:
    async def go() -> None:
        await h.session.start()
        for prompt in prompts:
            await h.session.prompt(prompt)

    asyncio.run(go())
    return [m for m in h.session.messages if isinstance(m, ToolResultMessage)]


def decisions(h: Harness) -> list[list[str]]:
    """`/steering`'s latest decisions, each row split into words (headings checked, then dropped)."""
    before = len(h.ui.notices)
    asyncio.run(h.session.prompt("/steering"))
    (text,) = [message for message, _ in h.ui.notices[before:]]
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("latest decisions"))
    assert lines[start + 1].split() == ["steering", "outcome", "tool", "call", "rule"]
    return [line.split() for line in lines[start + 2 :]]


def test_always_allow_saves_the_exact_command_and_the_next_session_runs_it(harness: MakeHarness) -> None:
    first = harness([[bash("1", "touch 'a b' && mkdir d")], [TextContent(text="ok")]], approve="ask")
    first.ui.answers = [ALLOW_PROJECT]
    run(first, "go")
    ((title, options),) = first.ui.asked
    assert options == PROJECT_OPTIONS
    assert f"{ALLOW_PROJECT} saves these exact commands to {FILE} for later sessions" in title
    assert (first.project / "a b").exists() and (first.project / "d").is_dir()
    text = (first.project / FILE).read_text()
    assert text.startswith("# Calls rein runs in this project without asking you")
    assert "delete an entry, or this file, to be asked again" in text
    assert f"(session {first.store.id[:8]}) when you allowed: touch 'a b' && mkdir d" in text
    assert tomllib.loads(text)["allow"] == [
        {"tool": "bash", "command": "touch 'a b'"},
        {"tool": "bash", "command": "mkdir d"},
    ]
    saved = next(message for message, _ in first.ui.notices if "always allowed" in message)
    assert saved.startswith("approval: always allowed in this project: touch a b; mkdir d (saved in ")

    # A later session in the project: the same commands (however quoted) run without a question;
    # another argument is another command, and asks.
    script = [[bash("1", 'mkdir d2 ; touch "a b"')], [bash("2", 'touch   "a b"')], [bash("3", "touch c")]]
    second = harness([*script, [TextContent(text="ok")]], approve="ask")
    second.ui.answers = [DENY, ""]
    results = run(second, "again")
    assert [r.is_error for r in results] == [True, False, True]
    assert "mkdir d2" in second.ui.asked[0][0] and "touch c" in second.ui.asked[2][0]
    assert [row[:4] for row in decisions(second)] == [
        ["allow", "denied", "by", "you"],
        ["allow", "approved", "earlier", "(project)"],
        ["allow", "dismissed", "bash", "touch"],
    ]


def test_a_person_widens_an_entry_to_a_prefix_or_deletes_it(harness: MakeHarness) -> None:
    (harness([]).project / ".rein").mkdir()
    h = harness([[bash("1", "touch x y")], [bash("2", "touch z")], [TextContent(text="ok")]], approve="ask")
    path = h.project / FILE
    path.write_text('[[allow]]\ntool = "bash"\nprefix = "touch"\n')
    results = run(h, "go")
    assert h.ui.asked == [] and not any(r.is_error for r in results)
    path.write_text("# nothing allowed any more\n")
    h2 = harness([[bash("1", "touch w")], [TextContent(text="ok")]], approve="ask")
    run(h2, "go")
    assert len(h2.ui.asked) == 1 and not (h.project / "w").exists()


def test_a_broken_file_allows_nothing_and_says_so_once(harness: MakeHarness) -> None:
    calls = [[bash("1", "touch a")], [bash("2", "touch a")], [TextContent(text="ok")]]
    h = harness(calls, approve="ask")
    (h.project / ".rein").mkdir()
    (h.project / FILE).write_text('[[allow]]\ntool = "bash"\ncommand = "touch a"\nwhy = 1\n')
    run(h, "go")
    assert len(h.ui.asked) == 2
    warnings = [message for message, level in h.ui.notices if level == "warning"]
    assert warnings == [
        f"approval: {h.project / FILE}: [[allow]] number 1 skipped: a bash entry has one of `command`"
        " or `prefix`, and nothing else"
    ]


def test_writes_inside_the_project_can_be_allowed_for_good_outside_not(harness: MakeHarness) -> None:
    outside = str(harness([]).home / "elsewhere.txt")
    h = harness([[write("1", "src/a.txt")], [write("2", outside)], [TextContent(text="ok")]], approve="ask")
    (h.project / "src").mkdir()
    h.ui.answers = [ALLOW_PROJECT, ALLOW_ONCE]
    run(h, "go")
    assert [options for _, options in h.ui.asked] == [PROJECT_OPTIONS, OPTIONS]
    assert tomllib.loads((h.project / FILE).read_text())["allow"] == [{"tool": "write"}]
    later = harness([[write("1", "b.txt")], [TextContent(text="ok")]], approve="ask")
    run(later, "go")
    assert later.ui.asked == [] and (h.project / "b.txt").exists()


def test_a_command_with_words_known_only_at_run_time_is_never_saved(harness: MakeHarness) -> None:
    h = harness([[bash("1", 'touch "$NAME"')], [TextContent(text="ok")]], approve="ask")
    run(h, "go")
    assert [options for _, options in h.ui.asked] == [OPTIONS]
    assert command_argvs('touch "$NAME"', cwd=str(h.project), home=str(h.home)) is None


def test_allow_for_the_session_survives_a_branch_switch_and_a_reload(harness: MakeHarness) -> None:
    h = harness(
        [
            [bash("1", "touch a")],
            [TextContent(text="one")],
            [bash("2", "touch b")],
            [TextContent(text="two")],
        ],
        approve="ask",
    )
    h.ui.answers = [ALLOW_SESSION]

    async def go() -> None:
        await h.session.start()
        await h.session.prompt("one")
        await h.session.navigate(None)  # /tree: back before the first prompt
        assert h.store.path is not None
        await h.session.switch_store(Session.open(h.store.path))  # the web page's reload, same id
        await h.session.prompt("two")

    asyncio.run(go())
    assert len(h.ui.asked) == 1 and (h.project / "b").exists()
    assert decisions(h)[-1][:4] == ["allow", "approved", "earlier", "(session)"]


def test_a_new_session_forgets_the_session_answers(harness: MakeHarness) -> None:
    h = harness([[bash("1", "touch a")], [TextContent(text="one")], [bash("2", "touch b")]], approve="ask")
    h.ui.answers = [ALLOW_SESSION]

    async def go() -> None:
        await h.session.start()
        await h.session.prompt("one")
        await h.session.switch_store(Session.create(str(h.project), home=h.home))  # /new
        await h.session.prompt("two")

    asyncio.run(go())
    assert len(h.ui.asked) == 2 and not (h.project / "b").exists()


def test_steering_lists_the_outcome_of_every_call(harness: MakeHarness) -> None:
    calls = [
        bash("1", "git push --force origin main"),
        bash("2", "touch once"),
        bash("3", "touch denied"),
        bash("4", "mkdir dismissed"),
    ]
    h = harness([[call] for call in calls] + [[TextContent(text="ok")]], approve="ask")
    h.ui.answers = [ALLOW_ONCE, DENY, "no"]
    run(h, "go")
    rows = decisions(h)
    assert [row[:2] for row in rows] == [
        ["block", "blocked"],
        ["allow", "approved"],
        ["allow", "denied"],
        ["allow", "dismissed"],
    ]
    assert rows[0][-1] == "no-force-push@defaults" and rows[2][2:4] == ["by", "you"]

    auto = harness([[bash("1", "true"), ToolCall(id="2", name="read", arguments={"path": "x"})]])
    run(auto, "go")
    assert [row[:2] for row in decisions(auto)] == [["allow", "allowed"], ["allow", "allowed"]]

    deny = harness([[bash("1", "true")], [TextContent(text="ok")]], approve="deny")
    run(deny, "go")
    assert [row[:2] for row in decisions(deny)] == [["allow", "blocked"]]


def test_saving_escapes_what_toml_needs_and_appends(tmp_path: Path) -> None:
    command = 'printf "%s\\n" "a\\"b" \'c\\d\''
    argvs = command_argvs(command, cwd=str(tmp_path), home=str(tmp_path))
    assert argvs is not None
    now = datetime(2025, 6, 1, 14, 3, tzinfo=UTC)
    save(str(tmp_path), "bash", argvs, said=command + "\nsecond line", session="0123456789", now=now)
    path = save(str(tmp_path), "edit", (), said="edit x", session="0123456789", now=now)
    text = path.read_text()
    assert "# added by rein on 2025-06-01 14:03 UTC (session 01234567) when you allowed: printf" in text
    assert "second line" in text and "\nsecond line" not in text  # a comment stays one line
    approved = load(str(tmp_path))
    assert approved.problems == () and approved.tools == {"edit"}
    assert approved.commands == set(argvs)


def test_a_call_on_reins_own_files_is_asked_every_time(harness: MakeHarness) -> None:
    # Echo and write were allowed for the session, and echo for the project: a call that touches
    # `.rein/` (where the approvals, rules and settings live) still asks, and cannot be saved.
    save_line = "echo '[[allow]]' >> .rein/approved.toml"
    script = [
        [bash("1", "echo hi")],
        [write("2", "notes.txt")],
        [bash("3", save_line)],
        [write("4", ".rein/settings.toml")],
        [bash("5", "echo hi")],
        [TextContent(text="ok")],
    ]
    h = harness(script, approve="ask")
    h.ui.answers = [ALLOW_PROJECT, ALLOW_SESSION, DENY, "", DENY, ""]
    results = run(h, "go")
    assert [r.is_error for r in results] == [False, False, True, True, False]
    questions = [options for _, options in h.ui.asked if options]  # a denial's reason is asked too
    assert questions == [PROJECT_OPTIONS, PROJECT_OPTIONS, OPTIONS, OPTIONS]  # no "always" for .rein/
    # the last echo was saved for the project: no fifth question
    assert not (h.project / ".rein" / "settings.toml").exists()
