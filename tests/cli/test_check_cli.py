"""`rein check` and `rein explain` as a user runs them: real subprocesses, real files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.helpers import run_rein


def rein(*args: str, cwd: Path, home: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_rein(*args, cwd=cwd, home=home, stdin=stdin)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    return project, home


def test_block_exits_1_with_the_tagged_reason(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("check", "--", "git", "push", "--force", cwd=project, home=home)
    assert done.returncode == 1
    assert "block [steering:no-force-push@defaults]" in done.stdout


def test_allow_exits_0(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("check", "--", "git push --force-with-lease && ls", cwd=project, home=home)
    assert (done.returncode, done.stdout.strip()) == (0, "allow")


def test_json_output_and_branch_option(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("check", "--json", "--branch", "main", "--", "git commit -m x", cwd=project, home=home)
    assert done.returncode == 1
    out = json.loads(done.stdout)
    assert out["decision"] == "block" and out["rule"] == "no-main-commit" and out["source"] == "git"


def test_branch_is_read_from_the_repository(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert rein("check", "--", "git commit -m x", cwd=project, home=home).returncode == 1
    (project / ".git" / "HEAD").write_text("ref: refs/heads/topic\n")
    assert rein("check", "--", "git commit -m x", cwd=project, home=home).returncode == 0


def test_cwd_option_and_file_tools(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    config = project / ".rein" / "steering.toml"
    config.parent.mkdir()
    config.write_text(
        '[[rule]]\nname = "no-env"\ntool = "write"\npattern = "\\\\.env$"\nreason = "secrets"\n'
    )
    done = rein("check", "--cwd", str(project), "--tool", "write", "--path", ".env", cwd=home, home=home)
    assert done.returncode == 1 and "[steering:no-env@user] secrets" in done.stdout
    assert rein("check", "--tool", "write", "--path", "a.py", cwd=project, home=home).returncode == 0


@pytest.mark.slow
def test_usage_and_config_errors_exit_2(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    assert rein("check", cwd=project, home=home).returncode == 2
    assert rein("check", "--tool", "write", cwd=project, home=home).returncode == 2
    assert rein("check", "--tool", "paint", "--path", "x", cwd=project, home=home).returncode == 2
    assert rein("--frobnicate", cwd=project, home=home).returncode == 2
    config = project / ".rein" / "steering.toml"
    config.parent.mkdir()
    config.write_text("[[rule]]\nname = 'x'\n")
    done = rein("check", "--", "ls", cwd=project, home=home)
    assert done.returncode == 2
    assert f"{config}:1: rule 'x': needs a reason" in done.stderr.replace("\n", "")


def test_jsonl_audits_many_commands_and_keeps_going(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    lines = [
        {"command": "git push -f"},
        {"command": "ls -la"},
        "not json",
        {"command": "git commit -m x", "branch": "main", "cwd": str(project)},
        {"tool": "write", "path": "x.py"},
        {"cmd": "rm -rf /"},
        {"tool": "shell", "command": "ls"},
        {"command": ["rm", "-rf", "/"]},
    ]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    done = rein("check", "--jsonl", cwd=project, home=home, stdin=stdin)
    out = [json.loads(line) for line in done.stdout.splitlines()]
    # a line rein cannot read gets an error verdict that blocks, so a reader of `decision` never allows it
    assert [o["decision"] for o in out] == [
        "block",
        "allow",
        "block",
        "block",
        "allow",
        "block",
        "block",
        "block",
    ]
    assert [o["line"] for o in out if "error" in o] == [3, 6, 7, 8]
    assert "unknown key 'cmd'" in out[5]["error"] and "unknown tool 'shell'" in out[6]["error"]
    assert "'command' must be a string, not an array" in out[7]["error"]
    assert all(
        o["rule"] == "error" and o["reason"].startswith("[steering:error@rein]") for o in out if "error" in o
    )
    assert done.returncode == 1  # blocked lines, and lines that could not be read, exit as a block


@pytest.mark.slow
def test_explain_shows_each_command_with_its_state(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    command = "cd /tmp && sudo bash -c 'git -C repo push -uf' # note"
    done = rein("explain", "--json", "--branch", "dev", "--", command, cwd=project, home=home)
    assert done.returncode == 1, done.stderr  # blocked, as `rein check` exits
    out = json.loads(done.stdout)
    assert out["decision"] == "block"
    push = next(c for c in out["commands"] if c["argv"][:2] == ["git", "-C"])
    assert push["cwd"] == "/tmp/repo"
    assert push["wrappers"] == ["sudo", "bash -c"]
    assert push["rule"] == "no-force-push"
    cd = next(c for c in out["commands"] if c["argv"][0] == "cd")
    assert cd["cwd"] == str(project) and cd["rule"] is None
    assert push["words_env"] is None and cd["words_env"] is None
    assert (push["kind"], cd["kind"], out["commands"][1]["kind"]) == ("inert", "inert", "runner")
    text = rein("explain", "--", command, cwd=project, home=home)
    assert text.returncode == 1
    assert "no-force-push@defaults" in text.stdout and "/tmp/repo" in text.stdout


def test_explain_shows_the_variables_a_commands_words_were_expanded_with(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("explain", "--json", "--", 'D=/; D=/tmp/x rm -rf "$D"/*', cwd=project, home=home)
    out = json.loads(done.stdout)
    rm = next(c for c in out["commands"] if c["argv"][0] == "rm")
    assert rm["env"]["D"] == "/tmp/x" and rm["words_env"]["D"] == "/"
    assert rm["rule"] == "no-rm-root"


@pytest.mark.slow
def test_explain_says_why_a_guess_was_checked(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein(
        "explain", "--json", "--", 'prlimit --nofile=64 rm -rf ~; eval "$CLEANUP"', cwd=project, home=home
    )
    out = json.loads(done.stdout)
    prlimit, rm, evaluated = out["commands"]
    assert (prlimit["kind"], rm["kind"], evaluated["kind"]) == ("unknown", "inert", "runner")
    assert "prlimit is not a command rein knows" in rm["why"] and rm["rule"] == "no-rm-root"
    assert evaluated["unknown"] == ['eval string is dynamic: "$CLEANUP"']
    text = rein("explain", "--", 'eval "$CLEANUP"', cwd=project, home=home).stdout
    assert "not known statically" in text and "steering:unknown@rein" in text


@pytest.mark.slow
def test_an_override_is_the_users_to_allow_and_explain_shows_it(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    command = "git push -f  # steering-override: no-force-push - my own branch"
    refused = rein("explain", "--json", "--", command, cwd=project, home=home)
    assert refused.returncode == 1 and json.loads(refused.stdout)["override"] is None
    (project / ".rein").mkdir()
    (project / ".rein" / "steering.toml").write_text('allow_override = ["no-force-push"]\n')
    done = rein("explain", "--json", "--", command, cwd=project, home=home)
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["override"] == {"rule": "no-force-push", "why": "my own branch"}
    text = rein("explain", "--", command, cwd=project, home=home).stdout
    assert "allow (override of no-force-push: my own branch)" in " ".join(text.split())
    checked = rein("check", "--", command, cwd=project, home=home)
    assert checked.stdout.strip() == "allow (override of no-force-push: my own branch)"


def test_help_and_version(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("--help", cwd=project, home=home)
    assert done.returncode == 0 and "check" in done.stdout and "explain" in done.stdout
    assert rein("--version", cwd=project, home=home).stdout.startswith("rein ")
