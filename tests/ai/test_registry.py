"""The registry and the public door: lazy providers, an unknown name that lists the known ones."""

from __future__ import annotations

import subprocess
import sys

import pytest

import rein.ai
from rein.ai import Context, Model, UnknownProviderError, get_provider, provider_names, stream
from rein.ai._registry import _PROVIDERS
from rein.ai.providers.anthropic import AnthropicProvider
from rein.ai.providers.openai_chat import OpenAIChatProvider
from rein.ai.providers.openai_responses import OpenAIResponsesProvider
from tests.ai.helpers import check_contract, collect, kinds, run


def test_names_map_to_their_providers() -> None:
    assert provider_names() == ("anthropic", "faux", "local", "openai", "openai-responses")
    assert isinstance(get_provider("anthropic"), AnthropicProvider)
    assert isinstance(get_provider("openai"), OpenAIChatProvider)
    assert isinstance(get_provider("openai-responses"), OpenAIResponsesProvider)
    assert isinstance(get_provider("faux"), rein.ai.FauxProvider)


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownProviderError) as caught:
        get_provider("gemini")
    assert (
        str(caught.value)
        == "unknown provider 'gemini'; known providers: anthropic, faux, local, openai, openai-responses"
    )


def test_stream_with_an_unknown_provider_is_an_error_event_not_an_exception() -> None:
    events = run(collect(stream(Model(provider="gemini", id="g"), Context())))
    assert kinds(events) == ["start", "error"]
    assert "unknown provider 'gemini'" in (check_contract(events).error_message or "")


def test_stream_with_an_unimportable_provider_is_an_error_event(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(_PROVIDERS, "broken", "rein.ai.providers.does_not_exist:Nothing")
    message = run(stream(Model(provider="broken", id="b"), Context()).result())
    assert message.stop_reason == "error"
    assert "No module named 'rein.ai.providers.does_not_exist'" in (message.error_message or "")


def test_importing_rein_ai_imports_no_sdk() -> None:
    code = (
        "import sys, rein.ai, rein.ai.providers.local_files;"
        " heavy = ('openai', 'anthropic', 'httpx2', 'llama_cpp', 'xllamacpp', 'numpy');"
        " print(sorted(m for m in heavy if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert done.stderr == ""


def test_public_door_exports_what_it_declares() -> None:
    assert sorted(rein.ai.__all__) == rein.ai.__all__
    for name in rein.ai.__all__:
        assert hasattr(rein.ai, name), name
    public = {n for n in dir(rein.ai) if not n.startswith("_")} - set(rein.ai.__all__)
    assert public <= {"errors", "providers", "testing", "annotations"}, public


def test_sdk_types_do_not_leak_into_the_public_door() -> None:
    for name in rein.ai.__all__:
        module = getattr(getattr(rein.ai, name), "__module__", "rein.ai")
        assert not module.startswith(("openai", "anthropic", "httpx")), (name, module)
