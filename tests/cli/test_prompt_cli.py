"""`rein PROMPT`: a first word that is not a command is the prompt, as the help and the docs say."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run_rein


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose settings pick the faux provider, so `rein hello` needs no option."""
    root = tmp_path / "home" / "project"
    (root / ".rein").mkdir(parents=True)
    (root / ".rein" / "settings.toml").write_text('[rein]\nprovider = "faux"\n')
    return root


def rein(*args: str, project: Path, stdin: str = "") -> tuple[int, str, str]:
    done = run_rein(*args, cwd=project, home=project.parent, stdin=stdin)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("hello", "-p"), "You said: hello"),
        (("-p", "hello", "there"), "You said: hello there"),
        (("fix the tests", "-p"), "You said: fix the tests"),
        (("help", "me", "-p"), "You said: help me"),
        (("-p", "--", "check"), "You said: check"),
        (("-p", "--", "check", "--help"), "You said: check --help"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else None,
)
@pytest.mark.slow
def test_any_first_word_that_is_not_a_command_is_the_prompt(
    args: tuple[str, ...], said: str, project: Path
) -> None:
    code, out, err = rein(*args, project=project)
    assert (code, out.strip()) == (0, said), err


@pytest.mark.parametrize("prompt", ["hello", "fix the tests"])
@pytest.mark.slow
def test_rein_prompt_starts_the_interactive_agent_with_that_prompt(prompt: str, project: Path) -> None:
    code, out, err = rein(prompt, project=project)  # stdin is not a terminal: read to its end, then quit
    assert code == 0, err
    assert f"You said: {prompt}" in out


@pytest.mark.slow
def test_a_double_dash_makes_a_command_name_a_prompt(project: Path) -> None:
    code, out, err = rein("--", "check", project=project)
    assert code == 0, err
    assert "You said: check" in out
    code, out, _ = rein("check", "--", "ls", project=project)
    assert (code, out) == (0, "allow\n")


@pytest.mark.slow
def test_the_prompt_of_print_mode_can_come_on_stdin(project: Path) -> None:
    code, out, err = rein("-p", project=project, stdin="from a pipe\n")
    assert (code, out.strip()) == (0, "You said: from a pipe"), err
