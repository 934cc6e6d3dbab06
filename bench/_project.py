"""A realistic project on disk for the benchmarks that read files at check time: a git repository with
configuration, aliases and a hook, a package.json, a makefile with an include, scripts in Python and
shell, and task files; and the commands that read them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

SCRIPTS = {
    "build": "tsc -p . && vite build",
    "test": "vitest run",
    "lint": "eslint src --ext .ts",
    "clean": "rm -rf dist",
    "prepare": "husky install",
}
MAKEFILE = """\
include config.mk
PY ?= python3

all: lint test

lint:
\truff check src tests

test: lint
\t$(PY) -m pytest -q

dist:
\t$(PY) -m build

clean:
\trm -rf build dist
"""
CHECK_SH = """\
#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check src
mypy src
pytest -q "$@"
"""
TOOL_PY = """\
import subprocess
import sys

def main() -> int:
    subprocess.run(["ruff", "format", "src"], check=True)
    return subprocess.call([sys.executable, "-m", "pytest", "-q", *sys.argv[1:]])

if __name__ == "__main__":
    raise SystemExit(main())
"""
PRE_COMMIT = "#!/bin/sh\nnpx lint-staged\n"
JUSTFILE = "default: test\n\ntest *args:\n  pytest {{args}}\n\nfmt:\n  ruff format .\n"

DISK_COMMANDS = [
    "npm run build",
    "npm test",
    "yarn lint",
    "make",
    "make test",
    "bash scripts/check.sh",
    "./scripts/check.sh -x",
    "python tools/fmt.py",
    "git commit -m 'fix: parser'",
    "git st",
    "git checkout main",
    "git push origin feature",
    "just test -k slow",
]
"""Commands whose check reads files: scripts, package scripts, makefiles, git config, refs, hooks."""


def make_project(root: Path) -> Path:
    """The project at `root` (created), a git repository on branch `feature`."""
    root.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (root / "package.json").write_text(json.dumps({"name": "app", "scripts": SCRIPTS}, indent=2))
    (root / "Makefile").write_text(MAKEFILE)
    (root / "config.mk").write_text("VERSION := 1.0\n")
    (root / "justfile").write_text(JUSTFILE)
    for path, text in (("scripts/check.sh", CHECK_SH), ("tools/fmt.py", TOOL_PY), ("src/app.py", "x = 1\n")):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (root / "scripts/check.sh").chmod(0o755)
    git("add", "-A")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "init")
    git("switch", "-q", "-c", "feature")
    git("config", "alias.st", "status -sb")
    git("remote", "add", "origin", "https://example.com/app.git")
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text(PRE_COMMIT)
    hook.chmod(0o755)
    return root
