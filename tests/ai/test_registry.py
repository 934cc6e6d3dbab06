"""The registry and the public door: lazy providers, an unknown name that lists the known ones."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import rein.ai
from rein.ai import (
    Context,
    Model,
    ProviderLoadError,
    UnknownProviderError,
    UserMessage,
    default_model,
    get_provider,
    provider_names,
    stream,
)
from rein.ai._registry import _PROVIDERS, _installed
from rein.ai.providers.anthropic import AnthropicProvider
from rein.ai.providers.openai_chat import OpenAIChatProvider
from rein.ai.providers.openai_responses import OpenAIResponsesProvider
from tests.ai.helpers import check_contract, collect, kinds, run
from tests.plugins.installed import EXAMPLE, install, write_dist_info


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


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The example package installed (its dist-info on sys.path), the registry's scan forgotten."""
    install(EXAMPLE, tmp_path)
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(tmp_path))
    _installed.cache_clear()
    yield tmp_path
    _installed.cache_clear()


def test_installed_providers_are_listed_after_the_built_in_ones(site: Path) -> None:
    assert provider_names() == ("anthropic", "faux", "local", "openai", "openai-responses", "shout")
    provider = get_provider("shout")
    assert type(provider).__name__ == "ShoutProvider"
    assert default_model("shout") == "shout-1"
    message = run(
        stream(Model(provider="shout", id="shout-1"), Context(messages=(UserMessage.of("hey"),))).result()
    )
    assert (message.text, message.stop_reason) == ("HEY", "stop")


def test_an_installed_providers_stream_follows_the_contract(site: Path) -> None:
    events = run(
        collect(stream(Model(provider="shout", id="s"), Context(messages=(UserMessage.of("abcdefg"),))))
    )
    assert kinds(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    check_contract(events)


def test_an_unknown_name_lists_the_installed_ones_too(site: Path) -> None:
    with pytest.raises(UnknownProviderError) as caught:
        get_provider("gemini")
    assert str(caught.value) == (
        "unknown provider 'gemini'; known providers: anthropic, faux, local, openai, openai-responses, shout"
    )


def test_a_package_cannot_replace_a_built_in_name(site: Path) -> None:
    write_dist_info(
        site, "rein-impostor", {"rein.providers": {"anthropic": "rein_example.provider:ShoutProvider"}}
    )
    _installed.cache_clear()
    assert isinstance(get_provider("anthropic"), AnthropicProvider)
    assert provider_names().count("anthropic") == 1
    assert default_model("anthropic") == "claude-sonnet-4-5"


def test_an_installed_provider_that_cannot_load_names_its_entry_point(site: Path) -> None:
    write_dist_info(
        site,
        "rein-broken",
        {"rein.providers": {"broken": "rein_missing:Factory", "plain": "rein_example:__doc__"}},
    )
    _installed.cache_clear()
    with pytest.raises(ProviderLoadError) as caught:
        get_provider("broken")
    assert str(caught.value) == (
        "provider 'broken' (entry point broken = rein_missing:Factory in rein-broken) cannot load:"
        " No module named 'rein_missing'"
    )
    assert isinstance(caught.value, ImportError)  # as a built-in provider whose SDK is missing
    with pytest.raises(ProviderLoadError, match=r"rein_example:__doc__ is not callable"):
        get_provider("plain")
    assert default_model("broken") == ""  # asking for a default does not fail; get_provider says why
    message = run(stream(Model(provider="broken", id="b"), Context()).result())
    assert message.stop_reason == "error"
    assert "No module named 'rein_missing'" in (message.error_message or "")


def test_a_factory_that_raises_is_a_load_error(site: Path) -> None:
    write_dist_info(site, "rein-raising", {"rein.providers": {"raising": "rein_example.provider:_shout"}})
    _installed.cache_clear()
    with pytest.raises(ProviderLoadError, match=r"provider 'raising' \(entry point raising = rein_example"):
        get_provider("raising")  # `_shout()` misses its arguments: a TypeError, in rein's words


def test_built_in_names_never_read_the_installed_packages() -> None:
    code = (
        "import sys, rein.ai; rein.ai.get_provider('faux'); rein.ai.default_model('anthropic');"
        " print('importlib.metadata' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (done.stdout, done.stderr) == ("False\n", "")
