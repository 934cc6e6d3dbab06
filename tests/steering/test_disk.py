"""What a command will run, read from disk at check time: scripts, package.json scripts, makefiles,
git's configuration, refs and hooks; the person's files leniently, the agent's strictly.

Real files in a temporary project, read through `HostFiles` (the port every host gives the engine)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from rein.diskio import HostFiles
from rein.steering import Context, MemoryEntries, Steering, ToolCall, Verdict, build_policy

ENGINE = Steering(build_policy([]).policy)

Check = Callable[[str], Verdict]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def checker(project: Path, entries: MemoryEntries | None = None, branch: str = "feature") -> Check:
    store = entries if entries is not None else MemoryEntries()
    home = project.parent / "home"
    home.mkdir(exist_ok=True)

    def check(command: str) -> Verdict:
        context = Context(
            cwd=str(project), home=str(home), env={"HOME": str(home)}, branch=branch, entries=store,
            files=HostFiles(),
        )  # fmt: skip
        return ENGINE.evaluate(ToolCall(tool="bash", command=command), context)

    return check


def write(path: Path, text: str, *, executable: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if executable:
        path.chmod(0o755)
    return path


def agent_wrote(project: Path, entries: MemoryEntries, name: str) -> None:
    """The agent's write call for `name`, as a host reports it to steering."""
    context = Context(cwd=str(project), home=str(project), entries=entries, files=HostFiles())
    assert ENGINE.evaluate(ToolCall(tool="write", path=name, content="x"), context).allow


# Scripts


@pytest.mark.parametrize(
    "run",
    ["bash deploy.sh", "sh deploy.sh", "./deploy.sh", "sh < deploy.sh", "source deploy.sh", ". ./deploy.sh"],
)
def test_a_script_on_disk_is_read_and_its_line_named(project: Path, run: str) -> None:
    write(project / "deploy.sh", "#!/bin/sh\necho deploying\ngit push --force origin main\n", executable=True)
    verdict = checker(project)(run)
    assert verdict.rule == "no-force-push", verdict.reason
    assert "(`git push --force origin main` runs from deploy.sh:3)" in verdict.reason


def test_programs_in_other_languages_are_read_with_their_line(project: Path) -> None:
    write(project / "tool.py", "import os\n\nos.system('git reset --hard')\n")
    write(project / "tool.js", "require('child_process').execSync('git clean -fdx')\n")
    check = checker(project)
    reset = check("python3 tool.py")
    assert reset.rule == "no-reset-hard" and "runs from tool.py:3" in reset.reason
    assert check("node tool.js").rule == "no-git-clean-force"


def test_a_persons_script_blocks_only_on_a_definite_finding(project: Path) -> None:
    write(project / "dyn.sh", 'eval "$CMD"\nrm -rf "$BUILD_DIR"\nbash -c "$(cat steps)"\n')
    write(project / "dyn.py", "import os, sys\nos.system(sys.argv[1])\n")
    check = checker(project)
    for command in ("bash dyn.sh", "python dyn.py x", "bash dyn.sh && git status"):
        verdict = check(command)
        assert verdict.allow, verdict.reason
    explained = next(d for d in check("python dyn.py x").decisions if d.ref.name == "python")
    assert explained.ref.tolerated and "value built at run time" in explained.ref.tolerated[0]


def test_the_agents_own_script_is_read_strictly(project: Path) -> None:
    write(project / "dyn.sh", 'eval "$CMD"\n')
    entries = MemoryEntries()
    check = checker(project, entries)
    assert check("bash dyn.sh").allow
    agent_wrote(project, entries, "dyn.sh")
    verdict = check("bash dyn.sh")
    assert verdict.rule == "unknown" and "It runs from dyn.sh:1." in verdict.reason


def test_a_script_a_bash_call_wrote_is_the_agents_in_the_next_call(project: Path) -> None:
    """The two-call bypass: write in one call, run in the next."""
    entries = MemoryEntries()
    check = checker(project, entries)
    written = "printf 'eval \"$X\"\\n' > step.sh"
    assert check(written).allow
    (project / "step.sh").write_text('eval "$X"\n')  # what the call did when it ran
    assert check("bash step.sh").rule == "unknown"


def test_files_written_by_a_call_rein_cannot_name_are_the_agents(project: Path) -> None:
    entries = MemoryEntries()
    check = checker(project, entries)
    assert check("curl -O https://example.com/setup.sh").allow  # a download: names rein cannot know
    write(project / "setup.sh", 'eval "$(cat conf)"\n')  # modified after that call started
    assert check("bash setup.sh").rule == "unknown"


def test_a_file_too_big_to_read_is_no_finding_for_the_person_and_unknown_for_the_agent(project: Path) -> None:
    write(project / "big.sh", "echo x\n" * 60_000)
    entries = MemoryEntries()
    check = checker(project, entries)
    assert check("bash big.sh").allow
    agent_wrote(project, entries, "big.sh")
    verdict = check("bash big.sh")
    assert verdict.rule == "unknown" and "the agent wrote this session" in verdict.reason


def test_a_binary_run_by_its_path_is_read_by_its_name(project: Path) -> None:
    write(project / "bin" / "tool", "\0ELF")
    check = checker(project)
    assert check("./bin/tool --version").allow
    assert check("/usr/bin/env git push -f").rule == "no-force-push"


def test_a_long_persons_script_does_not_exhaust_the_analysis(project: Path) -> None:
    body = "".join(f"echo step {n} && test -f file{n}\n" for n in range(6000))
    write(project / "long.sh", body)
    check = checker(project)
    assert check("bash long.sh && git status").allow
    assert check("bash long.sh && git push -f").rule == "no-force-push"


# package.json scripts


def test_package_scripts_are_read_from_the_package_json_the_manager_uses(project: Path) -> None:
    scripts = {
        "test": "jest",
        "clean": "git clean -fdx && rm -rf dist",
        "predeploy": "npm run build",
        "deploy": "git push --force origin gh-pages",
        "gen": "eval $CMD",
    }
    write(project / "package.json", json.dumps({"scripts": scripts}))
    (project / "web").mkdir()
    check = checker(project)
    assert check("npm test").allow
    assert check("npm run gen").allow  # the person's script: what it builds at run time is theirs
    for command in (
        "npm run clean",
        "yarn clean",
        "pnpm run clean",
        "bun run clean",
        "cd web && npm run clean",
    ):
        verdict = check(command)
        assert verdict.rule == "no-git-clean-force", command
        assert "runs from package.json scripts.clean" in verdict.reason
    assert check("npm run deploy").rule == "no-force-push"
    assert check("npm run deploy --prefix web").allow  # web has no package.json: npm errors
    assert check("npm run gen -- $(cat args)").rule == "unknown"  # the line hands it unknown words


# Makefiles


MAKEFILE = """\
BUILD := build

all: test

test: lint
\tpytest -q

lint:
\truff check .

clean:
\trm -rf $(BUILD)
\tgit clean -fdx

include common.mk
"""


def test_make_reads_only_the_recipes_of_its_goals_and_their_prerequisites(project: Path) -> None:
    write(project / "Makefile", MAKEFILE)
    write(project / "common.mk", "release:\n\tgit push --force origin main\n")
    check = checker(project)
    assert check("make").allow
    assert check("make test").allow
    clean = check("make clean")
    assert clean.rule == "no-git-clean-force" and "runs from Makefile:13" in clean.reason
    release = check("make release")
    assert release.rule == "no-force-push" and "runs from common.mk:2" in release.reason
    assert check("make -C . clean").rule == "no-git-clean-force"
    assert check("make $TARGET").allow  # which recipe runs is not known: the person's file, no finding


def test_an_agents_makefile_with_a_goal_only_known_at_run_time_is_unknown(project: Path) -> None:
    write(project / "Makefile", MAKEFILE)
    entries = MemoryEntries()
    agent_wrote(project, entries, "Makefile")
    assert checker(project, entries)("make $TARGET").rule == "unknown"


# git


def git(project: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, env=env)


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q", "-b", "main")
    write(project / "lib" / "a.py", "x = 1\n")
    git(project, "add", "-A")
    git(project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "init")
    git(project, "branch", "deps/python-3.12.x")
    git(project, "branch", "feature")
    return project


def test_the_repositorys_aliases_are_git_commands(repo: Path) -> None:
    git(repo, "config", "alias.undo", "reset --hard")
    git(repo, "config", "alias.publish", "!git push --force origin HEAD")
    git(repo, "config", "alias.st", "status")
    check = checker(repo)
    undo = check("git undo")
    assert (
        undo.rule == "no-reset-hard"
        and "'git undo' is the alias 'git reset --hard' (.git/config:" in undo.reason
    )
    assert check("git publish").rule == "no-force-push"
    assert check("git st").allow


def test_global_config_includes_and_conditions_are_followed(repo: Path) -> None:
    home = repo.parent / "home"
    write(
        home / ".gitconfig",
        '[include]\n\tpath = ~/.gitaliases\n[includeIf "gitdir:~/elsewhere/"]\n\tpath = ~/.never\n',
    )
    write(home / ".gitaliases", "[alias]\n\twipe = clean -fdx\n")
    write(home / ".never", "[alias]\n\tst = stash clear\n")
    check = checker(repo)
    assert check("git wipe").rule == "no-git-clean-force"
    assert check("git st").allow


@pytest.mark.parametrize(
    ("setting", "command", "rule"),
    [
        (("remote.origin.mirror", "true"), "git push", "no-force-push"),
        (("remote.origin.push", "+refs/heads/*:refs/heads/*"), "git push origin", "no-force-push"),
        (("clean.requireForce", "false"), "git clean -d", "no-git-clean-force"),
    ],
)
def test_configuration_that_changes_what_a_command_does(
    repo: Path, setting: tuple[str, str], command: str, rule: str
) -> None:
    git(repo, "remote", "add", "origin", "https://example.com/x.git")
    check = checker(repo)
    assert check(command).allow
    git(repo, "config", *setting)
    verdict = check(command)
    assert verdict.rule == rule and ".git/config:" in verdict.reason


def test_hooks_a_command_triggers_are_read(repo: Path) -> None:
    write(
        repo / ".git" / "hooks" / "pre-commit", "#!/bin/sh\ngit push --force origin main\n", executable=True
    )
    write(
        repo / ".git" / "hooks" / "post-merge", "#!/bin/sh\ngit stash clear\n"
    )  # not executable: git skips it
    check = checker(repo)
    commit = check("git commit -m wip")
    assert commit.rule == "no-force-push" and "runs from .git/hooks/pre-commit:2" in commit.reason
    assert check("git commit --no-verify -m wip").allow
    assert check("git merge feature").allow
    assert check("git log").allow


def test_core_hooks_path_is_where_hooks_are(repo: Path) -> None:
    write(repo / ".husky" / "pre-push", "#!/bin/sh\ngit reset --hard\n", executable=True)
    git(repo, "config", "core.hooksPath", ".husky")
    assert checker(repo)("git push origin feature").rule == "no-reset-hard"


def test_checkout_asks_the_repository_whether_a_name_is_a_ref_or_a_path(repo: Path) -> None:
    check = checker(repo)
    assert check("git checkout deps/python-3.12.x").allow  # a branch that looks like a file
    assert check("git checkout lib").rule == "no-checkout-discard"  # a directory, no branch
    assert check("git checkout feature").allow
    assert check("git checkout nosuch").allow  # neither: git refuses


def test_git_programs_by_their_dashed_names_and_external_subcommands(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = write(repo.parent / "bin" / "git-tidy", "#!/bin/sh\ngit clean -fdx\n", executable=True).parent
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    check = checker(repo)
    assert check("git-push --force").rule == "no-force-push"
    assert check("/usr/lib/git-core/git-reset --hard").rule == "no-reset-hard"
    assert check("git tidy").rule == "no-git-clean-force"
    assert check("git frobnicate").allow  # no such program: git refuses
    assert check("git grep -O'git push -f' TODO").rule == "no-force-push"
    assert check("git grep -O TODO").allow


# Task runners

TASK_FILES = {
    "justfile": """\
default:
  @echo hi

clean:
  git clean -fdx

test *args:
  pytest {{args}}
""",
    "Taskfile.yml": """\
version: '3'
tasks:
  build:
    cmds:
      - go build ./...
  nuke:
    deps: [build]
    cmds:
      - rm -rf ~
""",
    "tox.ini": """\
[tox]
envlist = py311
[testenv]
commands = pytest {posargs}
[testenv:clean]
commands = git clean -fdx
""",
    "noxfile.py": """\
import nox

@nox.session
def tests(session):
    session.run('pytest')

@nox.session(default=False)
def wipe(session):
    session.run('git', 'reset', '--hard')
""",
    "pyproject.toml": "[project]\nname = 'x'\n\n[tool.poe.tasks]\nlint = 'ruff check .'\n"
    "reset = 'git reset --hard'\n",
    "mise.toml": "[tasks.build]\nrun = 'cargo build'\n[tasks.publish]\nrun = 'git push --force'\n",
}


@pytest.mark.parametrize(
    ("command", "rule", "origin"),
    [
        ("just", None, ""),
        ("just test -k slow", None, ""),
        ("just clean", "no-git-clean-force", "justfile:5"),
        ("task build", None, ""),
        ("task nuke", "no-rm-root", "Taskfile.yml:9"),
        ("tox", None, ""),
        ("tox -e clean", "no-git-clean-force", "tox.ini:6"),
        ("nox", None, ""),
        ("nox -s wipe", "no-reset-hard", "noxfile.py:9"),
        ("poe lint", None, ""),
        ("poe reset", "no-reset-hard", "pyproject.toml:6"),
        ("mise run build", None, ""),
        ("mise run publish", "no-force-push", "mise.toml:4"),
        ("mise publish", "no-force-push", "mise.toml:4"),
        ("just --list", None, ""),
        ("task --dry nuke", None, ""),
    ],
)
def test_task_runners_run_the_tasks_of_their_files(
    project: Path, command: str, rule: str | None, origin: str
) -> None:
    for name, text in TASK_FILES.items():
        write(project / name, text)
    verdict = checker(project)(command)
    assert verdict.rule == rule, verdict.reason
    assert f"runs from {origin})" in verdict.reason if origin else verdict.allow


def test_a_task_file_the_line_writes_is_read_as_written(project: Path) -> None:
    check = checker(project)
    assert check("printf 'x:\\n  git push -f\\n' > justfile && just x").rule == "no-force-push"
    assert check("printf 'x:\\n  echo ok\\n' > justfile && just x").allow


# Edits in place, then a run


APP = 'import os\nurl = "http://server:8000"\nprint(url)\n'
FIX = (
    "--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n import os\n"
    '-url = "http://server:8000"\n+url = "http://server:8001"\n print(url)\n'
)
EVIL = FIX.replace('+url = "http://server:8001"', '+os.system("git push -f")')


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("sed -i 's|http://server:8000|http://server:8001|g' app.py && python3 app.py", None),
        ("sed -i -e 's/8000/8001/' -e 's/server/host/' app.py && python3 app.py", None),
        ("sed -i.bak -E 's/(80)00/\\1 01/' app.py && python3 app.py", None),
        ("sed -i 's/print(url)/os.system(\"git push -f\")/' app.py && python3 app.py", "no-force-push"),
        ("perl -pi -e 's/8000/8001/g' app.py && python app.py", None),
        ("perl -pi -e 's/print\\(url\\)/os.system(\"rm -rf ~\")/' app.py && python app.py", "no-rm-root"),
        ("git apply fix.diff && python app.py", None),
        ("git apply evil.diff && python app.py", "no-force-push"),
        ("patch -p1 < evil.diff && python app.py", "no-force-push"),
        ("git apply --check evil.diff && python app.py", None),
        ("sed -i 's/a/b/' missing.py && python missing.py", None),
        ("sed -i '1d' app.py && python app.py", "unknown"),  # not worked out: as text the line wrote
    ],
)
def test_an_edit_in_place_is_worked_out_before_the_run(project: Path, command: str, rule: str | None) -> None:
    write(project / "app.py", APP)
    write(project / "fix.diff", FIX)
    write(project / "evil.diff", EVIL)
    assert checker(project)(command).rule == rule
