"""Pruning tool outputs that later calls superseded: each kind, what is never pruned, the placeholder."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rein.agent import AgentMessage, CustomMessage
from rein.ai import AssistantMessage, JsonValue, TextContent, ToolCall, ToolResultMessage, UserMessage
from rein.session.compaction._prune import pruned, superseded

BIG = "x" * 800  # 204 tokens as a tool result
Item = tuple[str | None, AgentMessage]
COUNTER = itertools.count()


def run(
    name: str, output: str = BIG, *, error: bool = False, entry: str | None = "", **arguments: JsonValue
) -> list[Item]:
    """A call and its result; the result's entry id is `entry`, or the call id when empty."""
    call_id = f"{name}{next(COUNTER)}"
    asked = AssistantMessage(
        content=(ToolCall(id=call_id, name=name, arguments=arguments),), provider="f", model="f"
    )
    answer = ToolResultMessage(
        tool_call_id=call_id, tool_name=name, content=(TextContent(text=output),), is_error=error
    )
    return [(f"a-{call_id}", asked), (call_id if entry == "" else entry, answer)]


def ids(items: Sequence[Item]) -> list[str]:
    return [entry for entry, message in items if isinstance(message, ToolResultMessage) and entry is not None]


def prune(*runs: list[Item], protect: int = 0) -> dict[int, str]:
    """Reasons by the index of the run whose result is pruned."""
    items = [item for pair in runs for item in pair]
    reasons = superseded(items, protect_tokens=protect)
    return {
        index: reasons[entry] for index, pair in enumerate(runs) for entry in ids(pair) if entry in reasons
    }


@pytest.mark.parametrize(
    ("later", "reason"),
    [
        (lambda: run("read", path="src/a.py"), "superseded by a later read of src/a.py"),
        (lambda: run("read", path="./src/a.py", output="short"), "superseded by a later read of src/a.py"),
        (
            lambda: run("edit", "ok", path="src/a.py", old_string="a", new_string="b"),
            "src/a.py was edited later",
        ),
        (lambda: run("write", "ok", path="src/a.py", content=""), "src/a.py was written later"),
    ],
)
def test_a_read_is_superseded_by_a_later_read_or_change(later: Callable[[], list[Item]], reason: str) -> None:
    assert prune(run("read", path="src/a.py"), later()) == {0: reason}


@pytest.mark.parametrize(
    "later",
    [
        lambda: run("edit", "ok", path="src/b.py", old_string="a", new_string="b"),
        lambda: run("read", path="src/b.py"),
        lambda: run("edit", "src/a.py: old_string not found", error=True, path="src/a.py"),
        lambda: run("read", "src/a.py: no such file", error=True, path="src/a.py"),
        lambda: run("write", "[steering:no-write@rein] not here", error=True, path="src/a.py", content=""),
        lambda: run("read", path="src/a.py", offset=50, limit=10),
        lambda: run("grep", pattern="x", path="src/a.py"),
    ],
)
def test_a_read_is_kept_when_nothing_later_replaced_it(later: Callable[[], list[Item]]) -> None:
    assert prune(run("read", path="src/a.py"), later()) == {}


def test_a_partial_read_is_superseded_by_the_same_range_or_the_whole_file() -> None:
    def part() -> list[Item]:
        return run("read", path="src/a.py", offset=10, limit=5)

    assert prune(part(), part()) == {0: "superseded by a later read of src/a.py"}
    assert prune(part(), run("read", path="src/a.py", offset=1, limit=5)) == {}
    whole = prune(part(), run("read", path="src/a.py", offset=20), run("read", path="src/a.py"))
    assert whole == {0: "superseded by a later read of src/a.py", 1: "superseded by a later read of src/a.py"}


@pytest.mark.parametrize("tool", ["ls", "grep", "find"])
def test_a_search_run_again_with_the_same_arguments_is_superseded(tool: str) -> None:
    same = prune(run(tool, pattern="TODO", path="src"), run(tool, path="src", pattern="TODO"))
    assert same == {0: f"the same {tool} call ran again later"}
    assert prune(run(tool, pattern="TODO", path="src"), run(tool, pattern="FIXME", path="src")) == {}


def test_an_ls_of_the_default_path_is_the_same_as_of_dot() -> None:
    assert prune(run("ls"), run("ls", path=".")) == {0: "the same ls call ran again later"}
    assert prune(run("ls"), run("ls", path="src")) == {}


def test_a_bash_command_run_again_is_superseded_whitespace_normalized() -> None:
    first = run("bash", BIG + "\n[exit code 1]", error=True, command="pytest -q tests")
    assert prune(first, run("bash", "ok", command=" pytest  -q\ttests\n")) == {
        0: "the same command ran again later"
    }
    assert prune(run("bash", command="pytest -q"), run("bash", command="pytest -x")) == {}
    blocked = run(
        "bash", "[approval] not run: the user denied this bash call.", error=True, command="pytest -q"
    )
    assert prune(run("bash", command="pytest -q"), blocked) == {}


@pytest.mark.parametrize("why", ["aborted", "timed out after 120 s"])
def test_a_bash_rerun_that_did_not_finish_supersedes_nothing_but_can_be_superseded(why: str) -> None:
    killed = f"\n[command {why}; its process group was killed]"
    unfinished = run("bash", "partial" + killed, error=True, command="make")
    assert prune(run("bash", command="make"), unfinished) == {}
    assert prune(run("bash", command="make"), unfinished, run("bash", "ok", command="make")) == {
        0: "the same command ran again later"
    }
    big_unfinished = run("bash", BIG + killed, error=True, command="make")
    assert prune(big_unfinished, run("bash", "ok", command="make")) == {0: "the same command ran again later"}


def test_each_stale_result_gets_the_nearest_later_reason() -> None:
    reasons = prune(
        run("read", path="src/a.py"),
        run("edit", "ok", path="src/a.py", old_string="a", new_string="b"),
        run("read", path="src/a.py"),
        run("read", path="src/a.py"),
    )
    assert reasons == {0: "src/a.py was edited later", 2: "superseded by a later read of src/a.py"}


def test_results_in_the_protected_tail_are_kept() -> None:
    runs = [run("read", path="src/a.py") for _ in range(3)]  # 204 tokens each
    assert sorted(prune(*runs, protect=300)) == [0, 1]
    assert sorted(prune(*runs, protect=408)) == [0]
    assert sorted(prune(*runs, protect=409)) == [0]
    assert prune(*runs, protect=612) == {}
    assert sorted(superseded([item for pair in runs for item in pair])) == []  # the default keeps 20k


def test_the_protected_tail_counts_tool_output_only() -> None:
    chatter: list[Item] = [
        ("u", UserMessage.of(BIG * 10)),
        ("c", CustomMessage(custom_type="x", content=BIG)),
    ]
    assert sorted(
        prune(run("read", path="src/a.py"), chatter, run("read", path="src/a.py"), protect=300)
    ) == [0]


def test_small_outputs_and_entries_without_an_id_are_kept() -> None:
    assert (
        prune(run("read", "y" * 180, path="src/a.py"), run("read", path="src/a.py")) == {}
    )  # 4 + 45 = 49 tokens
    assert prune(run("read", "y" * 181, path="src/a.py"), run("read", path="src/a.py")) == {
        0: "superseded by a later read of src/a.py"
    }
    first = run("read", entry=None, path="src/a.py")
    items = [*first, *run("read", path="src/a.py")]
    assert superseded(items, protect_tokens=0) == {}


def test_a_result_without_its_call_is_ignored() -> None:
    orphan: list[Item] = [
        ("r", ToolResultMessage(tool_call_id="gone", tool_name="read", content=(TextContent(text=BIG),)))
    ]
    assert prune(orphan, run("read", path="src/a.py")) == {}


def test_pruned_keeps_the_ids_and_replaces_the_content() -> None:
    message = ToolResultMessage(
        tool_call_id="c1", tool_name="bash", content=(TextContent(text=BIG),), is_error=True, timestamp=7
    )
    assert pruned(message, "the same command ran again later") == ToolResultMessage(
        tool_call_id="c1",
        tool_name="bash",
        content=(TextContent(text="[output pruned by rein: the same command ran again later]"),),
        is_error=True,
        timestamp=7,
    )


TEXTS = st.sampled_from(["", "short", BIG, "[steering:x@y] no", "ok\n[exit code 1]"])
VALUES: st.SearchStrategy[JsonValue] = st.one_of(
    st.none(), st.booleans(), st.integers(), st.sampled_from(["a", "./a", "", " "]), st.just([1])
)
ARGUMENTS = st.dictionaries(st.sampled_from(["path", "command", "offset", "limit", "pattern"]), VALUES)
CALL_IDS = st.sampled_from(["a", "b", "c"])
NAMES = st.sampled_from(["read", "write", "edit", "bash", "ls", "grep", "find", "other"])
MESSAGES: st.SearchStrategy[AgentMessage] = st.one_of(
    st.builds(
        AssistantMessage,
        content=st.lists(st.builds(ToolCall, id=CALL_IDS, name=NAMES, arguments=ARGUMENTS), max_size=3).map(
            tuple
        ),
        provider=st.just("f"),
        model=st.just("f"),
    ),
    st.builds(
        ToolResultMessage,
        tool_call_id=CALL_IDS,
        tool_name=NAMES,
        content=st.tuples(st.builds(TextContent, text=TEXTS)),
        is_error=st.booleans(),
    ),
    st.builds(UserMessage.of, TEXTS),
)
ITEMS = st.lists(st.tuples(st.none() | st.sampled_from(["1", "2", "3", "4", "5"]), MESSAGES), max_size=12)


@pytest.mark.slow
@given(ITEMS, st.integers(min_value=0, max_value=1000))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_superseded_never_raises_and_names_only_tool_results(items: list[Item], protect: int) -> None:
    reasons = superseded(items, protect_tokens=protect)
    results = {
        entry for entry, message in items if isinstance(message, ToolResultMessage) and entry is not None
    }
    assert set(reasons) <= results
    assert all(reason for reason in reasons.values())
