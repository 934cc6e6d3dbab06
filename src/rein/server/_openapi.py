"""The OpenAPI 3.1 document at `/openapi.json`, built from the app's one route table (`Operation`
rows), so a route cannot exist without being described; its schemas are generated from the request
and response models of `_shapes`, the ones the server validates with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from pydantic.json_schema import GenerateJsonSchema, models_json_schema

from rein import __version__
from rein.server._shapes import BODIES, RESPONSES

Schema = dict[str, object]


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


class _Untitled(GenerateJsonSchema):
    """Schemas without pydantic's field titles ("Sessionid"): the names are the properties'."""

    def field_title_should_be_set(self, schema: object) -> bool:
        return False


@cache
def schemas() -> dict[str, Schema]:
    """`components.schemas`: the request bodies (`_shapes.BODIES`, by name), the answers and every
    shape they name, generated from the models."""
    models = [*BODIES.values(), *RESPONSES]
    _, top = models_json_schema(
        [(model, "validation") for model in models],
        ref_template="#/components/schemas/{model}",
        schema_generator=_Untitled,
    )
    defs: dict[str, Schema] = top["$defs"]
    return defs


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
    (a model's name in `_shapes.BODIES`, or None) and what a success answers (a schema, JSON or SSE)."""

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
            "schemas": schemas(),
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
