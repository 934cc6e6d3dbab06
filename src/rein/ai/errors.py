"""Errors of the ai package.

    AiError
     ├── UnknownProviderError   a provider name that is not in the registry (lists the known ones)
     ├── ProviderLoadError      an installed package's provider that cannot load (names its entry point)
     ├── MessageFormatError     JSON that is not a rein message (names the field and the fix)
     └── ProviderError          a failure inside a provider, before it becomes an `error` event

Streams never raise: a `ProviderError`, an SDK exception or a broken connection ends the stream with
one `error` event whose message carries rein's own text. The first three are raised to the caller,
because they mean bad input rather than a failed request.
"""

from __future__ import annotations


class AiError(Exception):
    """Base of every error the ai package raises on purpose."""


class UnknownProviderError(AiError, LookupError):
    """A provider name that is not registered."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(f"unknown provider {name!r}; known providers: {', '.join(known)}")
        self.name = name
        self.known = known


class ProviderLoadError(AiError, ImportError):
    """A provider from an installed package (the `rein.providers` entry point group) that fails to
    import or to build. An `ImportError`, as a built-in provider whose SDK is missing is."""

    def __init__(self, name: str, entry_point: str, problem: str) -> None:
        super().__init__(f"provider {name!r} (entry point {entry_point}) cannot load: {problem}")
        self.name = name


class MessageFormatError(AiError, ValueError):
    """Persisted data that does not decode to a message. The text names the path of the bad field."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path


class ProviderError(AiError):
    """A provider failure in rein's words; the stream turns it into its final `error` event."""
