"""The provider registry: one literal table of name to import path, loaded on first use.

Importing `rein.ai` imports no SDK; `get_provider("anthropic")` imports the anthropic module then.
"""

from __future__ import annotations

import importlib
from typing import Final

from rein.ai._messages import Context, Model
from rein.ai._stream import AssistantStream, Provider, StreamOptions, failed_stream
from rein.ai.errors import UnknownProviderError
from rein.ai.providers.local_files import BUNDLED

_PROVIDERS: Final = {
    "anthropic": "rein.ai.providers.anthropic:AnthropicProvider",
    "faux": "rein.ai.providers.faux_script:from_environment",
    "local": "rein.ai.providers.local:LocalProvider",
    "openai": "rein.ai.providers.openai_chat:OpenAIChatProvider",
    "openai-responses": "rein.ai.providers.openai_responses:OpenAIResponsesProvider",
}

_DEFAULT_MODELS: Final = {
    "anthropic": "claude-sonnet-4-5",
    "faux": "faux",
    "local": BUNDLED,
    "openai": "gpt-4.1",
    "openai-responses": "gpt-4.1",
}


def default_model(provider: str) -> str:
    """The provider's default model: what a caller that names only the provider gets ("" for a name
    the registry does not know)."""
    return _DEFAULT_MODELS.get(provider, "")


def provider_names() -> tuple[str, ...]:
    return tuple(sorted(_PROVIDERS))


def get_provider(name: str) -> Provider:
    """A new provider by registry name; `UnknownProviderError` lists the known names."""
    path = _PROVIDERS.get(name)
    if path is None:
        raise UnknownProviderError(name, provider_names())
    module, _, attribute = path.partition(":")
    provider: Provider = getattr(importlib.import_module(module), attribute)()
    return provider


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
    """Stream a reply from `model.provider`. Follows the `Provider` contract: never raises, so an
    unknown provider or one whose SDK cannot be imported is the stream's `error` event."""
    try:
        provider = get_provider(model.provider)
    except (UnknownProviderError, ImportError) as exc:
        return failed_stream(model, f"cannot load provider {model.provider!r}: {exc}")
    return provider.stream(model, context, options)
