"""The relay alone: content held per stream's window, released in order and in parts, tool calls whole,
structural events in their place, and a rule never reaching the client through text inside the window."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rein.proxy import Fired, Out, Relay
from rein.ttsr import MatchContext, Rule, TtsrManager, hold_windows
from tests.ttsr.helpers import rule

TEXT = MatchContext(source="text")
TOOL = MatchContext(source="tool", tool_name="write", tool_call_id="c1")
CONSOLE = rule("condition: 'console\\.log\\('", name="no-console")


def relay_for(*rules: Rule, cap: int = 64) -> Relay:
    def manager() -> TtsrManager:
        return TtsrManager(rules, eager=True)

    return Relay(manager, hold_windows(manager().plan, cap))


def text(part: str, *, final: bool = False, stream: str = "t") -> Out:
    return Out(
        render=lambda shown: f"[{shown}]".encode(), text=part, stream=stream, context=TEXT, final=final
    )


def plain(part: str, *, final: bool = False) -> Out:
    return Out(render=lambda shown: shown.encode(), text=part, stream="t", context=TEXT, final=final)


def event(name: str) -> Out:
    return Out(render=lambda _: f"<{name}>".encode())


def test_text_is_held_by_the_window_and_released_in_parts() -> None:
    relay = relay_for(CONSOLE)
    assert relay.push([event("start"), text("Hello, world. ")]) == []
    assert relay.release() == b"<start>[H]"  # 14 characters in, 13 held
    assert relay.push([text("More")]) == []
    assert relay.release() == b"[ello]"
    assert relay.push([text("", final=True), event("stop")]) == []
    assert relay.release() == b"[, world. ][More][]<stop>"


def test_a_match_inside_the_window_fires_before_any_of_it_is_released() -> None:
    relay = relay_for(CONSOLE)
    shown = b""
    fired: list[Fired] = []
    for part in ["Use ", "cons", "ole.l", "og(x) here"]:
        fired = relay.push([text(part)])
        if fired:
            break
        shown += relay.release()
    assert [f.match.name for f in fired] == ["no-console"]
    assert b"c" not in shown.replace(b"[", b"").replace(b"]", b"")[4:]
    assert not relay.late(fired[0])
    relay.cut()
    assert relay.release() == b""  # the held text is gone
    assert relay.shown() == shown.replace(b"[", b"").replace(b"]", b"").decode()
    # the next attempt starts afresh: the same text fires the rule again, nothing of it released
    again = relay.push([text("console.log(1)")])
    assert [f.match.name for f in again] == ["no-console"]
    assert not relay.late(again[0])


def test_tool_calls_are_held_whole_and_block_what_follows() -> None:
    relay = relay_for(CONSOLE)
    call = [
        Out(render=lambda s: f"{{{s}}}".encode(), text=p, stream="c", context=TOOL) for p in ['{"a":', '"b"}']
    ]
    head = Out(render=lambda _: b"<call>", stream="c", context=TOOL)  # a tool call's start is in its stream
    relay.push([event("before"), head, *call, event("after")])
    assert relay.release() == b"<before>"  # the call's head waits with its arguments
    relay.push([Out(render=lambda s: b"{end}", stream="c", context=TOOL, final=True)])
    assert relay.release() == b'<call>{{"a":}{"b"}}<after>{end}'  # in the order they came


def test_unwatched_sources_and_unchecked_pieces_pass_at_once() -> None:
    relay = relay_for(CONSOLE)
    thinking = MatchContext(source="thinking")
    relay.push([Out(render=lambda s: s.encode(), text="deep thought", stream="k", context=thinking)])
    relay.push([Out(render=lambda s: s.encode(), text="sig", stream="k")])
    assert relay.release() == b"deep thoughtsig"


def test_end_of_block_check_at_finish() -> None:
    relay = relay_for(rule("condition: 'bye$'", name="end"))
    relay.push([text("good bye")])
    relay.release()
    fired = relay.finish()
    assert [f.match.name for f in fired] == ["end"]
    assert not relay.late(fired[0])


def test_a_match_longer_than_the_window_is_late() -> None:
    relay = relay_for(rule("condition: 'begin[a-z ]*end'", name="long"), cap=8)
    fired: list[Fired] = []
    for part in ["begin ", "a very long ", "middle ", "end"]:
        fired = relay.push([text(part)])
        relay.release()
    assert [f.match.name for f in fired] == ["long"]
    assert relay.late(fired[0])


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(alphabet="abc .\n", max_size=80),
    suffix=st.text(alphabet="abc .\n", max_size=40),
    cuts=st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=20),
    violate=st.booleans(),
)
def test_released_text_never_holds_a_match_and_is_whole_otherwise(
    prefix: str, suffix: str, cuts: list[int], violate: bool
) -> None:
    body = prefix + ("console.log(" if violate else "console_log(") + suffix
    relay = relay_for(CONSOLE, rule("condition: 'TODO'\nscope: line", name="todo"))
    shown = []
    fed, index = 0, 0
    fired: list[Fired] = []
    while fed < len(body) and not fired:
        size = cuts[index % len(cuts)]
        index += 1
        fired = relay.push(
            [Out(render=lambda s: s.encode(), text=body[fed : fed + size], stream="t", context=TEXT)]
        )
        fed += size
        if not fired:
            shown.append(relay.release())
    if not fired:
        fired = relay.push([plain("", final=True)])
    released = b"".join(shown).decode()
    if violate:
        assert fired and not relay.late(fired[0])
        assert "console.log(" not in released and len(released) <= len(prefix)
        return
    assert fired == []
    assert (released + relay.release().decode()) == body
