"""A project and a home directory for each test, and skips when tmux is missing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    """(project, home): a project with a few files, in a home with no settings."""
    home = tmp_path / "home"
    project = home / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("print('hi')\n")
    (project / "README.md").write_text("# demo\n")
    return project, home


@pytest.fixture
def tmux() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
