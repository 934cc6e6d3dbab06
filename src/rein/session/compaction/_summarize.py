"""The chunked summarizer: one summary of a history larger than the summarizer model's own window.

Every request is planned to fit: its system prompt, frame, content and reply limit (`max_tokens`)
stay under the window less a 5% margin, by the four-characters-a-token estimate.

- The whole history fits one request: one request, the previous summary and the instructions in it.
- Else the serialized messages are packed, in order, into chunks; a message larger than a chunk is
  cut into parts ("[part i of n]", on line boundaries where it can). Each chunk is summarized alone
  (sequentially), then the chunk summaries are merged; a merge too large for one request is done in
  consecutive groups, recursively. The previous summary joins the merge as its first, oldest item
  rather than the first chunk: it is the only record of everything before the last compaction, and
  passing it through a chunk summary would compress it a second time beside new material (every
  chunk also gains the room it would take). Only a previous summary too large to stand beside a
  chunk summary in a merge is summarized instead, as the oldest stretch of the transcript.
- Chunk summaries and partial merges are asked to be at most half of what a merge request can carry,
  so two of them always fit one merge, even with a small window.
- A request the provider rejects as too large (`SummaryOverflow`): a window it names that is smaller
  than the one in use replaces it and the rest is planned again; otherwise the chunk is split in two
  (by messages; a single message by its text) and the halves are summarized, recursively. A part under
  the floor that still overflows, or two summaries that cannot be merged, raise the provider's error.
- `SummaryError` (any other failure) is never retried here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rein.session.compaction._prompts import (
    Purpose,
    merge_prompt,
    summary_prompt,
    system_prompt,
    wrap_summary,
)
from rein.session.compaction._tokens import CHARS_PER_TOKEN, text_tokens

FLOOR = 256
"""The fewest content tokens a request may carry; a plan that leaves less is refused."""
MARGIN_PERCENT = 5
_SLACK = 2
"""Tokens for rounding: a prompt's estimate can exceed the sum of its parts' estimates by one."""
_MARKER_CHARS = 24
"""Room for a "[part i of n]" line."""


class SummaryOverflow(Exception):
    """A summary request did not fit the summarizer's window (the provider's text; its window if named)."""

    def __init__(self, text: str, window: int | None = None) -> None:
        super().__init__(text)
        self.text = text
        self.window = window


class SummaryError(Exception):
    """Any other failure of a summary request: the provider's error text, surfaced as it is."""


class Summarize(Protocol):
    """One summary request: returns the reply's text (may be empty).

    Raises `SummaryOverflow` when the request was too large for the model, `SummaryError` on any
    other failure (an aborted request included).
    """

    async def __call__(self, system: str, prompt: str, max_tokens: int) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryResult:
    text: str
    """The summary; the previous one when there was nothing new, "" when there was nothing at all."""
    requests: int
    """How many summary requests were made."""
    window: int
    """The window used at the end (smaller if an overflow taught a smaller one)."""


async def summarize_chunked(
    pieces: Sequence[str],
    summarize: Summarize,
    *,
    window: int,
    max_tokens: int,
    previous: str | None = None,
    instructions: str | None = None,
    purpose: Purpose = "compaction",
) -> SummaryResult:
    """Summarize `pieces` (serialized messages, oldest first) within the summarizer's `window`.

    `max_tokens` limits the final summary; `previous` (the last compaction's summary) is carried into
    this one; `instructions` (the user's `/compact <instructions>`) reach every request. Raises
    `SummaryOverflow` when no plan fits the window or the provider rejects an indivisible part, and
    `SummaryError` as the provider raised it.
    """
    if window <= 0 or max_tokens <= 0:
        raise ValueError(f"window ({window}) and max_tokens ({max_tokens}) must be positive")
    run = _Run(summarize, window, max_tokens, previous or None, instructions or None, purpose)
    text = await run.summary([piece for piece in pieces if piece])
    return SummaryResult(text=text, requests=run.requests, window=run.window)


class _Run:
    """One summary's plan and its state: the window in use and the requests made."""

    def __init__(
        self,
        summarize: Summarize,
        window: int,
        max_tokens: int,
        previous: str | None,
        instructions: str | None,
        purpose: Purpose,
    ) -> None:
        self._summarize = summarize
        self.window = window
        self._max_tokens = max_tokens
        self._previous = previous
        self._instructions = instructions
        self._purpose = purpose
        self._system = system_prompt(purpose)
        self.requests = 0

    async def summary(self, pieces: list[str]) -> str:
        if not pieces:
            return self._previous or ""
        previous, instructions = self._previous, self._instructions
        whole = summary_prompt("", purpose=self._purpose, previous=previous, instructions=instructions)
        halves: tuple[list[str], list[str]] | None = None
        if _cost(pieces) <= self._room(whole, self._max_tokens):
            try:
                return await self._request(self._prompt(pieces, previous=previous), self._max_tokens)
            except SummaryOverflow as overflow:
                if self._learn(overflow):
                    return await self.summary(pieces)  # plan again for the smaller window
                halves = _halves(pieces)
                if halves is None and previous is None:
                    overflow.add_note(f"a part of {_cost(pieces)} tokens could not be split further")
                    raise
                # One small piece with a previous summary: try it alone, the previous joins the merge.
        if previous is not None and not self._mergeable(previous):
            # Too large to stand beside a part summary in a merge: summarize it as the oldest stretch.
            pieces, previous, halves = [f"[Previous summary]:\n{previous}", *pieces], None, None
        parts: list[str] = []
        for stretch in halves or (pieces,):
            parts.extend(await self._parts(stretch))
        return await self._merge([previous, *parts] if previous is not None else parts, final=True)

    async def _parts(self, pieces: Sequence[str]) -> list[str]:
        """Summaries of `pieces`, one per chunk, in order."""
        max_tokens = self._part_tokens()
        frame = summary_prompt("", purpose=self._purpose, instructions=self._instructions, part=True)
        budget = self._budget(frame, max_tokens)
        chunks = _group(_cut_all(pieces, budget), budget)
        summaries: list[str] = []
        for index, chunk in enumerate(chunks):
            try:
                summaries.append(await self._request(self._prompt(chunk, part=True), max_tokens))
            except SummaryOverflow as overflow:
                if self._learn(overflow):  # plan this chunk and the rest again for the smaller window
                    rest = [piece for later in chunks[index:] for piece in later]
                    return summaries + await self._parts(rest)
                halves = _halves(chunk)
                if halves is None:
                    overflow.add_note(f"a part of {_cost(chunk)} tokens could not be split further")
                    raise
                for half in halves:
                    summaries.extend(await self._parts(half))
        return summaries

    async def _merge(self, items: list[str], *, final: bool) -> str:
        """One summary of `items` (summaries of consecutive stretches, oldest first)."""
        if len(items) == 1:
            return items[0]
        max_tokens = self._max_tokens if final else self._part_tokens()
        budget = self._budget(self._merge_frame(), max_tokens)
        if _merge_cost(items) <= budget:
            try:
                prompt = merge_prompt(items, purpose=self._purpose, instructions=self._instructions)
                return await self._request(prompt, max_tokens)
            except SummaryOverflow as overflow:
                if self._learn(overflow):
                    return await self._merge(items, final=final)
                if len(items) == 2:
                    overflow.add_note("two summaries could not be merged in one request")
                    raise
                middle = len(items) // 2
                left = await self._merge(items[:middle], final=False)
                right = await self._merge(items[middle:], final=False)
                return await self._merge([left, right], final=final)
        groups = _group(items, budget, cost=_merge_item_cost)
        if all(len(group) == 1 for group in groups):
            raise SummaryOverflow(
                f"the summarizer's window of {self.window} tokens cannot merge {len(items)} summaries: "
                f"no two consecutive ones fit the {budget} tokens a request can carry",
                self.window,
            )
        merged = [await self._merge(group, final=False) if len(group) > 1 else group[0] for group in groups]
        return await self._merge(merged, final=final)

    def _prompt(self, pieces: Sequence[str], *, previous: str | None = None, part: bool = False) -> str:
        return summary_prompt(
            "\n\n".join(pieces),
            purpose=self._purpose,
            previous=previous,
            instructions=self._instructions,
            part=part,
        )

    def _merge_frame(self) -> str:
        return merge_prompt([], purpose=self._purpose, instructions=self._instructions)

    async def _request(self, prompt: str, max_tokens: int) -> str:
        self.requests += 1
        return await self._summarize(self._system, prompt, max_tokens)

    def _learn(self, overflow: SummaryOverflow) -> bool:
        """Take a smaller window the provider named; True when it changed the window in use."""
        if overflow.window is not None and 0 < overflow.window < self.window:
            self.window = overflow.window
            return True
        return False

    def _room(self, frame: str, max_tokens: int) -> int:
        """Content tokens a request with `frame` and `max_tokens` can carry (may be negative)."""
        margin = -(-self.window * MARGIN_PERCENT // 100)
        return self.window - margin - max_tokens - text_tokens(self._system) - text_tokens(frame) - _SLACK

    def _budget(self, frame: str, max_tokens: int) -> int:
        room = self._room(frame, max_tokens)
        if room < FLOOR:
            raise SummaryOverflow(
                f"the summarizer's window of {self.window} tokens cannot hold a summary request: "
                f"{max_tokens} tokens for the reply and {self.window - max_tokens - room} for the prompt "
                f"and margin leave {room} for the content, fewer than {FLOOR}",
                self.window,
            )
        return room

    def _mergeable(self, previous: str) -> bool:
        """Whether `previous` fits a final merge beside at least one part summary."""
        room = self._budget(self._merge_frame(), self._max_tokens)
        return _merge_item_cost(previous) + _merge_item_cost("") + self._part_tokens() <= room

    def _part_tokens(self) -> int:
        """The reply limit of chunk summaries and partial merges: two of them fit one final merge."""
        return min(self._max_tokens, self._budget(self._merge_frame(), self._max_tokens) // 2)


def _cost(pieces: Sequence[str]) -> int:
    return sum(_piece_cost(piece) for piece in pieces)


def _piece_cost(piece: str) -> int:
    return text_tokens(piece) + 1  # and the blank line that separates it from the next


def _merge_item_cost(summary: str) -> int:
    return text_tokens(wrap_summary(summary)) + 1


def _merge_cost(items: Sequence[str]) -> int:
    return sum(_merge_item_cost(item) for item in items)


def _group(items: Sequence[str], budget: int, cost: Callable[[str], int] = _piece_cost) -> list[list[str]]:
    """`items` packed greedily, in order, into groups whose cost stays within `budget` (an item
    larger than the budget alone makes a group of one)."""
    groups: list[list[str]] = []
    current: list[str] = []
    used = 0
    for item in items:
        size = cost(item)
        if current and used + size > budget:
            groups.append(current)
            current, used = [], 0
        current.append(item)
        used += size
    if current:
        groups.append(current)
    return groups


def _cut_all(pieces: Sequence[str], budget: int) -> list[str]:
    """`pieces` with each one larger than `budget` cut into parts."""
    out: list[str] = []
    for piece in pieces:
        out.extend(_cut(piece, budget) if _piece_cost(piece) > budget else [piece])
    return out


def _cut(text: str, budget: int) -> list[str]:
    """`text` in parts that each fit `budget` with their "[part i of n]" line: whole lines where they
    fit; a line longer than a part fills parts by characters."""
    limit = max(1, (budget - 1) * CHARS_PER_TOKEN - _MARKER_CHARS)
    parts: list[str] = []
    current = ""
    for whole in text.splitlines(keepends=True):
        line = whole
        if current and len(current) + len(line) > limit and len(line) <= limit:
            parts.append(current)  # a line that fits a part starts the next one
            current = ""
        while len(current) + len(line) > limit:  # a longer line fills parts by characters
            take = limit - len(current)
            parts.append(current + line[:take])
            current, line = "", line[take:]
        current += line
    if current:
        parts.append(current)
    return _label(parts)


def _label(parts: list[str]) -> list[str]:
    return [f"[part {index} of {len(parts)}]\n{part}" for index, part in enumerate(parts, 1)]


def _halves(chunk: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """`chunk` split in two of about equal size: by pieces, a single piece by its text at the line
    break nearest its middle. None when it is one piece under the floor."""
    if len(chunk) > 1:
        half, used, index = _cost(chunk) / 2, 0, 0
        while index < len(chunk) - 1 and used + _piece_cost(chunk[index]) / 2 < half:
            used += _piece_cost(chunk[index])
            index += 1
        index = max(1, index)
        return list(chunk[:index]), list(chunk[index:])
    text = chunk[0]
    if text_tokens(text) < FLOOR:
        return None
    middle = len(text) // 2
    before, after = text.rfind("\n", 0, middle), text.find("\n", middle)
    breaks = [at + 1 for at in (before, after) if 0 <= at < len(text) - 1]
    cut = min(breaks, key=lambda at: abs(at - middle)) if breaks else middle
    first, second = _label([text[:cut], text[cut:]])
    return [first], [second]
