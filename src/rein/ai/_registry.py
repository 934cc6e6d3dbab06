"""The provider registry: one literal table of name to import path, loaded on first use, and the
providers installed packages add through the `rein.providers` entry point group.

Importing `rein.ai` imports no SDK; `get_provider("anthropic")` imports the anthropic module then.
Installed packages are read only for a name the table does not have, or when every name is listed,
so a built-in provider never pays for the scan (and a package cannot replace a built-in name).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final

from rein.ai._messages import Context, Model
from rein.ai._stream import AssistantStream, Provider, StreamOptions, failed_stream
from rein.ai.errors import ProviderLoadError, UnknownProviderError
from rein.ai.providers.local_files import BUNDLED

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

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

ENTRY_POINTS: Final = "rein.providers"
"""The entry point group of installed providers: `name = "pkg.module:factory"`, where `factory()`
returns a `Provider` and its optional `default_model` attribute names the default model."""


@functools.cache
def _installed() -> Mapping[str, EntryPoint]:
    """The installed packages' providers by name, built-in names left out; the first package wins."""
    import importlib.metadata  # lazy: 35 ms, paid only by a name the table does not have

    found: dict[str, EntryPoint] = {}
    for point in importlib.metadata.entry_points(group=ENTRY_POINTS):
        if point.name not in _PROVIDERS:
            found.setdefault(point.name, point)
    return found


def _where(point: EntryPoint) -> str:
    package = f" in {point.dist.name}" if point.dist is not None else ""
    return f"{point.name} = {point.value}{package}"


def _factory(name: str) -> Callable[[], Provider] | None:
    """The installed factory of `name` (None: no package adds it). Raises ProviderLoadError."""
    point = _installed().get(name)
    if point is None:
        return None
    try:
        factory: Callable[[], Provider] = point.load()  # what a package declares is its word
    except Exception as error:
        raise ProviderLoadError(name, _where(point), _problem(error)) from error
    if not callable(factory):
        raise ProviderLoadError(name, _where(point), f"{point.value} is not callable")
    return factory


def _problem(error: Exception) -> str:
    return str(error) or type(error).__name__


def default_model(provider: str) -> str:
    """The provider's default model: what a caller that names only the provider gets ("" for a name
    the registry does not know, or an installed provider whose factory names none)."""
    if provider in _DEFAULT_MODELS or provider in _PROVIDERS:
        return _DEFAULT_MODELS.get(provider, "")
    try:
        factory = _factory(provider)
    except ProviderLoadError:
        return ""  # get_provider says why; asking for a default is no place to fail
    model = getattr(factory, "default_model", "")
    return model if isinstance(model, str) else ""


def provider_names() -> tuple[str, ...]:
    """Every provider name: the built-in ones, then those installed packages add, each sorted."""
    return (*sorted(_PROVIDERS), *sorted(_installed()))


def get_provider(name: str) -> Provider:
    """A new provider by registry name; `UnknownProviderError` lists the known names, and
    `ProviderLoadError` names the entry point of an installed provider that does not load."""
    path = _PROVIDERS.get(name)
    if path is None:
        factory = _factory(name)
        if factory is None:
            raise UnknownProviderError(name, provider_names())
        try:
            return factory()
        except Exception as error:
            raise ProviderLoadError(name, _where(_installed()[name]), _problem(error)) from error
    module, _, attribute = path.partition(":")
    provider: Provider = getattr(importlib.import_module(module), attribute)()
    return provider


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
    """Stream a reply from `model.provider`. Follows the `Provider` contract: never raises, so an
    unknown provider or one whose SDK cannot be imported is the stream's `error` event."""
    try:
        provider = get_provider(model.provider)
    except (UnknownProviderError, ImportError) as error:
        return failed_stream(model, f"cannot load provider {model.provider!r}: {error}")
    return provider.stream(model, context, options)
