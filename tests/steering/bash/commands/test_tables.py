"""The option tables: past every option that takes a value, each runner's inner command is found exactly,
as the real tool reads the line; a long option is abbreviated only for the tools that accept it."""

from __future__ import annotations

import pytest

from rein.steering.bash import Word
from rein.steering.bash.commands._feeder_tables import FIND_PRIMARIES
from rein.steering.bash.commands._git_options import GIT_BUILTINS, GIT_GLOBAL, git_spec
from rein.steering.bash.commands._js_tables import NPM_ALIASES
from rein.steering.bash.commands._options import Options, Parsed, parse
from rein.steering.bash.commands._tables import TOOL_OPTIONS, spec, spec_for
from tests.steering.bash.helpers import run

PUSH = "git push -f"


def words(text: str) -> tuple[Word, ...]:
    return tuple(Word.literal(word) for word in text.split())


def located(source: str) -> list[str]:
    """The commands a one-command line runs, each as its argv joined; a command found only by the
    fallback that checks every suffix of the arguments is marked so."""
    analysis = run(source)
    assert analysis.problems == ()
    return [
        " ".join(word.value for word in ref.argv) + (" (suffix)" if ref.via == "argv suffix" else "")
        for ref in analysis.refs[1:]
    ]


@pytest.mark.parametrize(
    "source",
    [
        # privilege and process wrappers
        f"sudo -u root -g wheel {PUSH}",
        f"sudo -D /tmp -C 4 -p prompt -T 5m -R /chroot {PUSH}",
        f"sudo -h host {PUSH}",
        f"doas -u root {PUSH}",
        f"env -u HOME -C /tmp A=1 {PUSH}",
        f"env -a name --unset=HOME {PUSH}",
        f"exec -a name {PUSH}",
        f"/usr/bin/time -f %e -o out.txt {PUSH}",
        f"timeout -s KILL -k 5 10 {PUSH}",
        f"timeout --signal KILL --kill-after 5 10 {PUSH}",
        f"nice -n 5 {PUSH}",
        f"ionice -c 2 -n 7 {PUSH}",
        f"chrt -T 1 -P 2 -D 3 --deadline 0 {PUSH}",
        f"taskset -c 0-3 {PUSH}",
        f"stdbuf -o L -e 0 {PUSH}",
        f"setsid -w {PUSH}",
        f"pkexec --user root --keep-cwd {PUSH}",
        f"chroot --userspec 1000:1000 --groups wheel / {PUSH}",
        f"nohup {PUSH}",
        f"unbuffer -p {PUSH}",
        f"runuser -u root -g wheel -- {PUSH}",
        f"watch -n 5 -q 3 -s dir -x {PUSH}",
        f"flock -w 10 -E 3 /tmp/lock {PUSH}",
        f"flock --conflict-exit-code 3 /tmp/lock -c '{PUSH}'",
        f"script -q -E never -c '{PUSH}' /dev/null",
        f"ssh -p 22 -i key -J jump -o BatchMode=yes host {PUSH}",
        # feeders
        f"xargs -n 1 -P 4 {PUSH}",
        f"xargs -I % -d , -a list -s 99 {PUSH}",
        f"find . -name '*.py' -newermt 2020-01-01 -fprintf out '%p' -exec {PUSH} ';'",
        f"watchexec -w src -e py -E A=1 --stop-timeout 5 -- {PUSH}",
        # package managers and environments
        f"npx -p pkg@1 {PUSH}",
        f"npx --yes --loglevel silent --package pkg {PUSH}",
        f"npm --prefix /x exec -w web -- {PUSH}",
        f"pnpm --filter web -C /x exec {PUSH}",
        f"pnpm dlx --package pkg --allow-build esbuild {PUSH}",
        f"yarn --cwd /x --cache-folder /c dlx -p pkg {PUSH}",
        f"bun --cwd /x -r ./setup.ts x {PUSH}",
        f"bunx -p pkg --bun {PUSH}",
        f"uv --directory /x run --with requests --python 3.12 {PUSH}",
        f"uv run -p 3.12 -w requests --extra dev --group lint --env-file .env {PUSH}",
        f"uv tool run --from pkg {PUSH}",
        f"uvx --from pkg -p 3.12 --with extra {PUSH}",
        f"pipx run --spec pkg --python python3 --pip-args=--pre {PUSH}",
        f"poetry run {PUSH}",
        f"pdm run -p /x -k post --venv in-project {PUSH}",
        f"conda run -n env --cwd /x {PUSH}",
        f"mamba run -p /envs/x {PUSH}",
        f"bundle exec --gemfile Gemfile {PUSH}",
        f"devbox run -c /x -e A=1 --environment prod {PUSH}",
        f"nix-shell -A shell -o out --run '{PUSH}'",
        # containers and remote machines
        f"docker exec -u root -w /tmp app {PUSH}",
        f"docker -H tcp://h:2375 --context prod exec -it -e A=1 --env-file f app {PUSH}",
        f"docker run --rm -v /a:/b -p 80:80 --name x --network host -h host -m 1g img {PUSH}",
        f"docker create --name x -l a=b img {PUSH}",
        f"docker container run -w /x --cpus 2 img {PUSH}",
        f"docker container exec --user root app {PUSH}",
        f"docker compose -f a.yml -p proj run --rm -e A=1 -v /a:/b web {PUSH}",
        f"docker compose --profile dev exec -u root -w /x --index 2 web {PUSH}",
        f"podman --root /r run --log-level debug --pod p --uidmap 0:1:1 img {PUSH}",
        f"podman exec --preserve-fds 2 -u root app {PUSH}",
        f"podman --connection remote container exec app {PUSH}",
        f"nerdctl -n k8s.io run --snapshotter stargz -v /a:/b img {PUSH}",
        f"nerdctl exec -w /x app {PUSH}",
        f"nerdctl compose -f a.yml run -v /a:/b web {PUSH}",
        f"kubectl exec -n ns -c app pod -- {PUSH}",
        f"kubectl exec --namespace=ns --context prod -c app -i pod -- {PUSH}",
        f"heroku run -a app -s standard-2x -e A=1 {PUSH}",
        f"heroku run:detached --app app --type worker {PUSH}",
    ],
)
def test_the_inner_command_is_found_past_options_that_take_a_value(source: str) -> None:
    found = located(source)
    assert len(found) == 1 and found[0].removesuffix(" {}") == PUSH, found


@pytest.mark.parametrize(
    "source",
    [
        # getopt_long and sudo take a unique prefix of a long option
        f"sudo --us=root --chd /tmp {PUSH}",
        f"env --chd=/tmp --unse HOME {PUSH}",
        f"timeout --sig=KILL --kill 5 10 {PUSH}",
        f"nice --adj 5 {PUSH}",
        f"ionice --classd 7 {PUSH}",
        f"stdbuf --out L {PUSH}",
        f"chroot --users 0:0 / {PUSH}",
        f"/usr/bin/time --outp out.txt --form %e {PUSH}",
        f"runuser --us root -- {PUSH}",
        f"flock --tim 10 /tmp/lock {PUSH}",
        f"watch --interv 1 --exe {PUSH}",
        f"xargs --max-p 4 --max-a 1 {PUSH}",
        # GNU parallel (Getopt::Long), npm and pnpm (nopt), argparse tools
        f"parallel --jobl log --colse , {PUSH} ::: a",
        f"npm --prefi /x exec -- {PUSH}",
        f"pnpm --di /x exec {PUSH}",
        f"pipx run --spe pkg {PUSH}",
        f"pdm run --proj /x {PUSH}",
        f"conda run --na env {PUSH}",
    ],
)
def test_tools_that_take_abbreviations_read_them(source: str) -> None:
    found = located(source)
    assert len(found) == 1 and found[0].removesuffix(" {}").removesuffix(" a") == PUSH, found


@pytest.mark.parametrize(
    ("key", "line"),
    [
        # cobra/pflag, clap, oclif, commander, zig-clap, Thor and exact-match parsers take the full name
        ("docker exec", "--us root app"),
        ("docker run", "--entry sh img"),
        ("podman run", "--pod-id x img"),
        ("nerdctl exec", "--work /x app"),
        ("docker compose run", "--ent sh web"),
        ("kubectl exec", "--names ns pod"),
        ("uv run", "--wit requests x"),
        ("uvx", "--fro pkg x"),
        ("yarn", "--cw /x dlx"),
        ("bun", "--cw /x x"),
        ("bunx", "--pack pkg x"),
        ("npx", "--pack pkg x"),
        ("heroku run", "--ap app x"),
        ("watchexec", "--wat src x"),
        ("devbox run", "--conf c x"),
        ("bundle exec", "--gem g x"),
        ("pkexec", "--us root x"),
        ("deno", "--log debug task"),
    ],
)
def test_tools_without_abbreviations_report_a_prefix_as_unknown(key: str, line: str) -> None:
    parsed = parse(words(line), 0, spec(key))
    assert parsed.unknown == (line.split(maxsplit=1)[0],)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # an ambiguous prefix is an error for the tool; rein checks every suffix instead
        (f"pipx run --py python3 {PUSH}", [f"python3 {PUSH} (suffix)", f"{PUSH} (suffix)"]),
        (f"docker exec --us root app {PUSH}", [f"{PUSH} (suffix)"]),
        # npm exec and npx: the package's binary runs, its version and scope dropped
        ("npx -p pkg @scope/tool@2 --flag", ["tool --flag"]),
        # uv run -m: the module is the first operand
        ("uv run --with x -m http.server", ["http.server"]),
        # `pnpm exec` reads no option after `exec`; a leading `--` is dropped
        (f"pnpm exec -- {PUSH}", [PUSH]),
        # hatch run: the environment prefix is no part of the command
        (f"hatch run test:{PUSH}", [PUSH]),
    ],
)
def test_what_runs_when_the_options_are_unusual(source: str, expected: list[str]) -> None:
    assert located(source) == expected


RUNNER_KEYS = (
    *("sudo", "doas", "env", "exec", "time", "timeout", "nice", "nohup", "ionice", "chrt", "taskset"),
    *("stdbuf", "unbuffer", "setsid", "pkexec", "chroot", "watch", "flock", "ssh", "runuser", "xargs"),
    *("parallel", "watchexec", "heroku run", "npm", "npx", "pnpm", "pnpm exec", "pnpm dlx", "yarn"),
    *("yarn dlx", "bun", "bunx", "deno", "uv", "uv run", "uvx", "pipx run", "poetry run", "pdm run"),
    *("conda run", "hatch run", "bundle exec", "devbox run", "kubectl exec", "oc rsh", "podman unshare"),
    *("volta run", "rustup run", "mise exec", "fnm exec", "pipenv run", "brew", "brew bundle exec", "tmux"),
    *("tmux new-session", "tmux send-keys", "tmux run-shell", "yarn workspaces foreach"),
    *(
        f"{engine}{sub}"
        for engine in ("docker", "podman", "nerdctl")
        for sub in ("", " run", " create", " exec", " container run", " container exec")
    ),
    *(
        f"{engine} compose{sub}"
        for engine in ("docker", "podman", "nerdctl")
        for sub in ("", " run", " exec")
    ),
)
"""The keys the handlers pass to `spec`: each runs what follows its options, so its options end at its
first operand."""


@pytest.mark.parametrize("key", RUNNER_KEYS)
def test_every_key_a_handler_asks_for_has_a_table(key: str) -> None:
    assert key in TOOL_OPTIONS
    assert not TOOL_OPTIONS[key].permute


def test_tables_that_read_operands_first_permute() -> None:
    assert (
        spec("make").permute and spec("nix-shell").permute and spec("rm").permute and spec("script").permute
    )
    permuting = ("split", "sort", "psql", "su", "gh alias set", "firebase emulators:exec", "brew sh")
    assert all(spec(key).permute for key in permuting)
    assert spec("no-such-runner") == Options(permute=False, abbreviate=False)
    assert spec_for("rm") is TOOL_OPTIONS["rm"] and spec_for("sudo") is None


def test_kubectl_global_options_end_at_the_subcommand() -> None:
    parsed = parse(words("-n ns --context prod -v 4 exec pod -- ls"), 0, spec("kubectl"))
    assert parsed.rest == 6 and parsed.unknown == ()


def options_of(parsed: Parsed) -> list[tuple[str, str | None]]:
    return [(name, value.value if value is not None else None) for name, value in parsed.options]


@pytest.mark.parametrize(
    ("line", "options", "operands"),
    [
        (
            "push --force-with-lease=main:abc --recurse-submodules check -o ci.skip origin main",
            [("--force-with-lease", "main:abc"), ("--recurse-submodules", "check"), ("-o", "ci.skip")],
            ["origin", "main"],
        ),
        (
            "push --no-verify --no-recurse-submodules -f",
            [("--no-verify", None), ("--no-recurse-submodules", None), ("-f", None)],
            [],
        ),
        ("push --force-w origin", [("--force-with-lease", None)], ["origin"]),
        ("reset --har HEAD~1", [("--hard", None)], ["HEAD~1"]),
        ("clean -e keep -fdx", [("-e", "keep"), ("-f", None), ("-d", None), ("-x", None)], []),
        ("checkout -b new -t origin/main", [("-b", "new"), ("-t", None)], ["origin/main"]),
        ("switch -c new --track=direct origin/x", [("-c", "new"), ("--track", "direct")], ["origin/x"]),
        ("restore -s HEAD~ --staged f", [("-s", "HEAD~"), ("--staged", None)], ["f"]),
        (
            "branch --contains abc --merged main -u up",
            [("--contains", "abc"), ("--merged", "main"), ("-u", "up")],
            [],
        ),
        ("stash push -m msg -- f", [("-m", "msg")], ["push", "f"]),
        (
            "rebase -x make --onto main -S topic",
            [("-x", "make"), ("--onto", "main"), ("-S", None)],
            ["topic"],
        ),
        (
            "commit -S -u -m msg --fixup=abc -C HEAD",
            [("-S", None), ("-u", None), ("-m", "msg"), ("--fixup", "abc"), ("-C", "HEAD")],
            [],
        ),
        ("commit --amen --no-verif", [("--amend", None), ("--no-verify", None)], []),
        (
            "fetch -j 4 --depth 1 --filter blob:none origin",
            [("-j", "4"), ("--depth", "1"), ("--filter", "blob:none")],
            ["origin"],
        ),
        (
            "pull --rebase=merges -j4 -X ours origin",
            [("--rebase", "merges"), ("-j", "4"), ("-X", "ours")],
            ["origin"],
        ),
        (
            "clone -b main -c a=b --depth 1 url dir",
            [("-b", "main"), ("-c", "a=b"), ("--depth", "1")],
            ["url", "dir"],
        ),
        (
            "ls-remote --upload-pack 'x' --sort=v origin",
            [("--upload-pack", "'x'"), ("--sort", "v")],
            ["origin"],
        ),
        ("difftool -x cmd --tool meld", [("-x", "cmd"), ("--tool", "meld")], []),
    ],
)
def test_git_subcommands_read_their_options_as_parse_options_does(
    line: str, options: list[tuple[str, str | None]], operands: list[str]
) -> None:
    argv = words(line)
    parsed = parse(argv, 1, git_spec(argv[0].value) or Options())
    assert parsed.unknown == ()
    assert options_of(parsed) == options
    assert [word.value for word in parsed.operands] == operands


def test_git_reports_an_ambiguous_prefix_and_its_global_options_stop_at_the_subcommand() -> None:
    push = git_spec("push")
    assert push is not None
    assert parse(words("push --forc"), 1, push).unknown == (
        "--forc (could be --force-with-lease or --force or --force-if-includes)",
    )
    parsed = parse(words("git -C /x -c a=b --git-dir .git --list-cmds=main push -f"), 1, GIT_GLOBAL)
    assert parsed.rest == 8 and options_of(parsed)[-1] == ("--list-cmds", "main")
    assert {"push", "commit", "stash", "worktree"} <= GIT_BUILTINS


def test_find_primaries_and_npm_aliases() -> None:
    assert (
        FIND_PRIMARIES["-fprintf"] == 2 and FIND_PRIMARIES["-newermt"] == 1 and "-exec" not in FIND_PRIMARIES
    )
    assert NPM_ALIASES["rum"] == "run" and NPM_ALIASES["x"] == "exec" and "ci" not in NPM_ALIASES
    assert located("npm x -- git push -f") == [PUSH]
