"""Input validation at the HTTP edge: a body is parsed here (`parse_body`) and checked against its
shape (`validated`, the models of `_shapes`); a bad field is a 400 naming it
(`entries[3].parentId must be a string or null`). Nothing from a request is ever used as a path:
session ids are only keys in the store.
"""

from __future__ import annotations

import json
import math
import re
import types
from collections.abc import Mapping
from functools import cache
from typing import Annotated, NotRequired, Required, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails
from typing_extensions import get_type_hints, is_typeddict

from rein.server._errors import ProtocolError, invalid, missing
from rein.server._json_bounds import json_problem
from rein.server._shape_marks import MISSING, Checked, Says
from rein.server._shapes import SESSION_ID_PATTERN

SESSION_ID = re.compile(SESSION_ID_PATTERN)
Body = dict[str, object]
M = TypeVar("M", bound=BaseModel)


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


def validated(shape: type[M], body: Body) -> M:
    """`body` as `shape`, or the 400 of its first bad field (in the order the shape declares them)."""
    try:
        return shape.model_validate(body)
    except ValidationError as error:
        raise refusal(shape, error.errors(include_url=False, include_context=False)[0]) from None


def check_value(shape: object, value: object, *at: str) -> None:
    """Refuse `value`, the field `at` of a body, as `validated` would if it is not a `shape`."""
    try:
        _adapter(shape).validate_python(value)
    except ValidationError as error:
        raise refusal(shape, error.errors(include_url=False, include_context=False)[0], at) from None


@cache
def _adapter(shape: object) -> TypeAdapter[object]:
    return TypeAdapter(shape)  # type: ignore[arg-type]  # a type form: `Shape | None`


TYPE_WORDS = {
    "string_type": "must be a string",
    "list_type": "must be an array",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "int_type": "must be an integer",
    "bool_type": "must be a boolean",
}


def refusal(shape: object, error: ErrorDetails, at: tuple[str, ...] = ()) -> ProtocolError:
    """pydantic's error (in `shape`, found at `at` of the body) as the fork's: `missing(path)` or
    `invalid(path, words)`, the words the field `Says` (else its type's)."""
    loc, kind, value = error["loc"], error["type"], error["input"]
    steps = (*at, *loc)
    path = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in steps).lstrip(".")
    says = _says(shape, loc) or Says()
    named = bool(steps) and isinstance(steps[-1], str)  # a field; an array's item is never absent
    absent = kind == "missing" or (named and value is None) or (says.blank and value == "")
    if absent and says.absent == "missing":
        return missing(path)
    # a wrong type (or none, for `absent="invalid"`), else a value the field refuses: a pattern, a bound
    words = (says.wrong or TYPE_WORDS.get(kind, "")) if absent or kind in TYPE_WORDS else says.problem
    if words == MISSING:
        return missing(path)
    return invalid(path, words.replace("{input}", str(value)) if words else f"is invalid: {error['msg']}")


def _says(shape: object, loc: tuple[int | str, ...]) -> Says | None:
    """The `Says` of the field at `loc` in `shape`, found through models, TypedDicts and arrays."""
    node: object = shape
    for step in loc:
        bare, _ = _bare(node)
        if isinstance(step, int):
            node = get_args(bare)[0] if get_origin(bare) is list else None
        elif isinstance(bare, type) and issubclass(bare, BaseModel):
            found = [f for name, f in bare.model_fields.items() if step in (name, f.alias)]
            node = None if not found else found[0].annotation
            if found and found[0].metadata:
                node = Annotated[(node, *found[0].metadata)]
        elif is_typeddict(bare):
            node = get_type_hints(bare, include_extras=True).get(step)
        else:
            return None
    return _bare(node)[1]


def _bare(node: object) -> tuple[object, Says | None]:
    """`node` without its Annotated, NotRequired, `| None` and `Checked` wrappings, and its first `Says`."""
    says: Says | None = None
    while True:
        origin, args = get_origin(node), get_args(node)
        if origin is Annotated:
            marks = node.__metadata__  # type: ignore[attr-defined]
            says = says or next((m for m in marks if isinstance(m, Says)), None)
            checked = next((m for m in marks if isinstance(m, Checked)), None)
            node = checked.shape if checked is not None else args[0]
        elif origin in (NotRequired, Required):
            node = args[0]
        elif origin in (Union, types.UnionType) and type(None) in args and len(args) == 2:
            node = next(arg for arg in args if arg is not type(None))
        else:
            return node, says


def session_id(value: object, field: str = "sessionId") -> str:
    """A session id of a request's path (a body's is its shape's `SessionId`)."""
    if value is None or value == "":
        raise missing(field)
    if not isinstance(value, str):
        raise invalid(field, "must be a string")
    if not SESSION_ID.fullmatch(value):
        raise invalid(field, "must be 1-200 characters of A-Z a-z 0-9 . _ : @ -")
    return value


def query_int(params: Mapping[str, str], name: str) -> int | None:
    """A non-negative integer query parameter, or None when absent."""
    text = params.get(name)
    if text is None:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > 15:  # "²".isdigit() is True
        raise invalid(name, "must be a non-negative integer")
    return int(text)
