"""Which model a server-side call uses, and with what options: pi's `model` and `options` objects
from a request, under the server's policy.

The model is the one the client names (`model.id`), as the fork serves it; without one, the server's
`--model`, else its provider's default (never the provider's name). `--models` or `[server] models`
(globs, `gpt-4.1*`) restrict what a client may name: another id is a 400 that lists them. The
provider and its address are always the server's: a client never points the server's key at an
address of its choosing (`model.baseUrl` is not followed).

Options map onto `StreamOptions` as pi's `streamSimple` reads them: `maxTokens`, else the model's
`maxTokens` (the fork sends the model's limit when the client gives none); `temperature`;
`reasoning` (pi's thinking level: "xhigh" and "max" are rein's "high"; none when the client's model
says it cannot reason); `apiKey` only with `--allow-client-keys`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Final, Literal

from rein.ai import (
    Context,
    JsonValue,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    default_model,
)
from rein.server._config import ServerConfig
from rein.server._errors import ProtocolError, invalid

Reasoning = Literal["minimal", "low", "medium", "high"]
_REASONING: Final[Mapping[str, Reasoning]] = {
    "minimal": "minimal", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high",
}  # fmt: skip
"""pi's thinking levels (`ThinkingLevel` in pi-ai's types) as rein's; "off" and unknown ones: none."""


@dataclass(frozen=True, slots=True)
class Label:
    """What a reply says of the client's model, as pi-ai writes it: its `provider` and `api` (pi's
    client compares them to decide what of a reply it may send back, thinking signatures) and the
    `usage.cost` its `cost` rates give (pi-ai's `calculateCost`)."""

    provider: str
    api: str
    rates: Mapping[str, object]


def client_label(raw: object) -> Label | None:
    if not isinstance(raw, dict):
        return None
    provider, api, rates = raw.get("provider"), raw.get("api"), raw.get("cost")
    if not isinstance(provider, str) or not isinstance(api, str):
        return None
    return Label(provider, api, rates if isinstance(rates, dict) else {})


def labelled(value: dict[str, JsonValue], label: Label | None) -> dict[str, JsonValue]:
    """A pi message, or an event carrying one (`message`) or its `usage`, labelled for the client."""
    if label is None:
        return value
    out = dict(value)
    if value.get("role") == "assistant":
        out.update(provider=label.provider, api=label.api)
    message, usage = value.get("message"), value.get("usage")
    if isinstance(message, dict):
        out["message"] = labelled(message, label)
    if isinstance(usage, dict) and label.rates:
        out["usage"] = {**usage, "cost": _cost(usage, label.rates)}
    return out


def _cost(usage: Mapping[str, JsonValue], rates: Mapping[str, object]) -> dict[str, JsonValue]:
    """pi-ai's `calculateCost`, in its order of operations (so the floats are JavaScript's)."""
    tokens = {key: _number(usage.get(key)) for key in ("input", "output", "cacheRead", "cacheWrite")}
    prompt = tokens["input"] + tokens["cacheRead"] + tokens["cacheWrite"]
    chosen, threshold = rates, -1.0
    tiers = rates.get("tiers")
    for tier in tiers if isinstance(tiers, list) else []:
        above = _number(tier.get("inputTokensAbove")) if isinstance(tier, dict) else -1.0
        if isinstance(tier, dict) and prompt > above > threshold:
            chosen, threshold = tier, above
    cost: dict[str, JsonValue] = {
        "input": (_number(chosen.get("input")) / 1000000) * tokens["input"],
        "output": (_number(chosen.get("output")) / 1000000) * tokens["output"],
        "cacheRead": (_number(chosen.get("cacheRead")) / 1000000) * tokens["cacheRead"],
        "cacheWrite": (_number(chosen.get("cacheWrite")) * tokens["cacheWrite"]) / 1000000,
    }
    cost["total"] = sum(_number(cost[key]) for key in ("input", "output", "cacheRead", "cacheWrite"))
    return cost


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def default_model_id(config: ServerConfig) -> str:
    return config.model or default_model(config.provider) or config.provider


def resolve_model(raw: object, config: ServerConfig) -> Model:
    """The model of a request whose `model` field is `raw` (pi's Model object, or None)."""
    if raw is None:
        return _model(default_model_id(config), {}, config)
    if not isinstance(raw, dict):
        raise invalid("model", "must be an object")
    wanted = raw.get("id")
    if wanted is None:
        return _model(default_model_id(config), raw, config)
    if not isinstance(wanted, str) or not wanted:
        raise invalid("model.id", "must be a non-empty string")
    if config.models and not any(fnmatchcase(wanted, pattern) for pattern in config.models):
        raise ProtocolError(
            400,
            "INVALID_REQUEST",  # the fork's codes have none for this; the client shows the message
            f"model {wanted[:80]!r} is not served here; allowed: {', '.join(config.models)}",
        )
    return _model(wanted, raw, config)


def _model(model_id: str, raw: Mapping[str, object], config: ServerConfig) -> Model:
    return Model(
        provider=config.provider,
        id=model_id,
        base_url=config.base_url,
        context_window=_count(raw.get("contextWindow")),
        max_output_tokens=_count(raw.get("maxTokens")),
    )


def stream_options(raw: object, model_raw: object, config: ServerConfig) -> StreamOptions:
    """The options of a request whose `options` field is `raw` and `model` field `model_raw`. A value
    of the wrong type is a 400 naming the field; a missing one leaves the provider's default."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise invalid("options", "must be an object")
    max_tokens = raw.get("maxTokens")
    if max_tokens is not None and _count(max_tokens) is None:
        raise invalid("options.maxTokens", "must be a positive integer")
    temperature = raw.get("temperature")
    if temperature is not None and (
        not isinstance(temperature, int | float) or isinstance(temperature, bool)
    ):
        raise invalid("options.temperature", "must be a number")
    level = raw.get("reasoning")
    if level is not None and not isinstance(level, str):
        raise invalid("options.reasoning", "must be a thinking level")
    can_reason = not (isinstance(model_raw, dict) and model_raw.get("reasoning") is False)
    key = raw.get("apiKey")
    client_key = key if config.allow_client_keys and isinstance(key, str) and key else None
    return StreamOptions(
        api_key=client_key or config.api_key,
        max_tokens=_count(max_tokens),
        temperature=None if temperature is None else float(temperature),
        reasoning=_REASONING.get(level) if level is not None and can_reason else None,
    )


CONTEXT_SAFETY_TOKENS: Final = 4096
"""pi-ai's margin (`clampMaxTokensToContext`): the reply limit leaves this much of the window free."""


def clamp_to_window(options: StreamOptions, model: Model, context: Context) -> StreamOptions:
    """The reply limit as pi's `streamSimple` sends it: at most the window less the context (about
    four characters a token) and the margin, at least 1."""
    limit = options.max_tokens or model.max_output_tokens
    if not limit or not model.context_window:
        return options
    chars = len(context.system_prompt or "") + sum(
        len(tool.name) + len(tool.description) + len(json.dumps(tool.parameters)) for tool in context.tools
    )
    for message in context.messages:
        for block in message.content:
            match block:
                case TextContent():
                    chars += len(block.text)
                case ThinkingContent():
                    chars += len(block.thinking)
                case ToolCall():
                    chars += len(block.name) + len(json.dumps(block.arguments))
                case _:
                    chars += 4800  # an image, as pi counts one
    available = model.context_window - -(-chars // 4) - CONTEXT_SAFETY_TOKENS
    return dataclasses.replace(options, max_tokens=min(limit, max(1, available)))


def _count(value: object) -> int | None:
    """A positive integer (JSON's `777` or `777.0`), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value) if value > 0 else None
