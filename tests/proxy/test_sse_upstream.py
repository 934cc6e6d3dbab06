"""The SSE reader (any byte split, CRLF, comments, a last event without its blank line), the upstream
URL, and which headers cross the proxy."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from rein.proxy import SseEvent, SseParser, api_of, upstream_url
from rein.proxy._upstream import request_headers, response_headers

STREAM = (
    b": keep-alive\r\n\r\n"
    b'event: message_start\r\ndata: {"a": 1}\r\n\r\n'
    b"data: line one\ndata: line two\n\n"
    b"id: 7\nretry: 10\ndata: \xc3\xa9t\xc3\xa9\n\n"
    b"data: [DONE]"
)
EXPECTED = [
    SseEvent('{"a": 1}', "message_start"),
    SseEvent("line one\nline two"),
    SseEvent("\u00e9t\u00e9"),
    SseEvent("[DONE]"),
]


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_events_survive_any_split(cuts: list[int]) -> None:
    points = sorted({0, *cuts, len(STREAM)})
    parser = SseParser()
    got: list[SseEvent] = []
    for start, end in itertools.pairwise(points):
        got += parser.feed(STREAM[start:end])
    got += parser.close()
    assert got == EXPECTED


def test_encode_round_trips() -> None:
    parser = SseParser()
    events = parser.feed(b"".join(e.encode() for e in EXPECTED))
    assert events == EXPECTED


def test_upstream_url_says_v1_once() -> None:
    assert upstream_url("http://h:1/v1", "/v1/chat/completions") == "http://h:1/v1/chat/completions"
    assert upstream_url("https://api.anthropic.com", "/v1/messages", "beta=true") == (
        "https://api.anthropic.com/v1/messages?beta=true"
    )
    assert upstream_url("http://h/openai/v1", "/v1/models") == "http://h/openai/v1/models"
    assert upstream_url("http://h/api", "/v1/responses") == "http://h/api/v1/responses"


def test_api_of_checked_paths_only() -> None:
    assert api_of("POST", "/v1/chat/completions") == "chat"
    assert api_of("POST", "/v1/responses") == "responses"
    assert api_of("POST", "/v1/messages") == "messages"
    assert api_of("POST", "/v1/messages/count_tokens") is None
    assert api_of("GET", "/v1/responses") is None
    assert api_of("POST", "/v1/embeddings") is None


def test_headers_each_way() -> None:
    sent = [(b"Host", b"proxy"), (b"Authorization", b"Bearer k"), (b"x-api-key", b"a"),
            (b"X-Rein-Rules", b"off"), (b"Accept-Encoding", b"gzip"), (b"Content-Length", b"3")]  # fmt: skip
    assert request_headers(sent, decoded=True) == [
        ("authorization", "Bearer k"), ("x-api-key", "a"), ("accept-encoding", "identity")
    ]  # fmt: skip
    assert ("accept-encoding", "gzip") in request_headers(sent, decoded=False)
    back = [("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked"), ("x-request-id", "r1")]
    assert response_headers(back, decoded=True) == [(b"x-request-id", b"r1")]
    assert (b"content-encoding", b"gzip") in response_headers(back, decoded=False)
