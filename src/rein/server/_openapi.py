"""The OpenAPI 3.1 document at `/openapi.json`, built from the app's one route table (`Operation`
rows), so a route cannot exist without being described.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rein import __version__

Schema = dict[str, object]


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


NULLABLE_STRING: Schema = {"type": ["string", "null"]}
SCHEMAS: dict[str, Schema] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {"type": "string"},
            "code": {"type": "string"},
            "details": {"type": "object"},
        },
    },
    "StaticContext": {
        "type": "object",
        "properties": {
            "systemPrompt": {"type": "string"},
            "tools": {"type": "array", "items": {"type": "object", "required": ["name"]}},
        },
    },
    "Entry": {
        "type": "object",
        "required": ["id", "parentId", "type"],
        "properties": {"id": {"type": "string"}, "parentId": NULLABLE_STRING, "type": {"type": "string"}},
        "additionalProperties": True,
    },
    "Message": {"type": "object", "required": ["role"], "additionalProperties": True},
    "Summary": {
        "type": "object",
        "properties": {
            "sessionId": {"type": "string"},
            "staticContextHash": {"type": "string"},
            "treeHash": {"type": "string"},
            "messageCount": {"type": "integer"},
            "entryCount": {"type": "integer"},
            "leafId": NULLABLE_STRING,
            "revision": {"type": "integer"},
        },
    },
    "SessionId": {"type": "string", "pattern": "^[A-Za-z0-9._:@-]{1,200}$"},
    "Received": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "files": {"type": "integer"}},
    },
}


def _body(*required: str, **properties: Schema) -> Schema:
    return {"type": "object", "required": list(required), "properties": properties}


SESSION = ref("SessionId")
BODIES: dict[str, Schema] = {
    "Init": _body(
        "sessionId", sessionId=SESSION, staticContext=ref("StaticContext"), cwd={"type": "string"},
    ),
    "Update": _body("sessionId", "staticContext", sessionId=SESSION, staticContext=ref("StaticContext")),
    "Messages": _body(
        "sessionId", "messages", sessionId=SESSION, messages={"type": "array", "items": ref("Message")},
        staticContext=ref("StaticContext"),
    ),
    "Tree": _body(
        "sessionId", "entries", sessionId=SESSION, entries={"type": "array", "items": ref("Entry")},
        leafId=NULLABLE_STRING, staticContext=ref("StaticContext"),
    ),
    "Switch": _body("sessionId", sessionId=SESSION, leafId=NULLABLE_STRING),
    "Compact": _body(
        "sessionId", "model", sessionId=SESSION, model={"type": "object"}, options={"type": "object"},
        settings={"type": "object"}, customInstructions={"type": "string"}, baseTreeHash={"type": "string"},
        fullResponse={"type": "boolean"}, streamResponse={"type": "boolean"},
    ),
    "Stream": _body(
        "sessionId", "model", sessionId=SESSION, runId={"type": "string"}, model={"type": "object"},
        options={"type": "object"}, staticContext=ref("StaticContext"),
        ephemeralMessages={"type": "array", "items": ref("Message")},
        contextOverlay={"type": "array", "items": ref("Message")}, reinEvents={"type": "boolean"},
        cwd={"type": "string"},
    ),
    "Receive": _body(
        "name", "entries", name={"type": "string"}, entries={"type": "array", "minItems": 1, "items": _body(
            "path", "type", path={"type": "string"}, type={"enum": ["file", "directory"]},
            data={"type": "string", "contentEncoding": "base64"},
        )},
    ),
    "Chunk": _body(
        "requestId", "target", "chunkIndex", "totalChunks", "sha256", "chunk", requestId={"type": "string"},
        target={"type": "string"}, chunkIndex={"type": "integer", "minimum": 0},
        totalChunks={"type": "integer", "minimum": 1}, sha256={"type": "string", "pattern": "^[0-9a-f]{64}$"},
        chunk={"type": "string", "contentEncoding": "base64"},
    ),
}  # fmt: skip


ERRORS = (
    ("400", "Invalid request"),
    ("401", "Unauthorized"),
    ("413", "Request too large"),
    ("429", "Rate limited"),
    ("500", "Internal error"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Operation:
    """One route: method, path (Starlette's `{name}` parameters), what it does, its request body
    schema (a key of BODIES, or None) and what a success answers (a schema, JSON or SSE)."""

    method: str
    path: str
    summary: str
    body: str | None = None
    answer: Schema = field(default_factory=lambda: ref("Summary"))
    query: Sequence[str] = ()
    stream: bool = False
    public: bool = False
    media: str = "application/json"
    """The content type of a success (`/metrics` answers Prometheus's text format)."""


def document(operations: Sequence[Operation]) -> dict[str, object]:
    paths: dict[str, dict[str, object]] = {}
    for op in operations:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op)
    return {
        "openapi": "3.1.0",
        "info": {"title": "rein serve", "version": __version__, "description": "The rein session server."},
        "paths": paths,
        "components": {
            "schemas": {**SCHEMAS, **BODIES},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }


def _operation(op: Operation) -> dict[str, object]:
    content: Mapping[str, object] = {op.media: {"schema": op.answer}}
    if op.stream:
        content = {**content, "text/event-stream": {"schema": {"type": "string"}}}
    error = {"content": {"application/json": {"schema": ref("Error")}}}
    responses: dict[str, object] = {"200": {"description": "OK", "content": content}}
    if not op.public:
        for status, text in ERRORS:
            responses[status] = {"description": text, **error}
    parameters: list[object] = [
        {"name": name.strip("{}"), "in": "path", "required": True, "schema": {"type": "string"}}
        for name in op.path.split("/")
        if name.startswith("{")
    ]
    parameters += [
        {"name": name, "in": "query", "required": False, "schema": {"type": "string"}} for name in op.query
    ]
    operation: dict[str, object] = {
        "summary": op.summary,
        "operationId": (op.method.lower() + op.path.replace("/", "_").replace("{", "").replace("}", "")),
        "responses": responses,
    }
    if parameters:
        operation["parameters"] = parameters
    if op.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": ref(op.body)}},
        }
    if op.public:
        operation["security"] = []
    return operation
