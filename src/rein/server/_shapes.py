"""The session server's request and response bodies, declared once. Each request body is a model
(`BODIES`: Init, Update, Messages, Tree, Switch, Compact, Stream, Receive, Chunk) that
`_validate.validated` checks a parsed body against, answering a bad field with a 400 that names it
(`entries[3].parentId must be a string or null`: the words are the fields' `Says`); the OpenAPI
document's `components.schemas` is generated from these models and `RESPONSES`.

The models are strict (a string field refuses 5, an integer refuses true) and ignore fields they do
not name. Entries, messages and contexts are `Checked`: validated against their shape and kept as
sent, key order and extra keys included, for the tree hashes are taken over them. The nested shapes
are TypedDicts: pydantic checks ten thousand of them faster than a Python loop does.

What a shape cannot say stays with its reader: a model's fields (`_models`), pi's messages of a
stream's context (`_wire`), an upload's paths and data (`_receive`, in the fork's order and words),
a chunk's target and checksum (`_chunks`).
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SkipValidation,
    ValidationInfo,
    field_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import WithJsonSchema
from typing_extensions import TypedDict

from rein.protocol import CHUNK_TARGETS
from rein.server._shape_marks import MISSING, Checked, Says

SESSION_ID_PATTERN = r"[A-Za-z0-9._:@-]{1,200}"
FIRST_MS, LAST_MS = -62_135_596_800_000, 253_402_300_799_999
"""The Unix milliseconds of 0001-01-01 and of 9999-12-31: the dates Python's datetime holds."""
MAX_CHUNKS = 1_000_000
"""More chunks than this in one request is refused (the count must fit the store's integers)."""
MAX_REQUEST_ID = 200
Object = dict[str, object]
STRICT = ConfigDict(strict=True)


def _non_empty(value: str) -> str:
    if not value:  # not `min_length`: pydantic's length check refuses a lone surrogate, which JSON may carry
        raise ValueError("empty")
    return value


def _dated(value: object) -> object:
    if isinstance(value, int | float) and not isinstance(value, bool) and not FIRST_MS <= value <= LAST_MS:
        raise ValueError("no date holds it")  # the entry's ISO time is made from it
    return value


def _integral(value: object) -> object:
    """5.0 is 5, as JavaScript has it."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _chunk_target(value: str) -> str:
    if value not in CHUNK_TARGETS:
        raise ValueError("not a target")
    return value


def _short_id(value: str) -> str:
    if len(value) > MAX_REQUEST_ID:
        raise ValueError("too long")
    return value


SessionId = Annotated[
    str,
    Field(pattern=f"^{SESSION_ID_PATTERN}$"),
    Says("must be 1-200 characters of A-Z a-z 0-9 . _ : @ -", blank=True),
]
"""A session's key in the store, never a path."""
OptionalText = Annotated[str | None, Says(wrong="must be a string or null")]
Flag = Annotated[object, WithJsonSchema({"type": "boolean"})]
"""Read as `is True`: any other value is false, as the fork reads it."""
NON_EMPTY = "must be a non-empty string"
NON_NEGATIVE = "must be a non-negative integer"
Tokens = Annotated[int, Field(ge=0), BeforeValidator(_integral), Says(NON_NEGATIVE, NON_NEGATIVE)]


class Tool(TypedDict):
    """A tool the model may call; its `description` and `parameters` are kept as sent."""

    __pydantic_config__ = STRICT  # type: ignore[misc]
    name: Annotated[str, Says(absent="invalid", wrong="must be a string")]


class StaticContext(TypedDict, total=False):
    """The session's system prompt and tools: `staticContextHash` is taken over it as sent."""

    __pydantic_config__ = STRICT  # type: ignore[misc]
    systemPrompt: str | None
    tools: list[Tool] | None


class Entry(TypedDict):
    """A tree entry (pi's session entry); its other fields are kept as sent."""

    __pydantic_config__ = ConfigDict(strict=True, json_schema_extra={"additionalProperties": True})  # type: ignore[misc]
    id: Annotated[
        str,
        AfterValidator(_non_empty),
        Field(json_schema_extra={"minLength": 1}),
        Says(NON_EMPTY, NON_EMPTY, absent="invalid"),
    ]
    parentId: Annotated[str | None, Says(wrong="must be a string or null")]
    type: Annotated[str, Says(absent="invalid", wrong="must be a string")]


class Message(TypedDict):
    """A message (pi's); its other fields are kept as sent."""

    __pydantic_config__ = ConfigDict(strict=True, json_schema_extra={"additionalProperties": True})  # type: ignore[misc]
    role: Annotated[str, Says(absent="invalid", wrong="must be a string")]
    timestamp: NotRequired[
        Annotated[
            object,
            AfterValidator(_dated),
            Field(json_schema_extra={"minimum": FIRST_MS, "maximum": LAST_MS}),  # numbers only
            Says("must be milliseconds within the years 1 to 9999"),
        ]
    ]


class Preparation(TypedDict, total=False):
    """pi's `CompactionPreparationOptions`."""

    __pydantic_config__ = STRICT  # type: ignore[misc]
    firstKeptEntryId: str | None


class CompactSettings(TypedDict, total=False):
    """pi's compaction settings (`enabled` is read by pi's client only)."""

    __pydantic_config__ = STRICT  # type: ignore[misc]
    reserveTokens: Tokens | None
    keepRecentTokens: Tokens | None


Context = Annotated[Object | None, Checked(StaticContext | None)]
AnyObject = Annotated[Object | None, Checked(Object | None)]
PiMessages = Annotated[list[object] | None, Checked(list[SkipValidation[Message]] | None)]
"""A stream's context: an array here, each message read by `_wire.wire_message` (pi's or rein's)."""


class Shape(BaseModel):
    """A request body: strict, camelCase on the wire, fields it does not name ignored."""

    model_config = ConfigDict(strict=True, alias_generator=to_camel, frozen=True)


class Init(Shape):
    """Create a session if missing and set its context; rein's clients send `cwd` (metadata)."""

    session_id: SessionId
    static_context: Context = None
    cwd: OptionalText = None


class Update(Shape):
    session_id: SessionId
    static_context: Annotated[Object, Checked(StaticContext)]


class Messages(Shape):
    """The legacy message routes: the tree becomes, or grows by, these messages."""

    session_id: SessionId
    messages: Annotated[list[Object], Checked(list[Message])]
    static_context: Context = None


class Tree(Shape):
    session_id: SessionId
    entries: Annotated[list[Object], Checked(list[Entry])]
    leaf_id: OptionalText = None
    static_context: Context = None


class Switch(Shape):
    session_id: SessionId
    leaf_id: OptionalText = None


class Compact(Shape):
    """pi's compaction request; `model` and `options` are read by `_models`."""

    session_id: Annotated[
        str,
        AfterValidator(_non_empty),
        Field(json_schema_extra={"minLength": 1}),
        Says(wrong=MISSING, blank=True),
    ]
    """Any string: an unknown one is a 404, as on the fork."""
    custom_instructions: str | None = None
    model: AnyObject = None
    options: AnyObject = None
    preparation: Annotated[Object | None, Checked(Preparation | None)] = None
    settings: Annotated[Object | None, Checked(CompactSettings | None)] = None
    base_tree_hash: Annotated[object, WithJsonSchema({"type": "string"})] = None
    full_response: Flag = None
    stream_response: Flag = None
    rein_summary: Flag = None
    """rein's client: the summary carries rein's state in its text (`_compact`)."""


class Stream(Shape):
    """One model turn (`_stream`): `contextOverlay` is the whole context, else the branch's messages
    and then `ephemeralMessages`."""

    session_id: SessionId
    run_id: SessionId | None = None
    model: AnyObject = None
    options: AnyObject = None
    static_context: Context = None
    context_overlay: PiMessages = None
    ephemeral_messages: PiMessages = None
    cwd: str | None = None
    rein_events: Flag = None


class UploadEntry(TypedDict):
    path: str
    type: Literal["file", "directory"]
    data: NotRequired[Annotated[str, Field(json_schema_extra={"contentEncoding": "base64"})]]


class Receive(Shape):
    """A file or folder (`rein send`); `_receive.parse_upload` checks it in the fork's order and words."""

    name: str
    entries: Annotated[list[UploadEntry], Field(min_length=1)]


class Chunk(Shape):
    """A piece of a large request (`_chunks`)."""

    request_id: Annotated[
        str,
        AfterValidator(_non_empty),
        AfterValidator(_short_id),
        Field(json_schema_extra={"minLength": 1, "maxLength": MAX_REQUEST_ID}),
        Says(f"must be at most {MAX_REQUEST_ID} characters", blank=True),
    ]
    target: Annotated[
        str,
        AfterValidator(_chunk_target),
        Field(json_schema_extra={"enum": sorted(CHUNK_TARGETS)}),
        Says("is not a chunk target: {input}", blank=True),
    ]
    total_chunks: Annotated[
        int,
        Field(gt=0, le=MAX_CHUNKS),
        BeforeValidator(_integral),
        Says(f"must be a positive integer up to {MAX_CHUNKS}"),
    ]
    chunk_index: Annotated[
        int, Field(ge=0), BeforeValidator(_integral), Says("must be an integer within the chunk range")
    ]
    chunk: Annotated[str, Says(absent="invalid", wrong="must be a string")]
    sha256: Annotated[
        str,
        Field(pattern="^[0-9a-fA-F]{64}$"),
        Says("must be a 64-character hex string", "must be a 64-character hex string", absent="invalid"),
    ]

    @field_validator("chunk_index")
    @classmethod
    def _within(cls, index: int, info: ValidationInfo) -> int:
        total = info.data.get("total_chunks")
        if isinstance(total, int) and index >= total:
            raise ValueError("past the last chunk")
        return index


class Answer(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel)


class Summary(Answer):
    """A session's state after a write."""

    session_id: str
    static_context_hash: str
    tree_hash: str
    message_count: int
    entry_count: int
    leaf_id: str | None
    revision: int


class Error(Answer):
    """Every refusal: a one-line message naming the field, the fork's code, and `details`."""

    error: str
    code: str
    details: Object | None = None


class Received(Answer):
    """Where `rein send` saved the upload, and how many files it holds."""

    path: str
    files: int


BODIES: dict[str, type[Shape]] = {
    shape.__name__: shape for shape in (Init, Update, Messages, Tree, Switch, Compact, Stream, Receive, Chunk)
}
"""Every request body by name: the name an `Operation` gives, and its OpenAPI schema's."""
RESPONSES: tuple[type[Answer], ...] = (Summary, Error, Received)
