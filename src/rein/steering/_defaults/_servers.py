"""`no-dev-server`: commands that never exit (dev servers, watchers, followers), so the agent's shell
would hang until its timeout.

Runners are already unwrapped (`npx vite`, `pnpm dlx vite`, `bunx next dev`, `python -m http.server`
each give the inner command its own ref), so this reads one command at a time: a package manager
running a script whose name says it serves or watches (`npm run dev`, `npm rum dev`, `pnpm --filter
web dev`, `yarn start`, `deno task dev`), a server binary or its serving subcommand, a watch flag. Its
`--version` and `--help`, and production builds, run.
"""

from __future__ import annotations

import posixpath

from rein.steering._args import read, tool_args
from rein.steering._rule import Tri
from rein.steering._types import Context
from rein.steering.bash import CommandRef
from rein.steering.bash.commands import Options, long_options, tool_spec

_SCRIPTS = frozenset({"dev", "start", "serve", "watch", "preview", "develop", "storybook"})
"""Package script names that serve or watch; also as a part of `dev:web` or `web:dev`."""
_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun", "deno"})
_NOT_SCRIPTS = frozenset({
    "install", "i", "add", "remove", "rm", "uninstall", "update", "up", "upgrade", "ci", "test", "t",
    "build", "exec", "dlx", "x", "create", "init", "link", "unlink", "publish", "pack", "audit",
    "outdated", "list", "ls", "why", "info", "view", "config", "cache", "store", "import", "prune",
    "rebuild", "version", "login", "logout", "whoami", "workspace", "workspaces", "help", "node",
    "fmt", "lint", "check", "compile", "bundle", "doc", "eval", "repl", "completions",
})  # fmt: skip
SERVERS: dict[str, tuple[str, ...] | None] = {
    # command: the subcommands that serve ("" for none given); None: the command always serves
    "next": ("dev", "start"), "nuxt": ("dev", "preview"), "nuxi": ("dev", "preview"),
    "astro": ("dev", "preview"),
    "vite": ("", "dev", "serve", "preview"), "remix": ("dev",), "svelte-kit": ("dev",), "ng": ("serve", "s"),
    "react-scripts": ("start",), "gatsby": ("develop", "serve"), "expo": ("start",), "storybook": ("dev",),
    "start-storybook": None, "parcel": ("", "serve", "watch"), "webpack-dev-server": None,
    "wrangler": ("dev",), "vercel": ("dev",), "netlify": ("dev",), "firebase": ("serve", "emulators:start"),
    "nodemon": None, "ts-node-dev": None, "live-server": None, "http-server": None, "serve": None,
    "browser-sync": ("start",), "uvicorn": None, "gunicorn": None, "hypercorn": None, "daphne": None,
    "granian": None, "waitress-serve": None, "http.server": None, "SimpleHTTPServer": None,
    "fastapi": ("dev", "run"), "flask": ("run",), "django": ("runserver",), "django-admin": ("runserver",),
    "streamlit": ("run",), "jupyter": ("notebook", "lab", "server"), "jupyter-lab": None,
    "jupyter-notebook": None, "mkdocs": ("serve",), "sphinx-autobuild": None, "rails": ("s", "server"),
    "hugo": ("server", "serve"), "jekyll": ("serve", "s"), "zola": ("serve",), "eleventy": None,
    "watchexec": None, "entr": None, "air": None, "reflex": None, "tilt": ("up",), "skaffold": ("dev",),
    "trunk": ("serve", "watch"), "mix": ("phx.server",), "webpack": ("serve",),
}  # fmt: skip
_WATCH_FLAGS = frozenset({"--watch", "-w", "--watchAll", "--serve", "--hot"})
_WATCHERS = frozenset({
    "tsc", "webpack", "jest", "rollup", "esbuild", "sass", "tailwindcss", "postcss", "babel", "eleventy",
    "node", "bun", "deno", "tsx", "cargo-watch", "swc", "tsup", "nest",
})  # fmt: skip
_INFO = frozenset({"--version", "-v", "-V", "--help", "-h", "help", "version"})
_CONTAINERS = frozenset({"docker", "docker-compose", "podman", "podman-compose", "nerdctl"})
_PYTHONS = frozenset({"python", "python3", *(f"python3.{minor}" for minor in range(6, 16)), "pypy", "pypy3"})
COMMANDS = frozenset({
    *_PACKAGE_MANAGERS, *SERVERS, *_WATCHERS, *_CONTAINERS, *_PYTHONS, "vitest", "cargo", "php", "dotnet",
    "iex",
})  # fmt: skip
"""Every command `dev_server` can say yes to: the rule's command list."""


def dev_server(ref: CommandRef, context: Context) -> Tri:
    name = ref.name
    values = [word.value for word in ref.args]
    if (values and values[0] in _INFO) or (_INFO.intersection(values[:2]) and name not in _PACKAGE_MANAGERS):
        return False
    if name in _WATCHERS and _watching(values):  # `bun --hot x.ts`, `deno run --watch`, `tsc -w`
        return True
    if name in _PACKAGE_MANAGERS:
        passed = values[values.index("--") + 1 :] if "--" in values else []
        if passed[:1] and passed[0] in _INFO:  # `npm run dev -- --help`: the script prints its help
            return False
        return _script(name, ref) or _watching(passed)
    if name in _CONTAINERS:
        return _compose(ref)
    firsts = _first_operands(values)
    if name in SERVERS:
        serving = SERVERS[name]
        if serving is None or any(first in serving for first in firsts):
            return True
    return _special(name, values, firsts[0])


def _watching(values: list[str]) -> bool:
    return bool(_WATCH_FLAGS.intersection(values)) or any(value.startswith("--watch") for value in values)


def _first_operands(values: list[str]) -> tuple[str, str]:
    """The subcommand, read two ways, since rein does not know which options take a value: the first
    word that is no option (`flask --debug run`), and the first that also follows no option
    (`flask --app app run`, `vite --port 3000` has none: ""). A rule says yes if either serves."""
    plain = skipping = ""
    after_option = False
    for value in values:
        if value == "--":
            break
        if value.startswith("-") and value != "-":
            after_option = "=" not in value
            continue
        plain = plain or value
        if not after_option:
            skipping = value
            break
        after_option = False
    return plain, skipping


def _special(name: str, values: list[str], first: str) -> Tri:
    if name == "vitest":
        return first not in ("run", "bench", "list", "related") and "--run" not in values
    if name in _PYTHONS:
        script = posixpath.basename(first)
        return script == "manage.py" and "runserver" in values
    if name == "cargo":
        return first in ("watch", "leptos") and (first == "watch" or values[1:2] in (["watch"], ["serve"]))
    if name == "php":
        return "-S" in values or values[:2] == ["artisan", "serve"]
    if name == "dotnet":
        return first == "watch"
    if name == "iex":
        return "phx.server" in values
    return False


def _script(name: str, ref: CommandRef) -> Tri:
    """The script a package manager runs, when its name says it serves or watches."""
    args = tool_args(ref, name)
    operands = [word.value for word in args.operands if not word.value.startswith("-")]
    if not operands:
        return False
    action = operands[0]
    if name == "deno":
        return action == "task" and len(operands) > 1 and _serving(operands[1])
    if action in ("run", "run-script", "rum", "urn"):
        return len(operands) > 1 and _serving(operands[1])
    if action == "start" and name != "bun":
        return True
    if name == "npm" or action in _NOT_SCRIPTS:
        return False
    return _serving(action)


def _serving(script: str) -> bool:
    return script in _SCRIPTS or any(part in _SCRIPTS for part in script.split(":"))


def _compose(ref: CommandRef) -> Tri:
    """`docker compose up` without `-d`, `docker-compose up`, `compose watch`."""
    argv = ref.argv
    start = 1
    if ref.name in ("docker", "podman", "nerdctl"):
        found = read(argv, 1, tool_spec(ref.name))
        if not found.operands or found.operands[0].value != "compose":
            return False
        start = len(argv) - len(found.operands) + 1
    args = read(argv, start, tool_spec(f"{ref.name} compose" if start > 1 else "docker compose"))
    words = [word.value for word in args.operands]  # compose's own options end at its subcommand
    action = words[0] if words else ""
    if action == "watch":
        return True
    up = read(argv, len(argv) - len(words) + 1, _UP) if action == "up" else None
    return up is not None and not up.has("-d", "--detach", "--wait")


_UP = Options(
    short_value="t",
    long=long_options("timeout=", "scale=", "exit-code-from=", "attach=", "no-attach=", "pull=",
                      "wait-timeout=", "detach", "wait"),
)  # fmt: skip
"""`compose up`'s options, as far as where `-d` is: its flags bundle (`-dV`)."""
