"""The operational state extractor: what it takes from a conversation, how it carries a previous
state, how it renders, and that it reads anything without raising."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rein.agent import AgentMessage, CustomMessage
from rein.ai import (
    AssistantMessage,
    JsonValue,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from rein.session.compaction._prune import pruned, superseded
from rein.session.compaction._scan import error_excerpt, is_blocked, todo_marks
from rein.session.compaction._state import Command, OperationalState, extract_state, render_state

PYTEST_FAIL = """\
============================= test session starts ==============================
collected 3 items

tests/test_app.py ..F                                                    [100%]

=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(1, 1) == 3
E       assert 2 == 3
E        +  where 2 = add(1, 1)

tests/test_app.py:9: AssertionError
=========================== short test summary info ============================
FAILED tests/test_app.py::test_add - assert 2 == 3
========================= 1 failed, 2 passed in 0.02s ==========================
[exit code 1]"""


def said(text: str) -> AssistantMessage:
    return AssistantMessage(content=(TextContent(text=text),), provider="faux", model="faux")


def calls(*tool_calls: ToolCall) -> AssistantMessage:
    return AssistantMessage(content=tool_calls, provider="faux", model="faux", stop_reason="tool_use")


def call(call_id: str, name: str, **arguments: JsonValue) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


def result(call_id: str, name: str, text: str, *, error: bool = False) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name=name, content=(TextContent(text=text),), is_error=error
    )


def bash(call_id: str, command: str, output: str, *, error: bool = False) -> list[AgentMessage]:
    return [
        calls(call("b" + call_id, "bash", command=command)),
        result("b" + call_id, "bash", output, error=error),
    ]


def conversation() -> list[AgentMessage]:
    return [
        UserMessage.of("Fix the parser.\n- [ ] fix the parser\n- [ ] add a test\nTODO: update the changelog"),
        calls(
            call("c1", "read", path="README.md"),
            call("c2", "edit", path="src/app.py", old_string="a", new_string="b"),
            call("c3", "write", path="./src/new.py", content="x = 1\n"),
        ),
        result("c1", "read", "# readme"),
        result("c2", "edit", "edited src/app.py"),
        result("c3", "write", "wrote 6 bytes to src/new.py"),
        calls(
            call("c4", "read", path="src/app.py"),
            call("c5", "edit", path="src/bad.py", old_string="zz", new_string="y"),
            call("c6", "write", path="src/denied.py", content=""),
        ),
        result("c4", "read", "b"),
        result(
            "c5",
            "edit",
            "src/bad.py: old_string not found; read the file and copy the text exactly",
            error=True,
        ),
        result("c6", "write", "[approval] not run: the user denied this write call.", error=True),
        *bash("1", "pytest -q", PYTEST_FAIL, error=True),
        *bash(
            "2",
            "ruff check src",
            "src/app.py:1:8: F401 `os` imported but unused\nFound 1 error.\n[exit code 1]",
            error=True,
        ),
        *bash("3", "rm -rf build", "[steering:no-rm@rein] use make clean", error=True),
        *bash("4", "pytest   -q\n", "3 passed in 0.02s"),
        said("Parser fixed.\n- [x] fix the parser\n- [ ] add a test\n```\n- [ ] not a task in code\n```"),
        *bash("5", "sleep 100", "(no output)\n[command aborted; its process group was killed]", error=True),
        CustomMessage(custom_type="ttsr", content="- [ ] an injection is not the conversation"),
    ]


EXPECTED = OperationalState(
    modified=(("src/app.py", "edit"), ("src/new.py", "write")),
    read=("README.md",),
    last_command=Command(command="sleep 100", exit_code=None),
    open_failures=(Command(command="ruff check src", exit_code=1),),
    last_error="src/app.py:1:8: F401 `os` imported but unused\nFound 1 error.",
    todos=("update the changelog", "add a test"),
)

RENDERED = """\
## Operational state (extracted by rein from the session, not by the model)
### Files modified
- src/app.py (edit)
- src/new.py (write)
### Files read
- README.md
### Last command
- `sleep 100` (exit code unknown)
### Open failures
- `ruff check src` (exit 1)
### Last error
    src/app.py:1:8: F401 `os` imported but unused
    Found 1 error.
### Pending TODO
- [ ] update the changelog
- [ ] add a test"""


def test_a_conversation_gives_the_exact_state_and_text() -> None:
    state = extract_state(conversation())
    assert state == EXPECTED
    assert render_state(state) == RENDERED


def test_an_empty_state_renders_every_section_as_none() -> None:
    assert render_state(extract_state([])) == (
        "## Operational state (extracted by rein from the session, not by the model)\n"
        "### Files modified\n- none\n### Files read\n- none\n### Last command\n- none\n"
        "### Open failures\n- none\n### Last error\n- none\n### Pending TODO\n- none"
    )


def test_a_failing_test_gives_its_assertion_and_a_passing_rerun_clears_it() -> None:
    failing = extract_state(bash("1", "pytest -q", PYTEST_FAIL, error=True))
    assert failing.open_failures == (Command(command="pytest -q", exit_code=1),)
    assert failing.last_error == (
        ">       assert add(1, 1) == 3\n"
        "E       assert 2 == 3\n"
        "E        +  where 2 = add(1, 1)\n"
        "tests/test_app.py:9: AssertionError\n"
        "FAILED tests/test_app.py::test_add - assert 2 == 3"
    )
    fixed = extract_state([*bash("1", "pytest -q", PYTEST_FAIL, error=True), *bash("2", "pytest -q", "ok")])
    assert (fixed.open_failures, fixed.last_error) == ((), None)
    assert fixed.last_command == Command(command="pytest -q", exit_code=0)


def test_a_bash_error_wins_over_a_later_edit_error_and_other_errors_count_alone() -> None:
    edit_failed: list[AgentMessage] = [
        calls(call("e", "edit", path="a.py")),
        result("e", "edit", "a.py: old_string not found", error=True),
    ]
    assert extract_state(edit_failed).last_error == "a.py: old_string not found"
    both = [*bash("1", "make", "make: *** [all] Error 2\n[exit code 2]", error=True), *edit_failed]
    assert extract_state(both).last_error == "make: *** [all] Error 2"


def test_a_later_success_of_the_same_tool_on_the_same_path_resolves_its_error() -> None:
    messages: list[AgentMessage] = [
        calls(call("e1", "edit", path="a.py")),
        result("e1", "edit", "a.py: old_string not found", error=True),
        calls(call("e2", "edit", path="b.py")),
        result("e2", "edit", "edited b.py"),
    ]
    assert extract_state(messages).last_error == "a.py: old_string not found"
    messages += [calls(call("e3", "edit", path="a.py")), result("e3", "edit", "edited a.py")]
    assert extract_state(messages).last_error is None


def test_pruning_superseded_outputs_first_does_not_change_the_state() -> None:
    big_failure = "\n".join(f"E   assert {n} == 0" for n in range(100)) + "\n[exit code 1]"
    messages = [
        *conversation(),
        *bash("6", "ruff check src", big_failure, error=True),
        calls(call("g1", "grep", pattern="x" * 400)),
        result("g1", "grep", "invalid regular expression: " + "x" * 400, error=True),
        *bash("7", "ruff check src", "ok"),
        calls(call("g2", "grep", pattern="x" * 400)),
        result("g2", "grep", "no matches"),
        *bash("8", "make", "make: *** Error 2\n[exit code 2]", error=True),
        *bash("9", "make", big_failure, error=True),
        *bash("10", "make", "(no output)\n[command aborted; its process group was killed]", error=True),
    ]
    items = [(str(index), message) for index, message in enumerate(messages)]
    stale = superseded(items, protect_tokens=0)
    assert len(stale) == 3
    kept = [
        pruned(message, stale[key]) if key in stale and isinstance(message, ToolResultMessage) else message
        for key, message in items
    ]
    assert extract_state(kept) == extract_state(messages)


@pytest.mark.parametrize(
    ("output", "exit_code", "open"),
    [
        ("boom\n[exit code 3]", 3, True),
        ("partial\n[command timed out after 120 s; its process group was killed]", None, True),
        ("partial\n[command aborted; its process group was killed]", None, False),
        ("working directory /gone does not exist", None, True),
    ],
)
def test_exit_codes_and_which_failures_stay_open(output: str, exit_code: int | None, open: bool) -> None:
    state = extract_state(bash("1", "make test", output, error=True))
    assert state.last_command == Command(command="make test", exit_code=exit_code)
    assert state.open_failures == ((Command(command="make test", exit_code=exit_code),) if open else ())


def test_an_aborted_rerun_leaves_the_failure_open() -> None:
    state = extract_state(
        [
            *bash("1", "make test", "boom\n[exit code 2]", error=True),
            *bash("2", "make lint", "boom\n[exit code 1]", error=True),
            *bash("3", "make test", "[command aborted; its process group was killed]", error=True),
        ]
    )
    assert state.last_command == Command(command="make test", exit_code=None)
    assert state.open_failures == (
        Command(command="make test", exit_code=2),
        Command(command="make lint", exit_code=1),
    )


def test_blocked_and_unpaired_results_and_failed_writes_change_nothing() -> None:
    messages: list[AgentMessage] = [
        *bash("1", "git push", "[steering:no-push@rein] ask first", error=True),
        *bash("2", "rm x", "not run: the run was aborted", error=True),
        result("orphan", "bash", "[exit code 1]", error=True),
        calls(call("w", "write", path="a.py", content="")),
        result("w", "write", "a.py: permission denied", error=True),
        calls(call("r", "read", path="gone.py")),
        result("r", "read", "gone.py: no such file", error=True),
    ]
    state = extract_state(messages)
    assert (state.modified, state.read, state.last_command, state.open_failures) == ((), (), None, ())


def test_previous_state_is_carried_and_merged() -> None:
    previous = OperationalState(
        modified=(("a.py", "write"), ("b.py", "edit")),
        read=("notes.md", "c.py"),
        last_command=Command(command="make lint", exit_code=2),
        open_failures=(Command(command="pytest -q", exit_code=1), Command(command="make lint", exit_code=2)),
        last_error="E   assert 1 == 2",
        todos=("one", "two"),
    )
    stretch: list[AgentMessage] = [
        said("- [X] One"),
        calls(call("e", "edit", path="a.py"), call("r", "read", path="c.py")),
        result("e", "edit", "edited a.py"),
        result("r", "read", "c"),
        *bash("1", " pytest\t-q ", "ok"),
    ]
    assert extract_state(stretch, previous) == OperationalState(
        modified=(("a.py", "edit"), ("b.py", "edit")),
        read=("notes.md", "c.py"),
        last_command=Command(command="pytest\t-q", exit_code=0),
        open_failures=(Command(command="make lint", exit_code=2),),
        last_error="E   assert 1 == 2",
        todos=("two",),
    )
    assert extract_state([], previous) == previous
    all_closed = [*stretch, *bash("2", "make lint", "clean")]
    assert extract_state(all_closed, previous).last_error is None


def test_todos_are_capped_to_the_newest_twenty() -> None:
    listed = "\n".join(f"- [ ] item {n}" for n in range(30))
    assert extract_state([UserMessage.of(listed)]).todos == tuple(f"item {n}" for n in range(10, 30))


def test_long_lists_show_the_newest_fifty() -> None:
    state = OperationalState(read=tuple(f"f{n}.py" for n in range(53)))
    section = render_state(state).split("### Files read\n")[1].split("\n###")[0].splitlines()
    assert section[:2] == ["- ... and 3 more", "- f3.py"]
    assert section[-1] == "- f52.py" and len(section) == 51


def test_a_command_with_backticks_or_lines_renders_on_one_line() -> None:
    state = OperationalState(last_command=Command(command="echo `date`\necho done", exit_code=0))
    assert "- `` echo `date` echo done `` (exit 0)" in render_state(state)


def test_json_round_trip() -> None:
    state = extract_state(conversation())
    assert OperationalState.from_json(json.loads(json.dumps(state.to_json()))) == state


@pytest.mark.parametrize(
    "data",
    [
        None,
        "state",
        [1, 2],
        {"modified": "x", "read": 3, "last_command": [], "open_failures": {}, "last_error": 5, "todos": None},
        {
            "modified": [["a"], [1, 2], "a"],
            "open_failures": [{"command": 1}, {"command": "x", "exit_code": True}],
        },
    ],
)
def test_from_json_reads_garbage_as_empty(data: object) -> None:
    assert OperationalState.from_json(data) == OperationalState()


def test_from_json_keeps_the_good_items_beside_bad_ones() -> None:
    data = {"read": ["a.py", 3], "open_failures": [{"command": "make", "exit_code": None}, "bad"]}
    state = OperationalState.from_json(data)
    assert state == OperationalState(read=("a.py",), open_failures=(Command(command="make", exit_code=None),))


@pytest.mark.parametrize(
    ("text", "blocked"),
    [
        ("[steering:no-rm@rein] no", True),
        ("  [approval] not run: the user denied this bash call.", True),
        ("blocked: extension x failed on this call (boom)", True),
        ("Not run: the timebox (5m) is spent. Stop here.", True),
        ("unknown tool 'x' (tools: read)", True),
        ("boom\n[exit code 1]", False),
        ("a.py: no such file", False),
    ],
)
def test_blocked_results(text: str, blocked: bool) -> None:
    assert is_blocked(text) is blocked


def test_error_excerpt_takes_the_end_of_a_traceback() -> None:
    frames = "".join(f'  File "m{n}.py", line {n}, in f{n}\n    f{n + 1}()\n' for n in range(6))
    output = (
        f"starting\nTraceback (most recent call last):\n{frames}ValueError: bad input\nafter\n[exit code 1]"
    )
    assert error_excerpt(output) == (
        '  File "m4.py", line 4, in f4\n    f5()\n'
        '  File "m5.py", line 5, in f5\n    f6()\nValueError: bad input'
    )


def test_error_excerpt_falls_back_to_the_last_lines_and_caps_its_size() -> None:
    plain = "\n".join(f"line {n}" for n in range(40))
    assert error_excerpt(plain).splitlines() == [f"line {n}" for n in range(25, 40)]
    many = "\n".join(f"E   assert {n} == 0" for n in range(40))
    kept = error_excerpt(many).splitlines()
    assert len(kept) == 15 and kept[:2] == ["E   assert 0 == 0", "E   assert 1 == 0"]
    assert kept[-5:] == [
        "...",
        "E   assert 36 == 0",
        "E   assert 37 == 0",
        "E   assert 38 == 0",
        "E   assert 39 == 0",
    ]
    huge = "error: " + "x" * 5000
    assert error_excerpt(huge) == huge[:1000]
    wide = "\n".join(f"error: {n} " + "y" * 300 for n in range(5))
    assert len(error_excerpt(wide)) <= 1000 and error_excerpt(wide).count("\n") == 2


def test_todo_marks() -> None:
    text = "* [ ] star\n+ [x] plus\n  - [ ]   spaced  \nTODO fix it\nTODO: colon\nTODOS are not\n- [ ]\n"
    text += "# TODO: code"
    assert todo_marks(text) == [
        (False, "star"),
        (True, "plus"),
        (False, "spaced"),
        (False, "fix it"),
        (False, "colon"),
    ]


# Property: whatever these message types hold, the extractor and renderer never raise.
FRAGMENTS = st.sampled_from(
    ["- [ ] a", "- [x] a", "TODO: b", "```", "[exit code 2]", "[exit code x]", "[steering:x@y] no",
     "Traceback (most recent call last):", "E   assert 1", "error:", "\n", "", "[command aborted;"]
)  # fmt: skip
TEXT = st.lists(st.one_of(FRAGMENTS, st.text(max_size=8)), max_size=5).map("\n".join)
IDS = st.sampled_from(["a", "b", "c"])
NAMES = st.sampled_from(["read", "write", "edit", "bash", "ls", "grep", "find", "other"])
VALUES: st.SearchStrategy[JsonValue] = st.one_of(st.none(), st.booleans(), st.integers(), TEXT, st.just([1]))
ARGUMENTS = st.dictionaries(st.sampled_from(["path", "command", "offset", "limit", "pattern"]), VALUES)
TOOL_CALLS = st.builds(ToolCall, id=IDS, name=NAMES, arguments=ARGUMENTS)
BLOCKS = st.one_of(
    st.builds(TextContent, text=TEXT), st.builds(ThinkingContent, thinking=TEXT), TOOL_CALLS
)  # fmt: skip
MESSAGES: st.SearchStrategy[AgentMessage] = st.one_of(
    st.builds(UserMessage.of, TEXT),
    st.builds(
        AssistantMessage,
        content=st.lists(BLOCKS, max_size=3).map(tuple),
        provider=st.just("f"),
        model=st.just("f"),
    ),
    st.builds(
        ToolResultMessage,
        tool_call_id=IDS,
        tool_name=NAMES,
        content=st.lists(st.builds(TextContent, text=TEXT), max_size=2).map(tuple),
        is_error=st.booleans(),
    ),
    st.builds(CustomMessage, custom_type=st.just("x"), content=TEXT),
)
STATES = st.builds(
    OperationalState,
    modified=st.lists(st.tuples(TEXT, NAMES), max_size=3).map(tuple),
    read=st.lists(TEXT, max_size=3).map(tuple),
    last_command=st.none() | st.builds(Command, command=TEXT, exit_code=st.none() | st.integers()),
    open_failures=st.lists(
        st.builds(Command, command=TEXT, exit_code=st.none() | st.integers()), max_size=3
    ).map(tuple),
    last_error=st.none() | TEXT,
    todos=st.lists(TEXT, max_size=3).map(tuple),
)


@pytest.mark.slow
@given(st.lists(MESSAGES, max_size=12), st.none() | STATES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_extract_state_never_raises(messages: list[AgentMessage], previous: OperationalState | None) -> None:
    state = extract_state(messages, previous)
    assert render_state(state).startswith("## Operational state")
    assert OperationalState.from_json(json.loads(json.dumps(state.to_json()))) == state
    assert len(state.todos) <= 20
    assert not {path for path, _ in state.modified} & set(state.read)


OUTPUTS = st.sampled_from(
    ["ok", "x" * 400, "E   assert 1\n" * 40 + "[exit code 1]", "y" * 300 + "\n[command aborted; killed]",
     "[steering:no@rein] no", "z" * 300 + "\n[exit code 2]"]
)  # fmt: skip
RUN_ARGUMENTS = st.fixed_dictionaries(
    {
        "path": st.sampled_from(["a.py", "./a.py", "b.py"]),
        "command": st.sampled_from(["make", "make ", "pytest"]),
    },
    optional={"offset": st.sampled_from([1, 5]), "pattern": st.just("x")},
)
RUNS = st.tuples(
    st.sampled_from(["read", "write", "edit", "bash", "grep", "ls"]), RUN_ARGUMENTS, OUTPUTS, st.booleans()
)


@pytest.mark.slow
@given(st.lists(st.one_of(RUNS, MESSAGES), max_size=14), st.none() | STATES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_pruning_never_changes_the_state(
    steps: list[tuple[str, dict[str, JsonValue], str, bool] | AgentMessage], previous: OperationalState | None
) -> None:
    messages: list[AgentMessage] = []
    for index, step in enumerate(steps):
        if isinstance(step, tuple):
            name, arguments, output, error = step
            messages += [
                calls(call(f"r{index}", name, **arguments)),
                result(f"r{index}", name, output, error=error),
            ]
        else:
            messages.append(step)
    items = [(str(index), message) for index, message in enumerate(messages)]
    stale = superseded(items, protect_tokens=0)
    kept = [
        pruned(message, stale[key]) if key in stale and isinstance(message, ToolResultMessage) else message
        for key, message in items
    ]
    assert extract_state(kept, previous) == extract_state(messages, previous)
