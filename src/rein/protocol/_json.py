"""JavaScript's `JSON.stringify` in Python: the one encoding every hash of the wire protocol is taken
over, since a client and a server that disagree on one byte of it disagree on every tree hash (so both
sides encode with `js_json`, never with `json.dumps` defaults)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Final


def js_json(value: object) -> str:
    """`value` as JavaScript's `JSON.stringify` writes it: no spaces, non-ASCII kept, integral floats
    without `.0`, exponents as `1e-7` and `1e+21`. Raises ValueError for NaN or infinity (JSON has none;
    JavaScript would write `null`, which no hash should silently depend on). A lone UTF-16 surrogate
    (half of an emoji cut by the client) is written `\\ud83d`, as `JSON.stringify` writes it, so the
    text always encodes as UTF-8."""
    try:
        text = _C_ENCODER.encode(value)
    except (TypeError, ValueError):
        text = None  # a Mapping that is not a dict, or NaN: the exact encoder decides
    if text is None or any(pattern.search(text) for pattern in _JS_DIFFERS):
        parts: list[str] = []
        _encode(value, parts)
        text = "".join(parts)
    return js_surrogates(text)


def js_surrogates(text: str) -> str:
    """`text` (JSON) with each lone surrogate escaped as `JSON.stringify` escapes it; the usual text,
    which has none, costs an ASCII check or a UTF-8 encode (a regex scan costs five times that)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _escape_surrogates(text)
    return text


def _escape_surrogates(text: str) -> str:
    """Two halves that meet make one character again (JavaScript sees a pair); a lone one is escaped."""
    paired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return _SURROGATE.sub(lambda half: f"\\u{ord(half.group()):04x}", paired)


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


_C_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_JS_DIFFERS: Final = (
    re.compile(r"\.0(?=[,\]}]|$)"),
    re.compile(r"e[-+]\d+(?=[,\]}]|$)"),
    re.compile(r'"(?:0|[1-9]\d*)":'),
)
"""Where the C encoder's text may differ from JavaScript's: an integral float (`3.0`), an exponent
(`1e-05`), an array-index key (JavaScript puts those first). A match inside a string only costs the
exact encoder. Three patterns, not one alternation: each keeps `re`'s fast literal-prefix scan."""


def _encode(value: object, out: list[str]) -> None:
    """The exact encoder, into `out`: linear in the size at any depth (no generator chain)."""
    if isinstance(value, Mapping):
        out.append("{")
        for i, (key, item) in enumerate(_js_order(value)):
            out.append(("," if i else "") + json.dumps(key, ensure_ascii=False) + ":")
            _encode(item, out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _encode(item, out)
        out.append("]")
    elif isinstance(value, float) and not isinstance(value, bool):
        out.append(_number(value))
    else:
        out.append(json.dumps(value, ensure_ascii=False))


def _js_order(value: Mapping[object, object]) -> list[tuple[str, object]]:
    """An object's properties in JavaScript's own order: array-index keys ("0" up to 2**32 - 2,
    written canonically) in ascending numeric order first, then the others as inserted."""
    items = [(str(key), item) for key, item in value.items()]
    index = [pair for pair in items if _is_index(pair[0])]
    rest = [pair for pair in items if not _is_index(pair[0])]
    return sorted(index, key=lambda pair: int(pair[0])) + rest


def _is_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and str(int(key)) == key and int(key) <= 2**32 - 2


def _number(value: float) -> str:
    """ECMAScript's Number::toString: the shortest round-trip digits (Python's `repr` has the same
    digits), laid out by JavaScript's rules rather than Python's."""
    if not math.isfinite(value):
        raise ValueError(f"{value!r} is not a JSON number")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exp = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    written = whole + frac
    significant = written.lstrip("0")
    digits = significant.rstrip("0")
    # the decimal point sits after `n` of `digits`: value == 0.digits * 10**n
    n = len(whole) + int(exp or 0) - (len(written) - len(significant))
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    exponent = n - 1
    shown = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{shown}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
