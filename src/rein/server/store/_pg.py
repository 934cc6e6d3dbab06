"""What both halves of the PostgreSQL backend share: the driver's errors and every statement of
`_sql`, numbered for PostgreSQL once."""

from __future__ import annotations

from typing import Any

import asyncpg  # type: ignore[import-untyped]

from rein.server.store import _sql as sql

Connection = Any
"""asyncpg ships no type information; its connection is the one untyped boundary here."""
DRIVER_ERRORS = (
    OSError,
    TimeoutError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,  # e.g. a connection the server killed, caught mid-operation
)
Q = {name: sql.numbered(text) for name, text in vars(sql).items() if name.isupper() and isinstance(text, str)}
"""Every statement of `_sql`, numbered for PostgreSQL once."""
