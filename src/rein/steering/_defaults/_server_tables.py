"""The tables `no-dev-server` reads: which commands never exit, by subcommand, option or script name.

Each `Tool` (see `_server_kit`) follows the tool's documented CLI; `_server_families` adds the less
common stacks, daemons and monitors. The `pnpm run` and `deno task` option tables are from pnpm.io and
docs.deno.com.
"""

from __future__ import annotations

import re

from rein.steering._defaults._server_families import FAMILIES
from rein.steering._defaults._server_kit import (
    ALWAYS,
    DAEMON,
    FALSY,
    FOLLOW,
    GENERIC_WATCH,
    NEEDS,
    NONE,
    WATCH,
    WATCH_W,
    Flags,
    Tool,
    flags,
    serves,
    unless,
    watch,
)
from rein.steering.bash.commands import Options, long_options, tool_spec

__all__ = ["FALSY", "GENERIC_WATCH", "NONE", "Flags", "Tool", "flags"]

_JUPYTER_EXITS = flags("generate-config show-config show-config-json paths version help-all")
_JUPYTER_QUIET = (
    "list stop password build clean path paths workspaces workspace extension labextension licenses"
)
_JUPYTER_STOPS = " ".join(
    f"{app}+{word}" for app in ("notebook", "lab", "server") for word in _JUPYTER_QUIET.split()
)
"""`jupyter lab build`, `jupyter notebook list`, `jupyter server stop`: they exit."""
_JUPYTER = unless(_JUPYTER_QUIET, exits=_JUPYTER_EXITS)

TOOLS: dict[str, Tool] = {
    # JavaScript servers and frameworks
    "vite": unless("build optimize", WATCH_W), "parcel": unless("build"), "vitepress": unless("build"),
    "slidev": unless("build export format"), "next": serves("dev start", bare=True),
    "nuxt": serves("dev preview", bare=True), "nuxi": serves("dev preview"),
    "astro": serves("dev preview", WATCH), "remix": serves("dev vite:dev"), "react-router": serves("dev"),
    "svelte-kit": serves("dev"), "gatsby": serves("develop serve"), "ng": serves("serve s", WATCH),
    "ng test": unless(watch=WATCH, watching=True), "ng t": unless(watch=WATCH, watching=True),
    "react-scripts": serves("start"),
    "react-scripts test": unless(watch=flags("watch watchAll"), watching=True), "craco": serves("start"),
    "vue-cli-service": serves("serve"), "umi": serves("dev"), "rsbuild": serves("dev preview", WATCH_W),
    "rspack": serves("serve dev preview", WATCH_W), "farm": serves("start dev preview", bare=True),
    "vinxi": serves("dev"), "solid-start": serves("dev"), "electron-vite": serves("dev preview"),
    "electron-forge": serves("start"), "expo": serves("start"), "react-native": serves("start"),
    "ionic": serves("serve"), "cordova": serves("serve"), "quasar": serves("dev serve"),
    "ember": serves("s serve server"), "redwood": serves("dev serve"), "rw": serves("dev serve"),
    "blitz": serves("dev start"), "docusaurus": serves("start serve"), "vuepress": serves("dev"),
    "hexo": serves("server s"), "gridsome": serves("develop"), "storybook": serves("dev"),
    "start-storybook": ALWAYS, "webpack": serves("serve server s watch w", WATCH_W),
    "webpack-dev-server": ALWAYS, "wrangler": serves("dev pages+dev tail"),
    "vercel": serves("dev", flags("follow")),
    "netlify": serves("dev serve"), "firebase": serves("serve emulators:start"), "convex": serves("dev"),
    "tauri": serves("dev"), "sst": serves("dev"), "serverless": serves("offline dev"),
    "sls": serves("offline dev"), "hardhat": serves("node"), "ganache": ALWAYS, "ganache-cli": ALWAYS,
    "anvil": unless("completions"), "json-server": NEEDS, "live-server": ALWAYS, "http-server": ALWAYS,
    "serve": ALWAYS, "lite-server": ALWAYS, "light-server": ALWAYS, "five-server": ALWAYS, "sirv": ALWAYS,
    "browser-sync": serves("start"), "marp": watch("server watch preview", "swp", bundles=True),
    "karma": serves("start", exits=flags("single-run")), "cypress": serves("open"),
    "playwright": serves("show-report show-trace", flags("ui")), "prisma": serves("studio", WATCH),
    "drizzle-kit": serves("studio"), "supabase": serves("functions+serve"),
    "stripe": serves("listen logs+tail"),
    # JavaScript watchers: on a flag, the way each reads it
    "nodemon": ALWAYS, "ts-node-dev": ALWAYS, "tsnd": ALWAYS, "node-dev": ALWAYS, "tsc-watch": ALWAYS,
    "chokidar": ALWAYS, "onchange": ALWAYS, "tsx": serves("watch", WATCH),
    "vitest": unless("run list bench", WATCH_W, flags("run"), watching=True), "jest": watch("watch watchAll"),
    "mocha": watch("watch", "w", True), "ava": watch("watch", "w", True), "tsc": watch("watch", "w"),
    "vue-tsc": watch("watch", "w"), "svelte-check": watch(), "graphql-codegen": watch("watch", "w", True),
    "gql-gen": watch("watch", "w", True), "graphql-code-generator": watch("watch", "w", True),
    "relay-compiler": watch(), "tsup": watch(), "tsdown": watch("watch", "w"),
    "esbuild": watch("watch serve servedir"), "rollup": watch("watch", "w", True), "swc": watch("watch", "w"),
    "babel": watch("watch", "w", True), "sass": watch("watch", "w"), "stylus": watch("watch", "w"),
    "postcss": watch("watch", "w", True), "tailwindcss": watch("watch", "w"), "unocss": watch("watch", "w"),
    "coffee": watch("watch", "w", True), "pug": watch("watch", "w"), "eleventy": watch("watch serve"),
    "microbundle": serves("watch", WATCH_W), "nest": serves("start", WATCH_W),
    "node": watch("watch watch-path"), "nodejs": watch("watch watch-path"), "wtr": watch(),
    "web-test-runner": watch(), "templ": watch(),
    # Python
    "uvicorn": NEEDS, "gunicorn": unless(exits=flags("check-config print-config daemon", "D"), bare=False),
    "hypercorn": NEEDS, "daphne": NEEDS, "granian": NEEDS,
    "waitress-serve": NEEDS, "http.server": ALWAYS, "SimpleHTTPServer": ALWAYS, "aiohttp.web": ALWAYS,
    "sanic": NEEDS, "fastapi": serves("dev run"), "flask": serves("run"), "litestar": serves("run"),
    "django": serves("runserver runserver_plus testserver"),
    "django-admin": serves("runserver runserver_plus testserver"),
    "manage.py": serves("runserver runserver_plus runsslserver testserver"), "streamlit": serves("run hello"),
    "gradio": unless("deploy cc environment info"), "panel": serves("serve"), "bokeh": serves("serve"),
    "solara": serves("run"), "shiny": serves("run"),
    "reflex": unless("init export deploy login logout db script component rename cloud", bare=False),
    "chainlit": serves("run"), "marimo": serves("edit run tutorial"), "voila": ALWAYS,
    "jupyter": serves("notebook lab server kernel", exits=_JUPYTER_EXITS, stops=_JUPYTER_STOPS),
    "jupyter-lab": _JUPYTER, "jupyterlab": _JUPYTER, "jupyter-notebook": _JUPYTER, "notebook": _JUPYTER,
    "jupyter-server": _JUPYTER, "mlflow": serves("ui server"),
    "tensorboard": unless(exits=flags("inspect")),
    "datasette": unless("inspect install uninstall publish package plugins create-token", exits=flags("get")),
    "mkdocs": serves("serve"), "sphinx-autobuild": ALWAYS, "pelican": watch("listen autoreload", "lr", True),
    "quarto": serves("preview serve"), "pydoc": watch("", "bp"),
    "celery": serves("worker beat flower events", exits=flags("detach")), "rq": serves("worker"),
    "dramatiq": NEEDS, "huey_consumer": NEEDS, "arq": NEEDS, "ptw": ALWAYS, "pytest-watch": ALWAYS,
    "pytest-watcher": ALWAYS, "pytest": watch("looponfail", "f"),
    "watchmedo": serves("auto-restart shell-command"),
    # Ruby, PHP, Elixir
    "rails": serves("s server", exits=DAEMON), "rackup": ALWAYS, "puma": ALWAYS,
    "unicorn": unless(exits=flags("daemonize", "D")), "unicorn_rails": unless(exits=flags("daemonize", "D")),
    "thin": serves("start", exits=DAEMON), "foreman": serves("start s", bare=True),
    "overmind": serves("start s"), "hivemind": ALWAYS, "guard": unless("init list show notifiers"),
    "middleman": serves("server s", bare=True), "jekyll": serves("serve s server", WATCH_W),
    "hanami": serves("server dev"), "sidekiq": ALWAYS, "bin/dev": ALWAYS,
    "artisan": serves(
        "serve octane:start queue:work queue:listen horizon reverb:start pail schedule:work websockets:serve"
    ),
    "console": serves("server:run"), "symfony": serves("serve server:start local:server:start", exits=DAEMON),
    "sail": serves("up", exits=DAEMON), "wp": serves("server"), "drush": serves("runserver rs"),
    "frankenphp": serves("run php-server"), "mix": serves("phx.server"), "mix run": watch("no-halt"),
    # JVM, Go, Rust, .NET, mobile
    "quarkus": serves("dev"), "lein": serves("ring+server ring+server-headless"), "air": unless("init"),
    "gow": ALWAYS, "wails": serves("dev"), "buffalo": serves("dev"), "hugo": serves("server serve", WATCH_W),
    "cargo": serves("watch leptos+watch leptos+serve tauri+dev shuttle+run"), "cargo-watch": ALWAYS,
    "trunk": serves("serve watch"), "dx": serves("serve"),
    "bacon": unless(exits=flags("list-jobs init prefs")), "zola": serves("serve"),
    "mdbook": serves("serve watch"), "dotnet": serves("watch"), "func": serves("start host+start"),
    "swa": serves("start"), "azurite": ALWAYS, "flutter": serves("run attach", exits=flags("no-resident")),
    "elm": serves("reactor"), "elm-live": ALWAYS,
    # Infrastructure, databases, tunnels
    "docker logs": FOLLOW, "docker service": FOLLOW, "docker events": unless(exits=flags("until")),
    "docker stats": unless(exits=flags("no-stream")), "docker attach": ALWAYS, "kubectl logs": FOLLOW,
    "kubectl port-forward": ALWAYS, "kubectl proxy": ALWAYS, "kubectl attach": ALWAYS,
    "kubectl get": watch("watch watch-only", "w"), "kubectl events": watch("watch", "w"), "stern": NEEDS,
    "kubetail": NEEDS, "tilt": serves("up"), "skaffold": serves("dev debug"), "devspace": serves("dev"),
    "minikube": serves("dashboard tunnel mount"), "localstack": serves("start", exits=DAEMON),
    "ngrok": serves("http tcp tls start tunnel"), "caddy": serves("run file-server reverse-proxy"),
    "redis-server": ALWAYS, "valkey-server": ALWAYS, "redis-stack-server": ALWAYS,
    "mongod": unless(exits=flags("fork shutdown repair sysinfo")),
    "memcached": unless(exits=flags("daemon", "d")),
    "mysqld": unless(exits=flags("initialize initialize-insecure daemonize validate-config print-defaults")),
    "minio": serves("server"), "etcd": ALWAYS, "consul": serves("agent"), "vault": serves("server"),
    "nats-server": ALWAYS, "mailhog": ALWAYS, "mailpit": ALWAYS,
    "git": serves("daemon instaweb", exits=flags("detach inetd start stop restart")),
    "heroku logs": watch("tail", "t"), "fly logs": unless(exits=flags("no-tail")),
    "flyctl logs": unless(exits=flags("no-tail")),
    # Followers and waiters
    "tail": watch("follow", "fF", bundles=True), "journalctl": watch("follow", "f", bundles=True),
    "dmesg": watch("follow follow-new", "wW", bundles=True), "adb logcat": unless(exits=flags("", "cdt")),
    "multitail": NEEDS, "watch": unless(exits=flags("chgexit equexit", "gq"), bare=False),
    "entr": unless(exits=flags("", "z", True), bare=False),
    "watchexec": ALWAYS, "watchman-make": ALWAYS, "when-changed": NEEDS,
    "fswatch": unless(exits=flags("one-event", "1"), bare=False), "inotifywait": watch("monitor", "m", True),
    "nc": watch("listen", "l", True), "ncat": watch("listen", "l", True),
    "ping": unless(exits=flags("count deadline", "cw", bundles=True), bare=False),
    "ssh": Tool(watch=flags("", "N", True), exits=flags("", "f", True)),
    "autossh": unless(exits=flags("", "f", True), bare=False),
    **FAMILIES,
}  # fmt: skip

REPEATERS = frozenset({"watch", "watchexec", "entr", "nodemon", "rerun"})
"""Watchers that rerun the command they run forever (`watch -n1 'npm test'`)."""
ENGINES = frozenset({"docker", "podman", "nerdctl", "docker-compose", "podman-compose"})
"""Container engines: a command they run detached (`docker run -d`) does not hold the shell."""

RUNS_COMMANDS = frozenset({
    "watch", "watchexec", "entr", "nodemon", "ts-node-dev", "tsnd", "node-dev", "chokidar", "onchange",
    "when-changed", "watchmedo", "gow", "air", "reflex", "ssh", "autossh", "concurrently", "timeout",
    "gtimeout", "cargo-watch", "ptw", "node", "nodejs", "python", "ruby", "php", "iex", "rerun", "wgo",
    "supervisor", "watchfiles", "hupper",
})  # fmt: skip
"""Commands that pass the words after their first operand to the command they run: only a `--help`
before it asks them for help (`watchexec make --help` runs `make --help` on every change)."""

SHORT_INFO: dict[str, str] = {
    "nodemon": "hv", "mongod": "h", "memcached": "hV", "sidekiq": "hV", "ptw": "h", "jekyll": "hv",
    "mkdocs": "hV", "watchexec": "hV", "pytest": "hV", "ping": "hV", "ssh": "V", "tail": "", "nc": "h",
}  # fmt: skip
"""The short options that alone print help or the version (`-h`, `-v`, `-V` unless listed here)."""

# Package scripts
SERVING_WORDS = frozenset({
    "dev", "start", "serve", "server", "devserver", "watch", "preview", "develop", "storybook", "hmr",
    "live", "livereload",
})  # fmt: skip
"""A script name with one of these parts serves or watches (`dev`, `dev:web`, `web:dev`, `start-api`)."""
QUIET_VERBS = frozenset({
    "build", "test", "lint", "compile", "typecheck", "check", "format", "fmt", "clean", "gen", "generate",
    "deploy", "release",
})  # fmt: skip
"""A script name whose first part is one of these does not serve (`build:dev` builds in development
mode), unless a later part is `watch` (`test:watch`, `build:watch`)."""

NPM_SCRIPT_ACTIONS = frozenset({"run", "run-script", "rum", "urn"})
NPM_TEST = frozenset({"test", "t", "tst"})
PNPM_COMMANDS = frozenset({
    "add", "approve-builds", "audit", "bin", "cache", "cat-file", "cat-index", "catalog", "config", "c",
    "create", "dedupe", "deploy", "dlx", "doctor", "env", "exec", "fetch", "find-hash", "help",
    "ignored-builds", "import", "i", "install", "install-test", "it", "init", "licenses", "link", "ln",
    "list", "ls", "ll", "la", "outdated", "pack", "patch", "patch-commit", "patch-remove", "prune",
    "publish", "rb", "rebuild", "remove", "rm", "uninstall", "un", "uni", "root", "sbom", "self-update",
    "server", "setup", "store", "unlink", "dislink", "update", "up", "upgrade", "why", "access", "adduser",
    "bugs", "deprecate", "dist-tag", "docs", "edit", "info", "login", "logout", "owner", "ping", "prefix",
    "profile", "pkg", "repo", "s", "se", "search", "set-script", "show", "star", "stars", "team", "token",
    "unpublish", "unstar", "v", "version", "view", "whoami", "xmas", "stop",
})  # fmt: skip
"""pnpm's own commands and the ones it hands to npm; any other word runs a script or a binary."""
YARN_COMMANDS = frozenset({
    "add", "audit", "autoclean", "bin", "cache", "check", "config", "constraints", "create", "dedupe",
    "dlx", "exec", "explain", "generate-lock-entry", "global", "help", "import", "info", "init", "install",
    "licenses", "link", "list", "login", "logout", "node", "npm", "outdated", "owner", "pack", "patch",
    "patch-commit", "plugin", "policies", "publish", "rebuild", "remove", "search", "set", "stage", "tag",
    "team", "unlink", "unplug", "up", "upgrade", "upgrade-interactive", "version", "versions", "why",
    "sdks", "stop",
})  # fmt: skip
BUN_COMMANDS = frozenset({
    "x", "exec", "repl", "install", "i", "add", "a", "remove", "rm", "update", "audit", "outdated", "link",
    "unlink", "publish", "patch", "patch-commit", "pm", "info", "why", "build", "init", "create", "c",
    "upgrade", "completions", "discord", "help", "pack", "getcompletes",
})  # fmt: skip
FILE = re.compile(r"/|\.[cm]?[jt]sx?$")
"""A name bun runs as a file, not a script (`bun run src/server.ts`)."""
BUN_WATCH = flags("watch hot")
DENO_WATCH = flags("watch watch-hmr hmr unstable-hmr")

_NPM = tool_spec("npm")
NPM = Options(short_value=_NPM.short_value, long=_NPM.long, permute=True)
"""npm's nopt reads its options anywhere before `--`, after the script name too (`npm run dev -w web`)."""
_PNPM = tool_spec("pnpm")
PNPM_RUN = Options(
    short_value="CF",
    long={**_PNPM.long, **long_options(
        "resume-from=", "workspace-concurrency=", "reporter-hide-prefix", "report-summary", "parallel",
        "sequential", "stream", "no-bail", "bail", "if-present", "shell-mode", "reverse", "sort",
    )},
    permute=False,
)  # fmt: skip
"""`pnpm run`'s options, before the script name (pnpm passes the words after it to the script)."""
YARN_RUN = Options(
    short_value="", long=long_options("inspect?", "inspect-brk?", "require=", "top-level", "binaries-only"),
    permute=False, abbreviate=False,
)  # fmt: skip
YARN_FOREACH = Options(
    short_value="j",
    long=long_options(
        "from=", "jobs=", "include=", "exclude=", "since?", "all", "recursive", "worktree", "verbose",
        "parallel", "interlaced", "topological", "topological-dev", "no-private", "dry-run",
    ),
    permute=False, abbreviate=False,
)  # fmt: skip
DENO_TASK = Options(
    short_value="cfL",
    long=long_options(
        "config=", "cwd=", "filter=", "log-level=", "frozen?", "lock?", "node-modules-dir?", "env-file?",
        "eval", "recursive", "tunnel", "no-lock", "no-config", "quiet", "unstable",
    ),
    permute=False, abbreviate=False,
)  # fmt: skip
"""`deno task`'s options (docs.deno.com/runtime/reference/cli/task), before the task name."""
TURBO = Options(
    short_value="F",
    long=long_options(
        "filter=", "cache-dir=", "concurrency=", "log-order=", "output-logs=", "cwd=", "heap=", "profile=",
        "team=", "token=", "api=", "env-mode=", "cache=", "ui=", "log-prefix=", "remote-cache-timeout=",
        "cache-workers=", "global-deps=", "graph?", "summarize?", "dry?", "dry-run?",
    ),
)  # fmt: skip
NX = Options(
    short_value="tpc",
    long=long_options(
        "target=", "targets=", "projects=", "configuration=", "exclude=", "base=", "head=", "files=",
        "output-style=", "file=", "parallel?", "view=", "focus=", "groupByFolder", "watch", "print",
    ),
)  # fmt: skip
NPM_RUN_ALL = Options(long=long_options("max-parallel=", "npm-path="))
CONCURRENTLY_SHORTCUTS = ("npm:", "yarn:", "pnpm:", "bun:", "deno:", "node:")
MAVEN_GOALS = frozenset({
    "spring-boot:run", "quarkus:dev", "jetty:run", "jetty:run-war", "tomcat:run", "tomcat7:run",
    "liberty:dev", "liberty:run", "wildfly:run", "micronaut:run", "cargo:run", "vertx:run",
})  # fmt: skip
GRADLE_TASKS = frozenset({"bootRun", "quarkusDev", "appRun", "appStart", "jettyRun", "tomcatRun"})
GRADLE_WATCH = flags("continuous", "t")
PYTHON = Options(
    short_value="cmWXQ", long=long_options("check-hash-based-pycs=", "help-env", "help-xoptions", "help-all"),
    permute=False,
)  # fmt: skip
PHP = Options(short_value="cdfrtzBRFES", permute=False)
RUBY = Options(short_value="eIrCEFx", permute=False)
NODE = Options(
    short_value="eprC",
    long=long_options(
        "eval=", "print=", "require=", "import=", "loader=", "experimental-loader=", "conditions=",
        "env-file=", "input-type=", "watch-path=", "title=", "inspect?", "inspect-brk?",
    ),
    permute=False,
)  # fmt: skip
COMPOSE_UP = Options(
    short_value="t",
    long=long_options(
        "timeout=", "scale=", "exit-code-from=", "attach=", "no-attach=", "pull=", "wait-timeout=", "detach",
        "wait", "no-start", "abort-on-container-exit",
    ),
)  # fmt: skip
"""`compose up`'s options, as far as where `-d` is: its flags bundle (`-dV`)."""
COMPOSE_UP_EXITS = ("--no-start", "--abort-on-container-exit", "--exit-code-from")
"""`compose up` options that end it when the containers do (or start none)."""
TURBO_COMMANDS = frozenset({
    "watch", "devtools", "prune", "login", "logout", "link", "unlink", "gen", "generate", "info", "ls",
    "query", "daemon", "telemetry", "bin", "completion", "scan", "boundaries", "help",
})  # fmt: skip
"""turbo's own commands (`watch` and `devtools` never exit); any other word is a task (`turbo dev`)."""
NX_COMMANDS = frozenset({
    "add", "generate", "g", "migrate", "init", "list", "report", "reset", "show", "sync", "sync:check",
    "release", "format", "format:check", "format:write", "exec", "daemon", "connect", "connect-to-nx-cloud",
    "repair", "view-logs", "import", "login", "logout", "record", "fix-ci", "mcp", "print-affected",
})  # fmt: skip
"""nx's own commands; any other word is a target (`nx serve web`, `nx web:serve`)."""
COMPOSER = Options(short_value="d", long=long_options("working-dir="))
"""composer's global options that take a value (getcomposer.org/doc/03-cli.md)."""
COMPOSER_RUN = Options(long=long_options("timeout=", "dev", "no-dev", "list"), permute=False)
COMPOSER_COMMANDS = frozenset({
    "about", "archive", "audit", "browse", "home", "bump", "check-platform-reqs", "clear-cache",
    "clearcache", "cc", "config", "create-project", "depends", "why", "diagnose", "dump-autoload",
    "dumpautoload", "exec", "fund", "global", "help", "init", "install", "i", "licenses", "list",
    "outdated", "prohibits", "why-not", "reinstall", "remove", "rm", "uninstall", "require", "r",
    "search", "self-update", "selfupdate", "show", "info", "status", "suggests", "update", "u", "upgrade",
    "validate",
})  # fmt: skip
"""composer's own commands; any other word runs a script of composer.json (`composer dev`)."""
