"""The server's one exception type and its wire form.

    ProtocolError (status, code, message, details)   a request the server refuses, as the fork does
      -> error_response(err)   {"error": message, "code": code, "details": {...}} with `status`

Store failures (`rein.server.store.StoreError`) are translated at the app's edge by `store_failure`
into 503 INTERNAL_ERROR with Retry-After (or 409 WRITER_FENCED when retries ran out); nothing else
escapes a handler.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from rein.protocol import ErrorCode
from rein.server._json_response import JsonResponse

WebCode: TypeAlias = Literal["NO_RUN", "QUESTION_NOT_FOUND", "CSRF_FAILED", "HOST_REFUSED", "NO_DIRECTORY"]
"""The web page's own codes (`rein.server.web`): beyond the protocol's, never sent to a pi client."""


class ProtocolError(Exception):
    """A refused request: HTTP `status`, the fork's `code`, a one-line `message` naming the field or
    the entry, and optional `details` (the fork's, e.g. `{"entryId": ...}`)."""

    def __init__(
        self, status: int, code: ErrorCode | WebCode, message: str, details: dict[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code: ErrorCode | WebCode = code
        self.message = message
        self.details = details


def error_body(err: ProtocolError) -> dict[str, object]:
    body: dict[str, object] = {"error": err.message, "code": err.code}
    if err.details is not None:
        body["details"] = err.details
    return body


def error_response(err: ProtocolError, headers: dict[str, str] | None = None) -> JsonResponse:
    return JsonResponse(error_body(err), status_code=err.status, headers=headers)


def invalid(field: str, problem: str) -> ProtocolError:
    """400 INVALID_REQUEST naming the field: `entries[3].parentId must be a string or null`."""
    return ProtocolError(400, "INVALID_REQUEST", f"{field} {problem}", {"field": field})


def missing(field: str) -> ProtocolError:
    return ProtocolError(400, "REQUIRED_FIELD_MISSING", f"{field} is required", {"field": field})


STORE_RETRY_AFTER = 2
"""Seconds a client is told to wait after a store failure (a restarting database is back in a few)."""


def store_failure(err: Exception) -> ProtocolError:
    """A `StoreError` as an answer: 503 with Retry-After, for the database is away or overloaded and a
    retry may well succeed; but 400 when the database refused a value the request carried
    (PostgreSQL's data exceptions, SQLSTATE class 22: a NUL in a string), which no retry changes."""
    state = getattr(err.__cause__, "sqlstate", None)
    if isinstance(state, str) and state.startswith("22"):
        return ProtocolError(400, "INVALID_REQUEST", f"the store refused a value of the request: {err}")
    return ProtocolError(
        503, "INTERNAL_ERROR", f"store unavailable, retry: {err}", {"retryAfter": STORE_RETRY_AFTER}
    )
