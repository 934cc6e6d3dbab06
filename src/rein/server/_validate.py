"""Input validation at the HTTP edge: every field a handler reads is checked here, and a bad one is a
400 naming it (`entries[3].parentId must be a string or null`). Nothing from a request is ever used
as a path: session ids are only keys in the store.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from rein.server._errors import ProtocolError, invalid, missing
from rein.server._json_bounds import json_problem

SESSION_ID = re.compile(r"[A-Za-z0-9._:@-]{1,200}")
SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")
FIRST_MS, LAST_MS = -62_135_596_800_000, 253_402_300_799_999
"""The Unix milliseconds of 0001-01-01 and of 9999-12-31: the dates Python's datetime holds."""
Body = dict[str, object]


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _not_a_double(text: str) -> ProtocolError:
    shown = text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"
    return ProtocolError(400, "INVALID_REQUEST", f"number {shown} is not a finite double", {"number": shown})


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400: JSON has no infinity, and nothing downstream writes one
        raise _not_a_double(text)
    return value


def _int(text: str) -> int:
    # kept exact, as Python parses it; one past any double (310+ digits) is refused like 1e400
    if len(text) > 309 and not math.isfinite(float(text)):
        raise _not_a_double(text)
    return int(text)


def parse_body(raw: bytes) -> Body:
    """The request body as a JSON object, keys in the order sent (the tree hashes depend on it).
    Refused before parsing when too deep (`_json_bounds`); numbers must be finite doubles."""
    problem = json_problem(raw)
    if problem is not None:
        raise ProtocolError(400, "INVALID_REQUEST", problem)
    try:
        value = json.loads(
            raw.decode("utf-8"), parse_constant=_no_constant, parse_float=_float, parse_int=_int
        )
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ProtocolError(400, "INVALID_REQUEST", "body is not valid JSON") from None
    if not isinstance(value, dict):
        raise ProtocolError(400, "INVALID_REQUEST", "body must be a JSON object")
    return value


def session_id(value: object, field: str = "sessionId") -> str:
    if value is None or value == "":
        raise missing(field)
    if not isinstance(value, str):
        raise invalid(field, "must be a string")
    if not SESSION_ID.fullmatch(value):
        raise invalid(field, "must be 1-200 characters of A-Z a-z 0-9 . _ : @ -")
    return value


def optional_string(body: Mapping[str, object], field: str) -> str | None:
    value = body.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid(field, "must be a string or null")
    return value


def static_context(body: Mapping[str, object], field: str = "staticContext") -> dict[str, object] | None:
    """`{systemPrompt?: string, tools?: [{name, description?, parameters?}]}`, or None if absent."""
    value = body.get(field)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise invalid(field, "must be an object")
    prompt = value.get("systemPrompt")
    if prompt is not None and not isinstance(prompt, str):
        raise invalid(f"{field}.systemPrompt", "must be a string")
    tools = value.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise invalid(f"{field}.tools", "must be an array")
        for i, tool in enumerate(tools):
            if not isinstance(tool, dict):
                raise invalid(f"{field}.tools[{i}]", "must be an object")
            if not isinstance(tool.get("name"), str):
                raise invalid(f"{field}.tools[{i}].name", "must be a string")
    return value


def entries(body: Mapping[str, object], field: str = "entries") -> list[dict[str, object]]:
    """Tree entries: objects with a string `id`, a `parentId` string or null, a string `type`."""
    value = body.get(field)
    if value is None:
        raise missing(field)
    if not isinstance(value, list):
        raise invalid(field, "must be an array")
    for i, entry in enumerate(value):
        where = f"{field}[{i}]"
        if not isinstance(entry, dict):
            raise invalid(where, "must be an object")
        if not isinstance(entry.get("id"), str) or not entry["id"]:
            raise invalid(f"{where}.id", "must be a non-empty string")
        if "parentId" not in entry:
            raise missing(f"{where}.parentId")
        if entry["parentId"] is not None and not isinstance(entry["parentId"], str):
            raise invalid(f"{where}.parentId", "must be a string or null")
        if not isinstance(entry.get("type"), str):
            raise invalid(f"{where}.type", "must be a string")
    return value


def messages(body: Mapping[str, object], field: str = "messages") -> list[dict[str, object]]:
    value = body.get(field)
    if value is None:
        raise missing(field)
    if not isinstance(value, list):
        raise invalid(field, "must be an array")
    for i, message in enumerate(value):
        if not isinstance(message, dict):
            raise invalid(f"{field}[{i}]", "must be an object")
        if not isinstance(message.get("role"), str):
            raise invalid(f"{field}[{i}].role", "must be a string")
        stamp = message.get("timestamp")  # the entry's ISO time is made from it: a date must hold it
        if (
            isinstance(stamp, int | float)
            and not isinstance(stamp, bool)
            and not FIRST_MS <= stamp <= LAST_MS
        ):
            raise invalid(f"{field}[{i}].timestamp", "must be milliseconds within the years 1 to 9999")
    return value


def query_int(params: Mapping[str, str], name: str) -> int | None:
    """A non-negative integer query parameter, or None when absent."""
    text = params.get(name)
    if text is None:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > 15:  # "²".isdigit() is True
        raise invalid(name, "must be a non-negative integer")
    return int(text)


def integer(body: Mapping[str, object], field: str) -> int:
    value = body.get(field)
    if value is None:
        raise missing(field)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise invalid(field, "must be an integer")
    return value


def string(body: Mapping[str, object], field: str) -> str:
    value = body.get(field)
    if value is None or value == "":
        raise missing(field)
    if not isinstance(value, str):
        raise invalid(field, "must be a string")
    return value
