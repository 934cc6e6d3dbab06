"""The real coding agents, from npm: Claude Code, Codex and Gemini CLI at the versions `package.json` pins,
and acpx, a real ACP client for `rein acp`.

`package.json` overrides acpx's dependency `@openclaw/fs-safe` (^0.12.0) with 0.13.1: 0.12.0 names
platform packages that were never published, so `npm ci` refuses any lock of it; 0.13.1 exports every
name acpx imports from it.

`npm ci` installs them once per lockfile into a cache folder (`$REIN_TEST_CACHE`, else
`~/.cache/rein-tests`), keyed by the lockfile's hash, so a second run starts at once. The lockfile
records no download addresses (`.npmrc`: omit-lockfile-registry-resolved) and install scripts do not
run: every host ships its program inside its packages.

Every test here is marked `hosts`; each starts a host in its non-interactive mode with HOME in a
temporary directory, against a mock of its model API on 127.0.0.1 (no key, no network).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hosts._common import Sandbox

HERE = Path(__file__).parent
FILES = ("package.json", "package-lock.json", ".npmrc")
VERSIONS = {"claude": "2.1.330", "codex": "0.169.0", "gemini": "0.61.0", "acpx": "0.19.1"}
"""The pinned host versions, as `package.json` has them (the README's hooks section names them);
acpx is the headless ACP client that drives `rein acp` (test_acpx.py)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.hosts)


def _cache() -> Path:
    root = os.environ.get("REIN_TEST_CACHE") or str(Path.home() / ".cache" / "rein-tests")
    digest = hashlib.sha256(b"".join((HERE / name).read_bytes() for name in FILES)).hexdigest()[:16]
    return Path(root) / f"hosts-{digest}"


@pytest.fixture(scope="session")
def host_bin(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The hosts' executables: {"claude": ..., "codex": ..., "gemini": ..., "acpx": ...}."""
    folder = _cache()
    done = folder / ".installed"
    if not done.exists():
        work = tmp_path_factory.mktemp("npm")
        for name in FILES:
            shutil.copy(HERE / name, work / name)
        result = subprocess.run(
            ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            check=False,
            cwd=work,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if result.returncode != 0:
            pytest.fail(f"npm ci of the test hosts failed:\n{result.stderr[-2000:]}")
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
        shutil.move(work, folder)
        done.touch()
    bins = {name: folder / "node_modules" / ".bin" / name for name in VERSIONS}
    # Claude Code's `bin/claude.exe` is a stub its install script overwrites (scripts do not run
    # here); the program itself is in the one platform package npm installed for this machine.
    bins["claude"] = next(folder.glob("node_modules/@anthropic-ai/claude-code-*/claude"), bins["claude"])
    for name, path in bins.items():
        version = subprocess.run(
            [path, "--version"], check=True, capture_output=True, text=True, timeout=60
        ).stdout
        assert VERSIONS[name] in version, f"{path} --version printed {version!r}"
    return bins


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Sandbox]:
    """A temporary HOME with a git project in it; stops any hook daemon the test started."""
    sandbox = Sandbox.make(tmp_path)
    try:
        yield sandbox
    finally:
        sandbox.close()
