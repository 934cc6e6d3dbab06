"""Bad settings and config through the real CLI: a wrong type or value is one line naming the file, the
key and what is allowed, with exit 2 and no traceback; an unknown key is a warning and the run goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.helpers import rein, session_files, stderr_lines

pytestmark = pytest.mark.slow


PROVIDERS = "anthropic, faux, local, openai, openai-responses"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('[ttsr]\nenabled = "yes"\n', '[ttsr] enabled must be true or false, not "yes"'),
        (
            '[ttsr]\ncontext_mode = "sometimes"\n',
            '[ttsr] context_mode must be one of discard, keep, not "sometimes"',
        ),
        ("[rein]\nprovider = 5\n", f"[rein] provider must be one of {PROVIDERS}, not 5"),
        ('[rein]\napprove = "always"\n', '[rein] approve must be one of ask, auto, deny, not "always"'),
    ],
)
def test_a_bad_value_exits_2_with_one_line(tmp_path: Path, text: str, problem: str) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    settings = cwd / ".rein" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    result = rein("-p", "hi", "--provider", "faux", cwd=cwd, home=home)
    assert result.returncode == 2
    assert stderr_lines(result) == [f"rein: {settings}: {problem}"]
    assert session_files(home) == []  # refused before anything was written
    listed = rein("rules", "list", cwd=cwd, home=home)
    assert listed.returncode == 2 and f"{settings}: {problem}" in listed.stderr


def test_an_unknown_key_is_a_warning_and_the_run_goes_on(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    settings = home / ".rein" / "settings.toml"
    settings.parent.mkdir(parents=True)
    cwd.mkdir()
    settings.write_text('[rein]\nmodle = "x"\n[ttsr]\nrepeat_gap = 2\n')
    result = rein("-p", "hi", "--provider", "faux", cwd=cwd, home=home)
    assert result.returncode == 0
    assert result.stdout.strip() == "You said: hi"
    assert stderr_lines(result) == [
        f"rein: warning: {settings}: [rein] unknown key 'modle' is ignored (did you mean 'model'? known"
        " keys: approve, base_url, context_window, max_repeated_calls, model, provider, validation_hints)"
    ]


def test_a_steering_config_that_is_a_directory_is_named(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    config = cwd / ".rein" / "steering.toml"
    config.mkdir(parents=True)
    result = rein("check", "ls", cwd=cwd, home=home)
    assert result.returncode != 0
    assert f"{config}: is a directory, not a file" in result.stdout + result.stderr
