"""The one-line summaries the screen and the line mode share."""

from __future__ import annotations

from rein.agent import ToolOutput
from rein.ai import ToolCall
from rein.tui._format import describe, elapsed, one_line, thinking, thinking_tail, tokens, tool_result


def test_tool_calls_read_as_one_line() -> None:
    assert (
        describe(ToolCall(id="1", name="bash", arguments={"command": "pytest -q\nls"}))
        == "[bash] pytest -q ..."
    )
    assert describe(ToolCall(id="2", name="read", arguments={"path": "src/app.py"})) == "[read] src/app.py"
    assert describe(ToolCall(id="3", name="grep", arguments={"pattern": "x"})) == '[grep] {"pattern": "x"}'
    streaming = ToolCall(id="4", name="bash", raw_arguments='{"command": "make te')
    assert describe(streaming) == "[bash]"  # incomplete JSON: the name until the arguments parse
    done = ToolCall(id="5", name="bash", raw_arguments='{"command": "make test"}')
    assert describe(done) == "[bash] make test"


def test_long_text_is_clipped() -> None:
    assert len(one_line("x" * 500)) == 160 and one_line("x" * 500).endswith("...")
    assert one_line("\n\n  first  \nsecond") == "first ..."
    assert one_line("") == ""


def test_a_tool_result_shows_a_few_lines() -> None:
    fragments = tool_result("[bash] ls", ToolOutput(text="a\nb\n", is_error=True))
    assert "".join(f[1] for f in fragments) == "[bash] ls\n  a\n  b"
    assert fragments[1][0] == "class:tool.error"


def test_thinking_and_numbers() -> None:
    assert thinking("plan\nmore") == "[thinking] plan ..."
    assert thinking_tail("w " * 200).startswith("[thinking] ...") and thinking_tail("a b") == "[thinking] a b"
    assert [tokens(n) for n in (999, 1500, 2_500_000)] == ["999 tokens", "1.5k tokens", "2.50M tokens"]
    assert [elapsed(s) for s in (5.9, 61, 3600)] == ["5s", "1m 01s", "60m 00s"]
