"""Providers and steering plugins from installed packages, through real `rein` processes: the example
package (tests/plugins/example_pkg) installed by its dist-info on PYTHONPATH, no network."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.faults.helpers import REIN, session_files, stderr_lines
from tests.plugins.installed import EXAMPLE, install, plugin_env, write_dist_info

pytestmark = pytest.mark.slow


class Installed:
    """A project and a home, with the example package installed for the `rein` runs."""

    def __init__(self, tmp_path: Path) -> None:
        self.cwd, self.home, self.site = tmp_path / "proj", tmp_path / "home", tmp_path / "site"
        for directory in (self.cwd, self.home, self.site):
            directory.mkdir()
        install(EXAMPLE, self.site)

    def rein(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*REIN, *args],
            cwd=self.cwd,
            env=plugin_env(self.home, self.site, EXAMPLE),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def write(self, relative: str, text: str) -> Path:
        path = self.cwd / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path


@pytest.fixture
def installed(tmp_path: Path) -> Installed:
    return Installed(tmp_path)


def test_the_installed_provider_answers_by_name(installed: Installed) -> None:
    done = installed.rein("--provider", "shout", "-p", "hi there")
    assert (done.returncode, done.stdout, done.stderr) == (0, "HI THERE\n", "")
    [session] = session_files(installed.home)
    reply = json.loads(session.read_text().splitlines()[-1])["message"]
    assert (reply["provider"], reply["model"]) == ("shout", "shout-1")  # the factory's default_model


def test_the_installed_provider_streams_in_pieces(installed: Installed) -> None:
    done = installed.rein("--provider", "shout", "--mode", "json", "-p", "louder please")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    deltas = [event["delta"]["text"] for event in events if event["type"] == "message_update"]
    assert deltas == ["LOU", "DER", " PL", "EAS", "E"]


def test_the_settings_name_the_installed_provider(installed: Installed) -> None:
    installed.write(".rein/settings.toml", '[rein]\nprovider = "shout"\n')
    done = installed.rein("-p", "from the settings")
    assert (done.returncode, done.stdout, done.stderr) == (0, "FROM THE SETTINGS\n", "")


def test_an_unknown_provider_in_the_settings_lists_the_installed_ones(installed: Installed) -> None:
    settings = installed.write(".rein/settings.toml", '[rein]\nprovider = "whisper"\n')
    done = installed.rein("-p", "hi")
    assert done.returncode == 2
    assert stderr_lines(done) == [
        f"rein: {settings}: [rein] provider must be one of anthropic, faux, local, openai, openai-responses,"
        ' shout, not "whisper"'
    ]


def test_an_unknown_provider_named_on_the_command_line_lists_the_installed_ones(installed: Installed) -> None:
    done = installed.rein("--provider", "whisper", "-p", "hi")
    assert done.returncode == 2
    assert stderr_lines(done) == [
        "rein: unknown provider 'whisper'; known providers: anthropic, faux, local, openai,"
        " openai-responses, shout"
    ]


def test_a_provider_whose_module_is_missing_is_one_line(installed: Installed) -> None:
    write_dist_info(
        installed.site, "rein-broken", {"rein.providers": {"broken": "rein_missing.provider:Factory"}}
    )
    done = installed.rein("--provider", "broken", "-p", "hi")
    assert done.returncode == 2
    assert stderr_lines(done) == [
        "rein: provider 'broken' (entry point broken = rein_missing.provider:Factory in rein-broken) cannot"
        " load: No module named 'rein_missing'"
    ]
    assert session_files(installed.home) == []


def test_a_package_cannot_replace_a_built_in_provider(installed: Installed) -> None:
    write_dist_info(
        installed.site, "rein-faker", {"rein.providers": {"faux": "rein_example.provider:ShoutProvider"}}
    )
    done = installed.rein("--provider", "faux", "-p", "hi")
    assert (done.returncode, done.stdout) == (0, "You said: hi\n")  # rein's own faux, not the shout


def test_the_installed_steering_plugin_blocks_what_its_rule_blocks(installed: Installed) -> None:
    installed.write(".rein/steering.toml", 'plugins = ["example-rules"]\n')
    blocked = installed.rein("check", "--", "curl https://example.com")
    assert blocked.returncode == 1, blocked.stderr
    assert "block [steering:no-curl@example-rules] Fetch with the project's client" in blocked.stdout
    allowed = installed.rein("check", "--", "ls")
    assert (allowed.returncode, allowed.stdout.strip()) == (0, "allow")


def test_without_the_plugin_named_the_rule_does_not_apply(installed: Installed) -> None:
    done = installed.rein("check", "--", "curl https://example.com")
    assert (done.returncode, done.stdout.strip()) == (0, "allow")


def test_a_steering_plugin_whose_module_is_missing_names_the_config(installed: Installed) -> None:
    write_dist_info(installed.site, "rein-gone", {"rein.steering": {"gone-rules": "rein_gone.rules:plugin"}})
    config = installed.write(".rein/steering.toml", 'plugins = ["gone-rules"]\n')
    done = installed.rein("check", "--", "ls")
    assert done.returncode == 2
    assert (
        f"{config}: plugin 'gone-rules' (entry point rein_gone.rules:plugin) failed to import:"
        " No module named 'rein_gone'" in done.stdout + done.stderr
    )


def test_a_module_path_still_loads_when_no_package_declares_the_name(installed: Installed) -> None:
    installed.write(".rein/steering.toml", 'plugins = ["rein_example.rules"]\n')
    done = installed.rein("check", "--", "curl https://example.com")
    assert done.returncode == 1
    assert "block [steering:no-curl@example-rules]" in done.stdout
