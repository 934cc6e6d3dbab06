"""The chunked summarizer against a fake summarizer that records every request and overflows on demand.

The fake's summary names the messages it saw as ranges ("covers msg-0..msg-59"), read from pieces and
from earlier summaries alike, so a final summary that covers every message proves that each chunk was
summarized and every summary merged.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

import pytest

from rein.session.compaction._prompts import BRANCH_SYSTEM, COMPACTION_SYSTEM
from rein.session.compaction._summarize import (
    FLOOR,
    SummaryError,
    SummaryOverflow,
    SummaryResult,
    _cut,
    summarize_chunked,
)
from rein.session.compaction._tokens import text_tokens

_IDS = re.compile(r"msg-(\d+)(?:\.\.msg-(\d+))?")


@dataclass(frozen=True)
class Request:
    system: str
    prompt: str
    max_tokens: int

    @property
    def tokens(self) -> int:
        """What the request needs of the window: its input and the reply it allows."""
        return text_tokens(self.system) + text_tokens(self.prompt) + self.max_tokens

    @property
    def merge(self) -> bool:
        return "<summary>" in self.prompt

    @property
    def ids(self) -> set[int]:
        return seen(self.prompt)


def seen(text: str) -> set[int]:
    found: set[int] = set()
    for first, last in _IDS.findall(text):
        found.update(range(int(first), int(last or first) + 1))
    return found


def ranges(ids: set[int]) -> str:
    spans: list[list[int]] = []
    for number in sorted(ids):
        if spans and spans[-1][1] == number - 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return " ".join(f"msg-{a}" if a == b else f"msg-{a}..msg-{b}" for a, b in spans)


class Fake:
    """A `Summarize` that records each request. `limit`: above this many tokens (system and prompt),
    the request overflows, naming `window` when given. `fill`: pad each summary to 90% of its
    `max_tokens`, as a verbose model would."""

    def __init__(
        self,
        *,
        limit: int | None = None,
        window: int | None = None,
        fill: bool = False,
        error: Exception | None = None,
    ) -> None:
        self.limit = limit
        self.window = window
        self.fill = fill
        self.error = error
        self.requests: list[Request] = []
        self.overflowed: list[Request] = []

    async def __call__(self, system: str, prompt: str, max_tokens: int) -> str:
        request = Request(system, prompt, max_tokens)
        self.requests.append(request)
        if self.error is not None:
            raise self.error
        size = text_tokens(system) + text_tokens(prompt)
        if self.limit is not None and size > self.limit:
            self.overflowed.append(request)
            raise SummaryOverflow(f"prompt is too long: {size} tokens > {self.limit} maximum", self.window)
        text = f"## Goal\ncovers {ranges(request.ids)}"
        if self.fill:
            text += "\n" + "." * max(0, max_tokens * 4 * 9 // 10 - len(text))
        return text


def run(pieces: list[str], fake: Fake, **options: object) -> SummaryResult:
    return asyncio.run(summarize_chunked(pieces, fake, **options))  # type: ignore[arg-type]


def history(count: int, size: int = 400) -> list[str]:
    """`count` serialized messages of about `size` characters, each naming its id."""
    return [f"[User]: msg-{n} " + "x" * (size - 16) for n in range(count)]


def assert_fits(fake: Fake, window: int) -> None:
    margin = -(-window * 5 // 100)
    for request in fake.requests:
        assert request.tokens <= window - margin, request.prompt[:200]


def test_one_chunk_is_one_request_with_every_piece() -> None:
    pieces = history(3)
    fake = Fake()
    result = run(pieces, fake, window=8000, max_tokens=1000)
    assert result == SummaryResult(text="## Goal\ncovers msg-0..msg-2", requests=1, window=8000)
    [request] = fake.requests
    assert request.system == COMPACTION_SYSTEM and request.max_tokens == 1000
    assert all(piece in request.prompt for piece in pieces)
    assert "<previous-summary>" not in request.prompt


def test_many_chunks_are_summarized_in_order_then_merged() -> None:
    fake = Fake()
    result = run(history(60), fake, window=2000, max_tokens=300)
    chunks = [r for r in fake.requests if not r.merge]
    merges = [r for r in fake.requests if r.merge]
    assert len(chunks) >= 5 and merges[-1] is fake.requests[-1]
    # Each message is in exactly one chunk request, and the chunks follow the history's order.
    flat = [n for chunk in chunks for n in sorted(chunk.ids)]
    assert flat == list(range(60))
    assert seen(result.text) == set(range(60))
    assert result.requests == len(fake.requests)
    assert_fits(fake, 2000)


def test_a_merge_too_large_for_one_request_is_done_in_groups_recursively() -> None:
    fake = Fake(fill=True)
    result = run(history(120), fake, window=2000, max_tokens=300)
    chunks = [r for r in fake.requests if not r.merge]
    merges = [r for r in fake.requests if r.merge]
    assert len(merges) >= 3
    assert merges[-1].prompt.count("<summary>") < len(chunks)  # it merged merges, not the chunks
    assert seen(result.text) == set(range(120))
    assert_fits(fake, 2000)


def test_part_summaries_are_limited_so_that_two_fit_one_merge() -> None:
    fake = Fake(fill=True)
    result = run(history(60), fake, window=2000, max_tokens=600)
    *parts, final = fake.requests
    assert final.max_tokens == 600  # only the final summary may use the whole reply limit
    assert {r.max_tokens for r in parts} == {parts[0].max_tokens} and parts[0].max_tokens < 600
    assert seen(result.text) == set(range(60))
    assert_fits(fake, 2000)


def test_requests_the_provider_rejects_are_split_until_they_fit() -> None:
    # The provider holds less than rein planned for and does not say how much: chunks and merges are
    # halved after each overflow until they pass.
    fake = Fake(limit=900, fill=True)
    result = run(history(40), fake, window=2000, max_tokens=200)
    assert fake.overflowed and any(r.merge for r in fake.overflowed)
    assert seen(result.text) == set(range(40))
    assert all(
        text_tokens(r.system) + text_tokens(r.prompt) <= 900
        for r in fake.requests
        if r not in fake.overflowed
    )
    assert_fits(fake, 2000)


def test_a_single_message_the_provider_rejects_is_halved_at_a_line_break() -> None:
    lines = [f"line {n}: " + "w" * 50 for n in range(100)]
    output = "[Tool result bash]: msg-5\n" + "\n".join(lines)
    fake = Fake(limit=1300)  # rein planned for 8000 tokens; the provider takes 1300 and does not say so
    result = run([output], fake, window=8000, max_tokens=500)
    first, *rest = [r for r in fake.requests if not r.merge]
    assert first in fake.overflowed and not set(rest) & set(fake.overflowed)
    halves = [r.prompt.split("<conversation>\n")[1].split("\n</conversation>")[0] for r in rest]
    assert [h.split("\n", 1)[0] for h in halves] == ["[part 1 of 2]", "[part 2 of 2]"]
    assert "".join(h.split("\n", 1)[1] for h in halves) == output
    assert halves[0].endswith("\n") and halves[1].split("\n")[1].startswith("line ")
    assert seen(result.text) == {5}


def test_a_single_oversized_message_is_cut_into_marked_parts() -> None:
    lines = [f"line {n}: " + "y" * 60 for n in range(400)]
    output = "[Tool result bash]: msg-7\n" + "\n".join(lines)
    fake = Fake()
    result = run([output], fake, window=2000, max_tokens=300)
    chunks = [r for r in fake.requests if not r.merge]
    markers = [re.search(r"\[part (\d+) of (\d+)\]\n", r.prompt) for r in chunks]
    assert all(markers) and len(chunks) >= 5
    assert [int(m.group(1)) for m in markers if m] == list(range(1, len(chunks) + 1))
    assert {int(m.group(2)) for m in markers if m} == {len(chunks)}
    # Cut on line boundaries: every line arrives whole, once, in order.
    text = "".join(r.prompt.split("]\n", 1)[1].split("\n</conversation>")[0] for r in chunks[:1])
    assert text.startswith("[Tool result bash]: msg-7\nline 0: ")
    received = [line for r in chunks for line in re.findall(r"line \d+: y+", r.prompt)]
    assert received == lines
    assert seen(result.text) == {7}
    assert_fits(fake, 2000)


def test_a_single_line_longer_than_a_chunk_is_cut_by_characters() -> None:
    blob = "msg-3 " + "z" * 30_000
    fake = Fake()
    run([blob], fake, window=2000, max_tokens=300)
    chunks = [r for r in fake.requests if not r.merge]
    assert len(chunks) >= 5
    parts = [
        re.sub(r"^\[part \d+ of \d+\]\n", "", r.prompt.split("<conversation>\n")[1].split("\n</conv")[0])
        for r in chunks
    ]
    assert "".join(parts) == blob
    assert_fits(fake, 2000)


@pytest.mark.parametrize("budget", [256, 300, 777])
def test_cut_parts_fit_their_budget_and_rebuild_the_text(budget: int) -> None:
    text = "".join(f"short {n}\n" if n % 7 else "L" * (n * 131) + "\n" for n in range(60)) + "tail"
    parts = _cut(text, budget)
    assert all(text_tokens(part) + 1 <= budget for part in parts)
    assert "".join(part.split("\n", 1)[1] for part in parts) == text
    assert [part.split("\n", 1)[0] for part in parts] == [
        f"[part {i} of {len(parts)}]" for i in range(1, len(parts) + 1)
    ]
    # A short line is never split: it is whole in one part.
    bodies = ["\n" + part.split("\n", 1)[1] for part in parts]
    assert all(any(f"\nshort {n}\n" in body for body in bodies) for n in range(60) if n % 7)


def test_a_window_the_provider_names_replaces_the_one_in_use() -> None:
    fake = Fake(limit=2000, window=2000)
    result = run(history(100), fake, window=8000, max_tokens=400)
    assert result.window == 2000
    first = fake.requests.index(fake.overflowed[0])
    assert fake.overflowed == [fake.requests[first]]  # one lesson was enough: everything after fits
    margin = -(-2000 * 5 // 100)
    assert all(r.tokens <= 2000 - margin for r in fake.requests[first + 1 :])
    assert seen(result.text) == set(range(100))


def test_a_learned_window_too_small_for_any_request_says_so() -> None:
    fake = Fake(limit=300, window=300)
    with pytest.raises(SummaryOverflow, match=r"the summarizer's window of 300 tokens cannot hold") as caught:
        run(history(100), fake, window=8000, max_tokens=400)
    assert caught.value.window == 300
    assert len(fake.requests) == 1


def test_an_indivisible_part_that_still_overflows_surfaces_the_providers_error() -> None:
    fake = Fake(limit=10)  # rejects everything, names no window
    with pytest.raises(SummaryOverflow) as caught:
        run(history(8), fake, window=4000, max_tokens=300)
    assert re.fullmatch(r"prompt is too long: \d+ tokens > 10 maximum", caught.value.text)
    assert str(caught.value) == caught.value.text
    assert caught.value.window is None
    last = fake.requests[-1]
    assert text_tokens(last.prompt.split("<conversation>\n")[1].split("\n</conv")[0]) < FLOOR
    assert len(fake.requests) < 20


def test_a_window_too_small_for_the_reply_limit_is_refused_before_any_request() -> None:
    fake = Fake()
    with pytest.raises(
        SummaryOverflow, match=r"window of 1000 tokens cannot hold a summary request"
    ) as caught:
        run(history(50), fake, window=1000, max_tokens=600)
    assert caught.value.window == 1000 and fake.requests == []


def test_a_previous_summary_too_large_for_a_merge_is_summarized_as_the_oldest_stretch() -> None:
    fake = Fake()
    previous = "## Goal\nmsg-900 " + "p" * 6000  # more than a merge request can carry
    result = run(history(60), fake, window=2000, max_tokens=300, previous=previous)
    first = fake.requests[0].prompt.split("<conversation>\n")[1]
    assert first.startswith("[part 1 of 2]\n[Previous summary]:\n## Goal\nmsg-900 ppp")
    assert "<previous-summary>" not in "".join(r.prompt for r in fake.requests)
    assert seen(result.text) == {*range(60), 900}
    assert_fits(fake, 2000)


def test_summary_errors_propagate_without_retries() -> None:
    error = SummaryError("rate limited: retry after 30s")
    for pieces in (history(2), history(60)):
        fake = Fake(error=error)
        with pytest.raises(SummaryError) as caught:
            run(pieces, fake, window=2000, max_tokens=300)
        assert caught.value is error and len(fake.requests) == 1


def test_one_request_carries_the_previous_summary_and_the_instructions() -> None:
    fake = Fake()
    run(
        history(3),
        fake,
        window=8000,
        max_tokens=500,
        previous="## Goal\nmsg-900 earlier",
        instructions="the DB",
    )
    [request] = fake.requests
    assert "<previous-summary>\n## Goal\nmsg-900 earlier\n</previous-summary>" in request.prompt
    assert request.prompt.index("<previous-summary>") < request.prompt.index("<conversation>")
    assert "focus on: the DB" in request.prompt


def test_with_several_chunks_the_previous_summary_is_merged_first_and_instructions_reach_every_request() -> (
    None
):
    fake = Fake()
    previous = "## Goal\nearlier work msg-900"
    result = run(history(60), fake, window=2000, max_tokens=300, previous=previous, instructions="keep tests")
    assert all("focus on: keep tests" in r.prompt for r in fake.requests)
    carrying = [r for r in fake.requests if "earlier work msg-900" in r.prompt]
    assert carrying == [fake.requests[-1]] and carrying[0].merge
    assert carrying[0].prompt.startswith(f"<summary>\n{previous}\n</summary>")
    assert seen(result.text) == {*range(60), 900}
    assert_fits(fake, 2000)


def test_branch_summaries_use_the_branch_prompt() -> None:
    fake = Fake()
    run(history(60), fake, window=2000, max_tokens=300, purpose="branch")
    assert {r.system for r in fake.requests} == {BRANCH_SYSTEM}
    assert "abandoned branch" in fake.requests[0].prompt


def test_nothing_to_summarize_returns_the_previous_summary_without_a_request() -> None:
    fake = Fake()
    assert run([], fake, window=2000, max_tokens=300, previous="old") == SummaryResult(
        text="old", requests=0, window=2000
    )
    assert run(["", ""], fake, window=2000, max_tokens=300).text == ""
    assert fake.requests == []
