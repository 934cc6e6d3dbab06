"""Input validation at the HTTP edge: every field a handler reads is checked here, and a bad one is a
400 naming it (`entries[3].parentId must be a string or null`). Nothing from a request is ever used
as a path: session ids are only keys in the store.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from rein.server._errors import ProtocolError, invalid, missing

SESSION_ID = re.compile(r"[A-Za-z0-9._:@-]{1,200}")
SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")
Body = dict[str, object]


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def parse_body(raw: bytes) -> Body:
    """The request body as a JSON object, keys in the order sent (the tree hashes depend on it)."""
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
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
    return value


def query_int(params: Mapping[str, str], name: str) -> int | None:
    """A non-negative integer query parameter, or None when absent."""
    text = params.get(name)
    if text is None:
        return None
    if not text.isdigit() or len(text) > 15:
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
