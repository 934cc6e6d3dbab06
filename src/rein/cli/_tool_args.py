"""The arguments of a call of any tool, as `--args JSON` and `--arg key=value` give them (`rein check`,
`rein explain`). Plain Python: `rein check` must start fast."""

from __future__ import annotations

import json
from collections.abc import Sequence


def tool_args(pairs: Sequence[str], args_json: str | None) -> dict[str, object]:
    """`--args` (a JSON object), then each `--arg key=value` over it (a dotted key reaches into an
    object; the value is a string). Raises ValueError naming what is wrong."""
    args: dict[str, object] = {}
    if args_json is not None:
        try:
            value = json.loads(args_json)
        except ValueError as error:
            raise ValueError(f"--args is not valid JSON ({error})") from None
        if not isinstance(value, dict):
            raise ValueError("--args must be a JSON object")
        args = value
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise ValueError(f"--arg takes key=value, not {pair!r}")
        *parents, last = key.split(".")
        place = args
        for name in parents:
            inner = place.setdefault(name, {})
            if not isinstance(inner, dict):
                raise ValueError(f"--arg {key}: {name} is not an object")
            place = inner
        place[last] = value
    return args
