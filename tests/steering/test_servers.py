"""`no-dev-server` read as each tool reads its words: watch flags, script names, the subcommand read two
ways, the wrappers that bound or rerun a command, a script name rein cannot read, globs (read by their
pattern), the subcommands and options of a server that exit, and tools rein does not know (read by
their options)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rein.steering._defaults._server_kit import EXITS
from rein.steering._defaults._server_read import flag, readings, scripted
from rein.steering._defaults._server_rules import dev_server
from rein.steering._defaults._server_tables import TOOLS, flags
from rein.steering._defaults._server_words import lead, may_be, pattern
from rein.steering._defaults._servers import COMMANDS
from rein.steering.bash import UNKNOWN, CommandRef, Word, analyze
from tests.steering.conftest import CWD, HOME, Check, make_context


def _words(line: str) -> list[Word]:
    return [Word.literal(word) for word in line.split()]


def _ref(line: str, wrappers: tuple[str, ...] = ()) -> CommandRef:
    ref = analyze(line, cwd=CWD, home=HOME, known=COMMANDS).refs[0]
    return replace(ref, wrappers=wrappers)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("--watch", True),
        ("--watch=src", True),
        ("--watch=false", False),
        ("--watch=0", False),
        ("--no-watch", False),
        ("--watchman=false", None),
        ("--watch-poll", None),
        ("-w", True),
        ("-cw", True),
        ("-wc", True),
        ("-watch", True),
        ("-w4", True),
        ("-x", None),
        ("-- --watch", None),
        ("--watch=false --watch", True),
    ],
)
def test_a_watch_flag_is_one_the_tool_reads_as_watch(line: str, expected: bool | None) -> None:
    assert flag(_words(line), flags("watch", "w", bundles=True)) is expected


def test_short_flags_count_only_for_the_tools_that_have_them() -> None:
    assert flag(_words("-w 4"), TOOLS["jest"].watch) is None  # maxWorkers
    assert flag(_words("-w"), TOOLS["tsc"].watch) is True
    assert flag(_words("-newLine lf"), TOOLS["tsc"].watch) is None  # tsc does not bundle
    assert flag(_words("-cw"), TOOLS["rollup"].watch) is True


@pytest.mark.parametrize(
    ("name", "serves"),
    [
        ("dev", True),
        ("dev:web", True),
        ("web:dev", True),
        ("start-api", True),
        ("server", True),
        ("/^watch:/", True),
        ("dev:*", True),
        ("build:dev", False),
        ("deploy:preview", False),
        ("test:watch", True),
        ("build:watch", True),
        ("build", False),
        ("test:unit", False),
        ("lint", False),
        ("docs:build", False),
        ("e2e", False),
    ],
)
def test_a_script_serves_by_its_name(name: str, serves: bool) -> None:
    assert scripted(name) is serves


def test_the_subcommand_is_read_both_ways() -> None:
    plain, skipping = readings(_words("--app app run --debug"))
    assert (plain, skipping) == ([1, 2], [2])
    assert readings(_words("--port=3000 build -- serve")) == ([1], [1])


def test_a_script_name_rein_cannot_read_is_unknown() -> None:
    assert dev_server(_ref('npm run "$SCRIPT"'), make_context()) is UNKNOWN
    assert dev_server(_ref("pnpm $TASK"), make_context()) is UNKNOWN


def test_a_wrapper_that_bounds_or_detaches_comes_before_a_watcher() -> None:
    context = make_context()
    assert dev_server(_ref("npm run dev", ("timeout",)), context) is False
    assert dev_server(_ref("npm run dev", ("docker run -d",)), context) is False
    assert dev_server(_ref("npm run dev", ("podman run --detach",)), context) is False
    assert dev_server(_ref("npm run dev", ("nohup",)), context) is True
    assert dev_server(_ref("npm test", ("watch",)), context) is True  # watch reruns it forever
    assert dev_server(_ref("npm test", ("timeout", "watch")), context) is False
    assert dev_server(_ref("npm test", ("watch", "timeout")), context) is True
    assert dev_server(_ref("date", ("watch",)), context) is False  # `watch date` itself is read instead


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("watch -n 1 git push --force", "no-force-push"),
        ("watchexec -e py -- git reset --hard", "no-reset-hard"),
        ("watch -n1 date", "no-dev-server"),
        ("watch -n2 'npm test'", "no-dev-server"),
    ],
)
def test_a_watcher_leaves_the_verdict_to_the_rules_about_what_it_reruns(
    check: Check, command: str, rule: str
) -> None:
    verdict = check(command)
    assert not verdict.allow and verdict.rule == rule, verdict.reason


def test_every_tool_in_the_tables_is_on_the_rules_list() -> None:
    names = {key.split()[0].rpartition("/")[2] for key in TOOLS}
    assert names - COMMANDS == {"console"}  # read through `php bin/console`
    for key, tool in TOOLS.items():
        serving = tool.serves or tool.quiet is not None or tool.watch.longs or tool.watch.shorts
        assert serving or tool is EXITS, key


def _word(line: str) -> Word:
    return analyze(f"true {line}", cwd=CWD, home=HOME).refs[0].argv[1]


@pytest.mark.parametrize(
    ("text", "glob", "leading"),
    [
        ("tests/unit/test_*.py", "tests/unit/test_*.py", "tests/unit/test_"),
        ("tests/a.py::test_b[2]", "tests/a.py::test_b[2]", "tests/a.py::test_b"),
        ('"src"/*.ts', "src/*.ts", "src/"),
        ("*", "*", ""),
        ("--w*", "--w*", "--w"),
        ("$X", None, ""),
        ("--watch=$W", None, "--watch="),
    ],
)
def test_a_glob_is_read_by_its_pattern_and_leading_text(text: str, glob: str | None, leading: str) -> None:
    word = _word(text)
    assert (pattern(word), lead(word)) == (glob, leading)


@pytest.mark.parametrize(
    ("text", "may"),
    [
        ("tests/unit/test_*.py", False),  # a literal path before the glob: never an option
        ("src/**/*.test.js", False),
        ("*.ts", False),  # matches `-w.ts` at most, which is no option
        ("*", True),  # a file named `--watch` would do
        ("--w*", True),
        ("-?", False),  # jest has no short watch option; tsc's `-w` it may be
        ("$X", True),
        ("--watch=$W", True),
        ("src/$F", False),
    ],
)
def test_a_dynamic_word_may_be_the_watch_option_only_where_its_text_allows(text: str, may: bool) -> None:
    assert may_be(_word(text), (), TOOLS["jest"].watch) is may


def test_a_short_glob_may_be_a_short_watch_option() -> None:
    assert may_be(_word("-?"), (), TOOLS["tsc"].watch) is True
    assert may_be(_word("-?"), ("serve",), None) is False


@pytest.mark.parametrize(
    ("command", "blocked"),
    [
        ("pytest tests/unit/test_*.py", False),
        ("pytest tests/a.py::test_b[2]", False),
        ("npx vitest run src/*.spec.ts", False),
        ("jest src/**/*.test.js", False),
        ("tsc src/*.ts", False),
        ("jest *", True),
        ("jest $X", True),
        ("jest --$MODE", True),
        ("jest --watch=$W", True),
        ("vite *", True),  # `*` may expand to `build`, or not
        ("vite src/*", True),  # a root to serve, never `build`
    ],
)
def test_a_glob_in_a_runners_arguments_is_no_watch_flag(check: Check, command: str, blocked: bool) -> None:
    verdict = check(command)
    assert verdict.allow is not blocked, verdict.reason
    assert blocked is False or verdict.rule == "no-dev-server"


@pytest.mark.parametrize(
    "command",
    [
        "jupyter notebook list",
        "jupyter lab build",
        "jupyter notebook --generate-config",
        "jupyter server list",
        "jupyter-lab --version",
        "jupyter lab clean",
        "gunicorn --check-config app:app",
        "gunicorn --print-config app:app",
        "uvicorn --help",
        "flask routes",
        "django-admin check",
        "puma --version",
        "redis-server --version",
        "redis-server --test-memory 64",
        "mongod --version",
        "mysqld --initialize-insecure",
        "postgres -C max_connections -D data",
        "nginx -t",
        "caddy validate",
        "cargo watch --help",
        "pm2 list",
        "forever list",
        "reflex init",
        "modd -p",
        "containerd config default",
        "traefik version",
        "influxd version",
        "appium driver install uiautomator2",
        "code-server --install-extension ms-python.python",
    ],
)
def test_a_server_tools_subcommands_and_options_that_exit_run(check: Check, command: str) -> None:
    verdict = check(command)
    assert verdict.allow, verdict.reason


@pytest.mark.parametrize(
    ("command", "blocked"),
    [
        ("jupyter lab", True),
        ("jupyter lab notebooks/analysis.ipynb", True),
        ("jupyter lab $DIR", True),
        ("jupyter kernel --kernel=python3", True),
        ("jupyter-lab", True),
        ("jupyter-lab build", False),
    ],
)
def test_jupyter_serves_unless_told_a_subcommand_that_exits(
    check: Check, command: str, blocked: bool
) -> None:
    assert check(command).allow is not blocked


@pytest.mark.parametrize(
    ("command", "blocked"),
    [
        ("mytool --watch", True),
        ("./scripts/dev.sh --reload", True),
        ("mytool --serve --port 8080", True),
        ("mytool --hot", True),
        ("mytool --livereload", True),
        ("aws-thing tail --follow", True),
        ("mytool --watch=false", False),
        ("mytool --no-watch", False),
        ("mytool --watch --help", False),
        ("mytool -- --watch", False),
        ("mytool serve", False),  # a tool that serves by default, named in an unknown command's arguments
        ("jj next", False),  # is too weak a guess (`next` is also Next.js)
        ("mpc next", False),
        ("mytool next dev", False),
        ("mytool start", False),  # `start` serves only for the tools known to serve
        ("mytool --live", False),  # `virsh migrate --live` ends
        ("firewall-cmd --reload", False),
        ("http --follow GET example.com", False),
        ("prlimit --nofile=64 redis-server", False),  # a guess: rein does not know prlimit runs it
        ("mprocs 'redis-server --port 6380'", False),
        ("mprocs 'npm run dev'", True),  # a guess with a serving word of its own
        ("mprocs 'redis-server --daemonize yes'", False),
    ],
)
def test_a_tool_rein_does_not_know_is_read_by_its_options(check: Check, command: str, blocked: bool) -> None:
    verdict = check(command)
    assert verdict.allow is not blocked, verdict.reason


def test_an_inert_command_is_never_read_by_its_options(check: Check) -> None:
    assert check("echo --watch --reload").allow
    assert check("grep -rn -- --watch src").allow


@pytest.mark.parametrize(
    ("command", "blocked"),
    [
        ("sleep 7200", True),
        ("sleep 1h", True),
        ("sleep 1800 1800", True),
        ("sleep 59m", False),
        ("sleep 30", False),
        ("sleep $DELAY", False),
    ],
)
def test_a_sleep_past_any_time_limit_never_ends_for_the_agent(
    check: Check, command: str, blocked: bool
) -> None:
    assert check(command).allow is not blocked
