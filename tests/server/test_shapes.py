"""The request and response shapes declared once (`rein.server._shapes`): the validation that names
the bad field, bodies kept as sent, and the OpenAPI document generated from the same models, checked
against what the server accepts and refuses."""

from __future__ import annotations

from typing import Any

import jsonschema  # type: ignore[import-untyped]  # in the lock by mcp and google-adk
import pytest

from rein.server._app import OPERATIONS
from rein.server._errors import ProtocolError
from rein.server._openapi import document
from rein.server._shapes import BODIES, RESPONSES, Chunk, Compact, Messages, Shape, Stream, Tree
from rein.server._validate import Body, validated

SHA = "0" * 64
ENTRY: Body = {"type": "message", "id": "a", "parentId": None, "message": {"role": "user"}}
GOOD: list[tuple[str, Body]] = [
    ("Init", {"sessionId": "s", "staticContext": {"systemPrompt": "p", "tools": [{"name": "bash"}]}}),
    ("Init", {"sessionId": "s", "cwd": None}),
    ("Update", {"sessionId": "s", "staticContext": {}}),
    ("Messages", {"sessionId": "s", "messages": [{"role": "user", "timestamp": 0, "content": "x"}]}),
    ("Tree", {"sessionId": "s", "entries": [ENTRY], "leafId": "a"}),
    ("Switch", {"sessionId": "s", "leafId": None}),
    ("Compact", {"sessionId": "s", "settings": {"reserveTokens": 5}, "preparation": {}}),
    ("Stream", {"sessionId": "s", "runId": "r1", "contextOverlay": [{"role": "user"}], "cwd": "/w"}),
    (
        "Chunk",
        {
            "requestId": "r",
            "target": "/api/stream",
            "chunkIndex": 0,
            "totalChunks": 1,
            "sha256": SHA,
            "chunk": "",
        },
    ),
]
BAD: list[tuple[str, Body, str, str]] = [
    ("Init", {}, "REQUIRED_FIELD_MISSING", "sessionId is required"),
    ("Init", {"sessionId": ""}, "REQUIRED_FIELD_MISSING", "sessionId is required"),
    ("Init", {"sessionId": 5}, "INVALID_REQUEST", "sessionId must be a string"),
    (
        "Init",
        {"sessionId": "a/b"},
        "INVALID_REQUEST",
        "sessionId must be 1-200 characters of A-Z a-z 0-9 . _ : @ -",
    ),
    ("Init", {"sessionId": "s", "cwd": 5}, "INVALID_REQUEST", "cwd must be a string or null"),
    ("Init", {"sessionId": "s", "staticContext": []}, "INVALID_REQUEST", "staticContext must be an object"),
    (
        "Init",
        {"sessionId": "s", "staticContext": {"tools": [{"name": "a"}, 3]}},
        "INVALID_REQUEST",
        "staticContext.tools[1] must be an object",
    ),
    ("Update", {"sessionId": "s"}, "REQUIRED_FIELD_MISSING", "staticContext is required"),
    (
        "Update",
        {"sessionId": "s", "staticContext": None},
        "REQUIRED_FIELD_MISSING",
        "staticContext is required",
    ),
    ("Tree", {"sessionId": "s"}, "REQUIRED_FIELD_MISSING", "entries is required"),
    ("Tree", {"sessionId": "s", "entries": [ENTRY, 5]}, "INVALID_REQUEST", "entries[1] must be an object"),
    (
        "Tree",
        {"sessionId": "s", "entries": [ENTRY, {**ENTRY, "id": ""}]},
        "INVALID_REQUEST",
        "entries[1].id must be a non-empty string",
    ),
    (
        "Tree",
        {"sessionId": "s", "entries": [{"id": "a", "parentId": None}]},
        "INVALID_REQUEST",
        "entries[0].type must be a string",
    ),
    (
        "Tree",
        {"sessionId": "s", "entries": [{"id": "a", "type": "m"}]},
        "REQUIRED_FIELD_MISSING",
        "entries[0].parentId is required",
    ),
    ("Switch", {"sessionId": "s", "leafId": True}, "INVALID_REQUEST", "leafId must be a string or null"),
    (
        "Messages",
        {"sessionId": "s", "messages": [{"role": "user", "timestamp": 1e300}]},
        "INVALID_REQUEST",
        "messages[0].timestamp must be milliseconds within the years 1 to 9999",
    ),
    (
        "Messages",
        {"sessionId": "s", "messages": [{}]},
        "INVALID_REQUEST",
        "messages[0].role must be a string",
    ),
    ("Compact", {"sessionId": 7}, "REQUIRED_FIELD_MISSING", "sessionId is required"),
    ("Compact", {"sessionId": ""}, "REQUIRED_FIELD_MISSING", "sessionId is required"),
    (
        "Compact",
        {"sessionId": "s", "settings": {"keepRecentTokens": True}},
        "INVALID_REQUEST",
        "settings.keepRecentTokens must be a non-negative integer",
    ),
    ("Stream", {"sessionId": "s", "runId": ""}, "REQUIRED_FIELD_MISSING", "runId is required"),
    (
        "Stream",
        {"sessionId": "s", "contextOverlay": {}},
        "INVALID_REQUEST",
        "contextOverlay must be an array",
    ),
    ("Stream", {"sessionId": "s", "cwd": ["/"]}, "INVALID_REQUEST", "cwd must be a string"),
]
CHUNK: Body = dict(GOOD[-1][1])
BAD_CHUNKS: list[tuple[Body, str, str]] = [
    ({"requestId": ""}, "REQUIRED_FIELD_MISSING", "requestId is required"),
    ({"requestId": "r" * 201}, "INVALID_REQUEST", "requestId must be at most 200 characters"),
    ({"target": "/etc"}, "INVALID_REQUEST", "target is not a chunk target: /etc"),
    ({"totalChunks": 0}, "INVALID_REQUEST", "totalChunks must be a positive integer up to 1000000"),
    ({"totalChunks": None}, "REQUIRED_FIELD_MISSING", "totalChunks is required"),
    ({"chunkIndex": True}, "INVALID_REQUEST", "chunkIndex must be an integer"),
    ({"chunkIndex": 1}, "INVALID_REQUEST", "chunkIndex must be an integer within the chunk range"),
    ({"chunk": None}, "INVALID_REQUEST", "chunk must be a string"),
    ({"sha256": "abc"}, "INVALID_REQUEST", "sha256 must be a 64-character hex string"),
]
BAD += [("Chunk", {**CHUNK, **change}, code, message) for change, code, message in BAD_CHUNKS]


def refused(name: str, body: Body) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        validated(BODIES[name], body)
    return caught.value


@pytest.mark.parametrize(("name", "body", "code", "message"), BAD)
def test_a_bad_field_is_named_in_the_forks_words(name: str, body: Body, code: str, message: str) -> None:
    error = refused(name, body)
    assert (error.status, error.code, error.message) == (400, code, message)
    assert error.details == {"field": message.split(" ", maxsplit=1)[0]}


def test_the_first_bad_field_is_the_one_named_in_declared_order() -> None:
    entries = [ENTRY, {"id": "b", "parentId": 1, "type": 2}, {"id": ""}]
    assert refused("Tree", {"sessionId": "s", "entries": entries}).message == (
        "entries[1].parentId must be a string or null"
    )
    assert refused("Tree", {"sessionId": 5, "entries": 5}).message == "sessionId must be a string"


def test_the_shapes_are_strict() -> None:
    assert refused("Switch", {"sessionId": "s", "leafId": 5}).code == "INVALID_REQUEST", "5 is no string"
    assert refused("Chunk", {**CHUNK, "totalChunks": True}).message.startswith("totalChunks must be")
    assert refused("Chunk", {**CHUNK, "totalChunks": "1"}).message == "totalChunks must be an integer"
    whole = validated(Chunk, {**CHUNK, "chunkIndex": 0.0, "totalChunks": 2.0})  # JavaScript's 2.0 is 2
    assert (whole.chunk_index, whole.total_chunks) == (0, 2)


def test_entries_messages_and_contexts_are_kept_as_sent() -> None:
    entries: list[Body] = [
        {"type": "m", "zeta": [1.5], "id": "a", "parentId": None, "alpha": {"b": 1, "a": 2}}
    ]
    context: Body = {"tools": [{"parameters": {}, "name": "t", "extra": True}], "systemPrompt": "p"}
    tree = validated(Tree, {"sessionId": "s", "entries": entries, "staticContext": context})
    assert tree.entries is entries and tree.static_context is context
    assert list(tree.entries[0]) == ["type", "zeta", "id", "parentId", "alpha"]
    messages = [{"timestamp": 3, "role": "user", "content": [{"type": "text", "text": "x"}]}]
    assert validated(Messages, {"sessionId": "s", "messages": messages}).messages is messages
    lone = "\ud800"  # JSON may carry a lone surrogate: a key or a type holding one is still a string
    assert validated(Tree, {"sessionId": "s", "entries": [{"id": lone, "parentId": lone, "type": lone}]})


def test_flags_are_read_as_is_true_and_the_rest_is_ignored() -> None:
    compact = validated(Compact, {"sessionId": "any/thing", "fullResponse": "yes", "unknown": 1})
    assert compact.session_id == "any/thing" and compact.full_response == "yes"
    assert validated(Stream, {"sessionId": "s"}).rein_events is None


# the document


def test_every_route_with_a_body_names_a_model_and_the_document_has_them_all() -> None:
    doc: dict[str, Any] = document(OPERATIONS)
    schemas = doc["components"]["schemas"]
    with_body = [op for op in OPERATIONS if op.body is not None]
    assert {op.body for op in with_body} == set(BODIES), "every body model is some route's"
    for op in with_body:
        assert op.body is not None and issubclass(BODIES[op.body], Shape)
        body = doc["paths"][op.path][op.method.lower()]["requestBody"]["content"]["application/json"]
        assert body["schema"] == {"$ref": f"#/components/schemas/{op.body}"}
    assert set(BODIES) | {model.__name__ for model in RESPONSES} <= set(schemas)
    for name, model in BODIES.items():
        required = {field.alias for field in model.model_fields.values() if field.is_required()}
        assert set(schemas[name].get("required", [])) == required, name
        assert set(schemas[name]["properties"]) == {field.alias for field in model.model_fields.values()}


def _schema_check(name: str, body: Body) -> list[str]:
    doc: dict[str, Any] = document(OPERATIONS)
    schema = {**doc["components"]["schemas"][name], "components": doc["components"]}
    validator = jsonschema.Draft202012Validator(schema)
    return [error.message for error in validator.iter_errors(body)]


@pytest.mark.parametrize(("name", "body"), GOOD)
def test_the_document_accepts_what_the_server_accepts(name: str, body: Body) -> None:
    validated(BODIES[name], body)
    assert _schema_check(name, body) == []


@pytest.mark.parametrize(
    ("name", "body", "code", "message"),
    [case for case in BAD if "chunk range" not in case[3]],  # JSON Schema cannot compare two fields
)
def test_the_document_refuses_what_the_server_refuses(name: str, body: Body, code: str, message: str) -> None:
    refused(name, body)
    assert _schema_check(name, body), f"the schema accepts {body}"
