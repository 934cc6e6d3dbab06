"""The commands `no-dev-server` reads by their own option tables: package managers running a script
(`npm run -w web dev` runs `dev`, not `web`), task runners (`turbo dev`, `nx serve web`, `run-p dev:*`),
build tools (`mvn spring-boot:run`, `gradle -t build`, `sbt ~compile`) and container engines (`docker
logs -f`, `docker compose up`, `kubectl port-forward`).

A package manager hands its script, and the words it passes on, to a `Script` reader: a script named
after a tool is that tool (`pnpm vite`, `npm run tauri dev`), any other serves by its name.
"""

from __future__ import annotations

from collections.abc import Callable

from rein.steering._args import read
from rein.steering._defaults import _server_tables as t
from rein.steering._defaults._server_read import (
    Words,
    any_of,
    argv,
    before_dashdash,
    flag,
    maybe,
    read_both,
    readings,
    scripted,
    task,
    tool_serves,
)
from rein.steering._defaults._server_tables import TOOLS
from rein.steering._rule import Tri
from rein.steering.bash import UNKNOWN, Word
from rein.steering.bash.commands import tool_spec

Script = Callable[[Word, Words], Tri]
"""Reads a script a package manager runs and the words passed to it."""


def npm(args: Words, script: Script) -> Tri:
    return any_of(
        _npm(found.operands, found.after_dashdash, script) for found in read_both(argv("npm", args), t.NPM)
    )


def _npm(operands: Words, after: Words | None, script: Script) -> Tri:
    words = list(operands[: len(operands) - len(after or ())])
    if not words:
        return False
    head, passed = words[0], [*words[1:], *(after or ())]
    if head.dynamic:
        return maybe(head, ("run", "start", "restart", "test"))
    if head.value in ("start", "restart", *t.NPM_TEST):  # `npm restart` runs stop and start
        return script(Word.literal("start" if head.value == "restart" else head.value), passed)
    if head.value in t.NPM_SCRIPT_ACTIONS and passed:
        return script(passed[0], passed[1:])
    return False


def pnpm(args: Words, script: Script) -> Tri:
    operands = read(argv("pnpm", args), 1, tool_spec("pnpm")).operands
    if not operands or operands[0].dynamic:
        return UNKNOWN if operands else False
    action, rest = operands[0].value, operands[1:]
    if action in ("recursive", "multi", "m"):
        return pnpm(rest, script)
    if action in ("run", "run-script"):
        named = read(operands, 1, t.PNPM_RUN).operands  # pnpm passes the words after the script on
        return script(named[0], named[1:]) if named else False
    if action in ("start", "restart", *t.NPM_TEST):
        return script(Word.literal("start" if action == "restart" else action), rest)
    return False if action in t.PNPM_COMMANDS else script(operands[0], rest)  # `pnpm dev`, `pnpm vite`


def yarn(args: Words, script: Script) -> Tri:
    operands = read(argv("yarn", args), 1, tool_spec("yarn")).operands
    if not operands or operands[0].dynamic:
        return UNKNOWN if operands else False
    action, rest = operands[0].value, operands[1:]
    sub = rest[0].value if rest else ""
    if action == "run":
        named = read(operands, 1, t.YARN_RUN).operands
        return script(named[0], named[1:]) if named else False
    if action == "workspace":  # `yarn workspace web dev`
        return yarn(rest[1:], script)
    if action == "workspaces" and sub == "foreach":  # `yarn workspaces foreach -A run dev`
        return yarn(read(rest, 1, t.YARN_FOREACH).operands, script)
    if action == "workspaces" and sub == "run" and len(rest) > 1:  # yarn 1: `yarn workspaces run dev`
        return script(rest[1], rest[2:])
    return False if action in t.YARN_COMMANDS or action == "workspaces" else script(operands[0], rest)


def bun(args: Words, script: Script) -> Tri:
    if flag(args, t.BUN_WATCH):  # `bun --hot server.ts`, `bun test --watch`
        return True
    operands = read(argv("bun", args), 1, tool_spec("bun")).operands
    if operands[:1] and operands[0].value == "run":
        operands = read(operands, 1, tool_spec("bun")).operands
    elif not operands or operands[0].value in t.BUN_COMMANDS:
        return False
    if not operands or (not operands[0].dynamic and t.FILE.search(operands[0].value)):
        return False  # `bun run src/server.ts` runs a file
    return script(operands[0], operands[1:])


def deno(args: Words, script: Script) -> Tri:
    if flag(args, t.DENO_WATCH):
        return True
    operands = read(argv("deno", args), 1, tool_spec("deno")).operands
    if not operands or operands[0].dynamic:
        return maybe(operands[0], ("serve", "task")) if operands else False
    named = read(operands, 1, t.DENO_TASK)
    if operands[0].value == "serve":
        return True
    if operands[0].value != "task" or named.has("--eval") or not named.operands:
        return False
    return script(named.operands[0], named.operands[1:])


def composer(args: Words, script: Script) -> Tri:
    """`composer run dev`, `composer run-script dev`, `composer dev` (a script named as a command)."""
    operands = read(argv("composer", args), 1, t.COMPOSER).operands
    if not operands or operands[0].dynamic:
        return UNKNOWN if operands else False
    if operands[0].value in ("run", "run-script"):
        found = read(operands, 1, t.COMPOSER_RUN)
        named = found.operands
        return False if found.has("--list", "-l") or not named else script(named[0], named[1:])
    return False if operands[0].value in t.COMPOSER_COMMANDS else script(operands[0], operands[1:])


MANAGERS: dict[str, Callable[[Words, Script], Tri]] = {
    "npm": npm,
    "pnpm": pnpm,
    "yarn": yarn,
    "bun": bun,
    "deno": deno,
    "composer": composer,
}


def run_all(name: str, args: Words) -> Tri:
    """`run-p dev:*`, `npm-run-all --parallel dev:* lint`: every pattern names scripts."""
    patterns = read(argv(name, args), 1, t.NPM_RUN_ALL).operands
    return any_of(
        task(Word.literal(word.value.split()[0]) if word.value.strip() else word) for word in patterns
    )


def turbo(name: str, args: Words) -> Tri:
    """`turbo dev`, `turbo run dev build --filter web`, `turbo watch build`."""
    operands = before_dashdash(read(argv(name, args), 1, t.TURBO))
    if not operands or operands[0].dynamic:
        return UNKNOWN if operands else False
    head = operands[0].value
    if head in t.TURBO_COMMANDS:
        return head in ("watch", "devtools")
    return any_of(task(word) for word in operands[head == "run" :])


def nx(name: str, args: Words) -> Tri:
    """`nx serve web`, `nx run web:serve`, `nx run-many -t serve`, `nx build web --watch`, `nx graph`."""
    found = read(argv(name, args), 1, t.NX)
    operands = before_dashdash(found)
    if found.has("--watch"):
        return True
    if not operands or operands[0].dynamic:
        return UNKNOWN if operands else False
    head = operands[0].value
    if head in ("watch", "graph", "dep-graph"):
        return not found.has("--file", "--print")
    if head in ("run-many", "affected"):
        targets = found.values("-t", "--target", "--targets")
        return any_of(scripted(target) for word in targets for target in word.value.split(","))
    if head == "run":  # `nx run web:serve:production`
        target = operands[1].value.split(":") if len(operands) > 1 else []
        return len(target) > 1 and scripted(target[1])
    return head not in t.NX_COMMANDS and scripted(head.split(":")[-1] if ":" in head else head)


def lerna(name: str, args: Words) -> Tri:
    """`lerna run dev --stream`, `lerna run --scope web dev`, `lerna watch -- cmd`."""
    plain = readings(args)[0]
    head = args[plain[0]].value if plain else ""
    rest = args[plain[0] + 1 :] if plain else ()
    scripts = [rest[found[0]] for found in readings(rest) if found]
    if head != "run":
        return head == "watch"
    return any_of(
        UNKNOWN if word.dynamic else any_of(map(scripted, word.value.split(","))) for word in scripts
    )


def tasks(name: str, args: Words) -> Tri:
    """`gulp watch`, `grunt serve`: the tasks named, read both ways."""
    plain, skipping = readings(args)
    return any_of(task(args[index]) for index in [*plain[:1], *skipping])


def maven(name: str, args: Words) -> Tri:
    return any(word.value in t.MAVEN_GOALS for word in args)


def gradle(name: str, args: Words) -> Tri:
    names = [word.value.rpartition(":")[2] for word in args if not word.value.startswith("-")]
    return bool(flag(args, t.GRADLE_WATCH)) or any(name in t.GRADLE_TASKS for name in names)


def sbt(name: str, args: Words) -> Tri:
    return any(word.value.lstrip().startswith("~") for word in args)  # `sbt ~compile`: on every change


def engine(name: str, args: Words) -> Tri:
    """`docker logs -f`, `docker container logs -f`, `docker compose up`, `kubectl port-forward`: the
    subcommand, found with the engine's own options."""
    family = "kubectl" if name in ("kubectl", "oc") else "docker"
    operands = read(argv(name, args), 1, tool_spec(family if family == "kubectl" else name)).operands
    if family == "docker" and operands[:1] and operands[0].value in ("container", "system"):
        operands = operands[1:]
    if not operands or operands[0].dynamic:
        return False
    if family == "docker" and operands[0].value == "compose":
        return compose(f"{name} compose", operands[1:])
    if family == "docker" and operands[0].value == "run":  # `docker run -p 8080:80 nginx` serves
        found = read(operands, 1, tool_spec(f"{name} run"))
        detach = [value for option, value in found.options if option in ("-d", "--detach")]
        detached = bool(detach) and (detach[-1] is None or detach[-1].value.lower() not in t.FALSY)
        given = len(found.operands) > 1  # `docker run -p 80:80 nginx ls -l`: its own command, which exits
        return found.has("-p", "--publish", "-P", "--publish-all") and not detached and not given
    tool = TOOLS.get(f"{family} {operands[0].value}")
    return False if tool is None else tool_serves(tool, operands[1:])


def compose(key: str, args: Words) -> Tri:
    """`docker compose up` in the foreground, `compose watch`, `compose logs -f`."""
    words = read(argv("compose", args), 1, tool_spec(key)).operands
    action = words[0].value if words else ""
    if action in ("watch", "attach", "events"):
        return True
    if action in ("logs", "stats"):
        return tool_serves(TOOLS[f"docker {action}"], words[1:])
    up = read(words, 1, t.COMPOSE_UP)
    return action == "up" and not up.has("-d", "--detach", "--wait", *t.COMPOSE_UP_EXITS)


RUNNERS: dict[str, Callable[[str, Words], Tri]] = {
    "run-p": run_all, "run-s": run_all, "npm-run-all": run_all, "turbo": turbo, "nx": nx, "lerna": lerna,
    "gulp": tasks, "grunt": tasks, "mvn": maven, "mvnw": maven, "gradle": gradle, "gradlew": gradle,
    "sbt": sbt, "docker": engine, "podman": engine, "nerdctl": engine, "kubectl": engine, "oc": engine,
    "docker-compose": lambda name, args: compose("docker compose", args),
    "podman-compose": lambda name, args: compose("docker compose", args),
}  # fmt: skip
"""Task runners, build tools and engines by command name."""
