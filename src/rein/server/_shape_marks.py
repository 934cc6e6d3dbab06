"""The marks the request shapes (`_shapes`) carry: how a refused field is worded (`Says`), and a field
checked against a shape but kept as sent (`Checked`). `_validate.validated` reads them to turn
pydantic's errors into the fork's 400s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema, core_schema

MISSING = "is required"
"""As `Says.wrong`: a value of another type reads as an absent field (REQUIRED_FIELD_MISSING)."""


@dataclass(frozen=True, slots=True)
class Says:
    """The words after a refused field's path: `problem` for a value that breaks a constraint, `wrong`
    for a value of another type (empty: from the type, `must be a string`). An absent or null field
    is REQUIRED_FIELD_MISSING, unless `absent` is "invalid" (then it gets `wrong`); `blank` makes ""
    absent too."""

    problem: str = ""
    wrong: str = ""
    absent: Literal["missing", "invalid"] = "missing"
    blank: bool = False


@dataclass(frozen=True, slots=True)
class Checked:
    """`Annotated[dict[str, object], Checked(Shape)]`: validated as `Shape` (and so described in the
    OpenAPI document), kept as sent. Entries, messages and contexts are hashed over their keys in the
    order sent, extra keys included: the shape only checks them."""

    shape: object

    def __get_pydantic_core_schema__(self, source: object, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_wrap_validator_function(_as_sent, handler.generate_schema(self.shape))


def _as_sent(value: object, validate: Callable[[object], object]) -> object:
    validate(value)
    return value
