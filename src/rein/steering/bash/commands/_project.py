"""Tools that run the project's own files: a test runner runs its test files and `conftest.py`, `pip
install -e .` its `setup.py`, git its hooks. The files on disk are the
project's and are not read; one this command line wrote (`echo ... > conftest.py && pytest`) holds code
the tool runs, so the tool is unknown. Makefiles, package.json scripts and task runners' files
(justfile, Taskfile) the line wrote are read instead (`_makefile`, `_scripts`, `_tasks`)."""

from __future__ import annotations

import posixpath
from fnmatch import fnmatchcase

from rein.steering.bash.commands._inner import Call

_PYTHON = ("*.py", "pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini")
_JS = ("*.js", "*.mjs", "*.cjs", "*.ts", "*.mts", "*.cts", "*.jsx", "*.tsx", "*.json", "*.sh")
_RUBY = ("*.rb", "*.rake", "Rakefile", "rakefile", "Gemfile", "*.gemspec")
_GIT = (
    ".git/hooks/*", ".git/config", ".git/info/attributes", ".gitattributes", ".gitconfig", ".config/git/*",
    ".husky/*", ".gitmodules",
)  # fmt: skip
_FILES: dict[str, tuple[str, ...]] = {
    "git": _GIT,
    "pre-commit": (".pre-commit-config.yaml", ".pre-commit-hooks.yaml", *_GIT),
    **dict.fromkeys(("make", "gmake"), ("*.mk", "*.make")),
    "cmake": ("CMakeLists.txt", "*.cmake"),
    "cargo": ("build.rs", "Cargo.toml", "*.rs", ".cargo/config", ".cargo/config.toml"),
    "go": ("*.go", "go.mod"),
    "mvn": ("pom.xml", ".mvn/*"),
    "gradle": ("*.gradle", "*.gradle.kts"),
    "gradlew": ("*.gradle", "*.gradle.kts", "gradle/*"),
    "composer": ("composer.json",),
    "direnv": (".envrc",),
    "grunt": ("Gruntfile.js", "Gruntfile.coffee", *_JS),
    "gulp": ("gulpfile.*", *_JS),
    "rake": _RUBY,
    "bundle": _RUBY,
    "rspec": _RUBY,
    "gem": ("*.gemspec", "Rakefile"),
    **dict.fromkeys(("pytest", "py.test", "tox", "pip", "pip3", "uv", "poetry", "pdm", "hatch"), _PYTHON),
    "nox": ("noxfile.py", *_PYTHON),
    **dict.fromkeys(
        ("bun", "deno", "tsx", "ts-node", "jest", "vitest", "mocha", "ava", "playwright", "cypress"), _JS
    ),
}
_ANYWHERE = frozenset({".gitconfig", ".config/git/*", ".envrc"})
"""Files a tool reads wherever they are (the user's git configuration), not only below its cwd."""
_NOT_UNKNOWN_WRITES = frozenset({"git"})
"""Tools whose files an unnamed write cannot make (a clone or a download has no hooks)."""


def project_files(call: Call) -> tuple[str, ...]:
    """Why the tool is unknown: it runs a file of the project this line wrote (or may have written)."""
    patterns = _FILES.get(call.name)
    if patterns is None:
        return ()
    cwd = call.state.cwd
    below = cwd.rstrip("/") + "/" if isinstance(cwd, str) else ""
    configs = _git_configs(call) if call.name == "git" else ()
    for path in call.files:
        if path in configs:
            return (f"git reads its configuration from {path}, which this command line wrote",)
        for pattern in patterns:
            if _matches(path, pattern) and (pattern in _ANYWHERE or path.startswith(below)):
                return (f"{call.name} runs the project's files, and this command line wrote {path}",)
    if call.files_unknown and call.name not in _NOT_UNKNOWN_WRITES:
        return (f"{call.name} runs the project's files, and an earlier command wrote files rein cannot name",)
    return ()


def _matches(path: str, pattern: str) -> bool:
    if "/" in pattern:
        return fnmatchcase(path, f"*/{pattern}")
    return fnmatchcase(posixpath.basename(path), pattern)


def _git_configs(call: Call) -> tuple[str, ...]:
    """The configuration files `GIT_CONFIG_GLOBAL` and `GIT_CONFIG_SYSTEM` name, as absolute paths."""
    cwd = call.state.cwd
    paths: list[str] = []
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        value = call.state.env.get(name)
        if isinstance(value, str) and value and (value.startswith("/") or isinstance(cwd, str)):
            paths.append(posixpath.normpath(posixpath.join(cwd if isinstance(cwd, str) else "/", value)))
    return tuple(paths)
