"""`no-dev-server` read as each tool reads its words: watch flags, script names, the subcommand read two
ways, the wrappers that bound or rerun a command, and a script name rein cannot read."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rein.steering._defaults._server_read import flag, readings, scripted
from rein.steering._defaults._server_tables import TOOLS, flags
from rein.steering._defaults._servers import COMMANDS, dev_server
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
    assert dev_server(_ref("date", ("watch",)), context) is True  # watch reruns it forever
    assert dev_server(_ref("date", ("timeout", "watch")), context) is False
    assert dev_server(_ref("date", ("watch", "timeout")), context) is True


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
        assert tool.serves or tool.quiet is not None or tool.watch.longs or tool.watch.shorts, key
