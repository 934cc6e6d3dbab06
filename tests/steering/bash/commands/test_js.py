"""JavaScript package managers: `yarn exec`/`bun exec` shell lines, `pnpm -c exec`, `npm explore`, `yarn
workspaces foreach`, a word that is no command of pnpm's or bun's, and the package scripts of a
package.json the line wrote (or changed with content rein cannot know)."""

from __future__ import annotations

import pytest

from tests.steering.bash.commands._runs import chains, inner, unknown
from tests.steering.bash.helpers import CWD, run
from tests.steering.conftest import Check

PUSH = "git push -f"
WROTE = f"""echo '{{"scripts":{{"x":"{PUSH}","prex":"echo pre","y":"echo y"}}}}' > package.json"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"yarn exec '{PUSH}'", [(PUSH, ("yarn exec",))]),
        (f"yarn exec {PUSH}", [(PUSH, ("yarn exec",)), (PUSH, ("yarn exec",))]),  # as written, and as joined
        (f"bun exec '{PUSH}'", [(PUSH, ("bun exec",))]),
        (f"pnpm --shell-mode exec '{PUSH}'", [(PUSH, ("pnpm exec",))]),
        (f"pnpm -c exec -- '{PUSH}'", [(PUSH, ("pnpm exec",))]),
        (f"npm explore lodash -- {PUSH}", [(PUSH, ("npm explore",))]),
        (f"pnpm {PUSH}", [(PUSH, ("pnpm",))]),
        (f"pnpm --filter web {PUSH}", [(PUSH, ("pnpm",))]),
        (f"bun {PUSH}", [(PUSH, ("bun",))]),
        ("pnpm vite --port 3000", [("vite --port 3000", ("pnpm",))]),
        ("bun next dev", [("next dev", ("bun",))]),
        (
            f"yarn workspaces foreach -A --include web exec {PUSH}",
            [
                (f"yarn exec {PUSH}", ("yarn workspaces foreach",)),
                (PUSH, ("yarn workspaces foreach", "yarn exec")),
                (PUSH, ("yarn workspaces foreach", "yarn exec")),
            ],
        ),
    ],
)
def test_what_a_package_manager_runs(source: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert chains(source) == expected


def test_npm_explore_runs_in_the_package() -> None:
    (ref,) = [ref for ref in run("npm explore lodash -- ls").refs if ref.wrappers]
    assert ref.state.cwd == f"{CWD}/node_modules/lodash"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"{WROTE} && npm run x", ["echo pre", PUSH]),
        (f"{WROTE} && npm run-script x -- --flag", ["echo pre", f"{PUSH} --flag"]),
        (f"{WROTE} && npm run y", ["echo y"]),
        (f"{WROTE} && npm run z", []),
        (f"{WROTE} && yarn x", ["echo pre", PUSH]),
        (f"{WROTE} && yarn run x", ["echo pre", PUSH]),
        (f"{WROTE} && pnpm x", ["echo pre", PUSH]),
        (f"{WROTE} && pnpm run --if-present x", ["echo pre", PUSH]),
        (f"{WROTE} && bun run x", ["echo pre", PUSH]),
        (f"{WROTE} && bun x", []),  # bunx, not a script
        (f"mkdir a && cd a && {WROTE} && npm run x", ["echo pre", PUSH]),
        (f"mkdir a && cd a && {WROTE} && cd .. && npm --prefix a run x", ["echo pre", PUSH]),
        (f"{WROTE.replace('package.json', 'other.json')} && npm run x", []),
        (
            f"mkdir -p w/web && {WROTE.replace('package.json', 'w/web/package.json')} && npm -w web run x",
            ["echo pre", PUSH],
        ),
        (
            f"mkdir -p w/web && {WROTE.replace('package.json', 'w/web/package.json')} && pnpm -r x",
            ["echo pre", PUSH],
        ),
        ("""echo '{"scripts":{"test":"rm -rf ~"}}' > package.json && npm t""", ["rm -rf /home/dev"]),
        ("""echo '{"scripts":{"postinstall":"rm -rf ~"}}' > package.json && npm ci""", ["rm -rf /home/dev"]),
    ],
)
def test_a_script_the_line_wrote_runs(source: str, expected: list[str]) -> None:
    ran = [ref.text for ref in run(source).refs if ref.via == "package.json"]
    assert ran == expected


@pytest.mark.parametrize(
    "source",
    [
        f"npm pkg set scripts.x='{PUSH}' && npm run x",
        f"npm set-script x '{PUSH}' && npm run x",
        f"npm --prefix a pkg set scripts.x='{PUSH}' && cd a && npm run x",
        f"npm pkg set scripts.test='{PUSH}' && yarn test",
        f"bun pm pkg set scripts.x='{PUSH}' && bun run x",
        f"jq '.scripts.x=\"{PUSH}\"' package.json > p && mv p package.json && npm run x",
        "sed -i 's/a/b/' package.json && pnpm run build",
    ],
)
def test_a_package_json_changed_out_of_sight_makes_a_script_unknown(source: str) -> None:
    (script_run,) = [
        ref for ref in run(source).refs if ref.name in ("npm", "yarn", "pnpm", "bun") and ref.unknown
    ]
    assert "content not known" in script_run.unknown[0]


@pytest.mark.parametrize(
    "source",
    [
        "npm test",
        "npm run build",
        "yarn build",
        "pnpm build",
        "bun run build",
        "npm pkg set type=module && npm install",
        "npm pkg get name",
        "npm init -y && npm test",
        "npm install -D vitest && npm test",
        """echo '{"scripts":{"postinstall":"node setup.js"}}' > package.json && npm install""",
        "git clone https://x/y.git && cd y && npm install && npm test",
    ],
)
def test_scripts_on_disk_are_the_projects_own(check: Check, source: str) -> None:
    assert check(source).allow


def test_a_package_runner_keeps_its_options() -> None:
    assert inner("pnpm exec eslint .") == ["eslint ."]
    assert inner("bun run ./build.ts") == []
    assert not unknown(f"{WROTE} && npm run y")
