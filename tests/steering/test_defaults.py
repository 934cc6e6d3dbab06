"""Each default rule: what it blocks, and the normal work next to it that it must allow."""

from __future__ import annotations

import pytest

from tests.steering.conftest import Check

BLOCKED = [
    # force push, however it is spelled
    ("git push --force", "no-force-push"),
    ("git push -f origin main", "no-force-push"),
    ("git push -uf origin feature", "no-force-push"),
    ("git push origin +main", "no-force-push"),
    ("git push --force-with-lease --force", "no-force-push"),
    ("git -C ../other push --force", "no-force-push"),
    ("/usr/bin/git push --force", "no-force-push"),
    # reset
    ("git reset --hard", "no-reset-hard"),
    ("git reset -q --hard HEAD~1", "no-reset-hard"),
    ("git reset --merge", "no-reset-hard"),
    # rm of root and home
    ("rm -rf /", "no-rm-root"),
    ("rm -rf /*", "no-rm-root"),
    ("rm -fr ~", "no-rm-root"),
    ("rm -rf ~/", "no-rm-root"),
    ("rm -rf $HOME", "no-rm-root"),
    ('rm -rf "${HOME}"', "no-rm-root"),
    ("rm -r --no-preserve-root /", "no-rm-root"),
    ("rm -Rf //", "no-rm-root"),
    ("rm -rf /./", "no-rm-root"),
    ("cd / && rm -rf *", "no-rm-root"),
    ("rm -rf ../..", "no-rm-root"),
    ("rm --recursive --force ~/*", "no-rm-root"),
    # clean, checkout, restore, branch, stash
    ("git clean -fd", "no-git-clean-force"),
    ("git clean -xdf", "no-git-clean-force"),
    ("git checkout -- src/app.py", "no-checkout-discard"),
    ("git checkout HEAD -- .", "no-checkout-discard"),
    ("git checkout .", "no-checkout-discard"),
    ("git restore src/app.py", "no-restore-worktree"),
    ("git restore --worktree --staged app.py", "no-restore-worktree"),
    ("git branch -D old", "no-branch-force-delete"),
    ("git branch --delete --force old", "no-branch-force-delete"),
    ("git branch -df old", "no-branch-force-delete"),
    ("git stash drop", "no-stash-drop"),
    ("git stash clear", "no-stash-drop"),
    # servers and watchers
    ("npm run dev", "no-dev-server"),
    ("npm start", "no-dev-server"),
    ("pnpm dev", "no-dev-server"),
    ("yarn run watch", "no-dev-server"),
    ("npx vite", "no-dev-server"),
    ("next dev", "no-dev-server"),
    ("tsc --watch", "no-dev-server"),
    ("tsc -w -p .", "no-dev-server"),
    ("vitest", "no-dev-server"),
    ("jest --watch", "no-dev-server"),
    ("python3 -m http.server 8000", "no-dev-server"),
    ("python manage.py runserver", "no-dev-server"),
    ("uvicorn app:app --reload", "no-dev-server"),
    ("flask run", "no-dev-server"),
    ("docker compose up", "no-dev-server"),
    ("cargo watch -x test", "no-dev-server"),
    ("nodemon server.js", "no-dev-server"),
    # the git plugin
    ("git commit -m wip", None),  # on a feature branch: allowed (see test below for main)
]

ALLOWED = [
    "git push",
    "git push origin feature",
    "git push --force-with-lease",
    "git push -u origin feature",
    'git log -S "push --force"',
    "echo 'git push --force'",
    "git reset --soft HEAD~1",
    "git reset HEAD file.py",
    "rm -rf ./build",
    "rm -rf build dist",
    "rm -rf /tmp/scratch",
    "rm -f /",
    "rm -rf ~/project/build",
    "git clean -n",
    "git clean -fdn",
    "git checkout -b feature",
    "git checkout main",
    "git switch -c topic",
    "git restore --staged app.py",
    "git branch -d merged",
    "git stash",
    "git stash pop",
    "npm test",
    "npm run build",
    "npx tsc --noEmit",
    "vitest run",
    "vite build",
    "docker compose up -d",
    "python -m pytest",
    "cat > notes.md <<'EOF'\ngit push --force\nrm -rf /\nEOF",
]


@pytest.mark.parametrize(("command", "rule"), [b for b in BLOCKED if b[1]])
def test_blocks(check: Check, command: str, rule: str) -> None:
    verdict = check(command)
    assert not verdict.allow, command
    assert verdict.rule == rule
    assert verdict.reason.startswith(f"[steering:{rule}@defaults] ")


@pytest.mark.parametrize("command", ALLOWED)
def test_allows(check: Check, command: str) -> None:
    verdict = check(command)
    assert verdict.allow, verdict.reason


def test_commit_on_main_is_blocked_by_the_git_plugin(check: Check) -> None:
    verdict = check("git commit -m wip", branch="main")
    assert verdict.rule == "no-main-commit"
    assert verdict.reason.startswith("[steering:no-main-commit@git] ")
    assert check("git commit -m wip", branch="feature").allow


def test_branch_is_tracked_through_the_chain(check: Check) -> None:
    assert check("git checkout -b fix && git commit -m wip", branch="main").allow
    assert check("git switch feature; git commit -am x", branch="master").allow
    assert not check("git checkout -b fix && git checkout main && git commit -m x", branch="x").allow
    assert not check("(git checkout -b fix) && git commit -m wip", branch="main").allow


def test_rm_relative_to_tracked_cwd(check: Check) -> None:
    assert not check("cd ~ && rm -rf .").allow
    assert check("cd /tmp/x && rm -rf .").allow
    assert not check("rm -rf ..", cwd="/home/dev/project").allow


@pytest.mark.parametrize(
    "command",
    [
        'unset D; rm -rf "$D"/*',  # bash runs `rm -rf /*`: the context's D is gone
        'unset D; rm -rf "$D"',
        'export "$V"; rm -rf "$D"',  # V may be `D=/`
        'unset "$V"; rm -rf "$D"/*',
        'export "$V"; rm -rf ~/dev',  # V may be `HOME=/home`: HOME is unknown, not unset
    ],
)
def test_a_variable_the_command_line_removed_is_unknown(check: Check, command: str) -> None:
    env = {"HOME": "/home/dev", "D": "/tmp/x"}
    assert check('rm -rf "$D"/*', env=env).allow, "the context's value is used while it holds"
    verdict = check(command, env=env)
    assert not verdict.allow, command
    assert verdict.rule == "no-rm-root"


@pytest.mark.parametrize(
    "command",
    [
        # bash expands a command's words before its prefix or its wrapper's variables apply
        'D=/; D=/tmp/x rm -rf "$D"/*',
        'D=/; env D=/tmp/x rm -rf "$D"/*',
        'D=/; sudo D=/tmp/x rm -rf "$D"/*',
        'D=/; sudo D=/tmp/x env rm -rf "$D"/*',
        "HOME=/; env -u HOME rm -rf ~/home",
        "HOME=/; env -i rm -rf ~/home",
        # so are a wrapper's own settings, even inside another wrapper
        'D=/; sudo D=/tmp/x env X="$D" bash -c \'rm -rf "$X"/*\'',
        'D=/; env D=/tmp/x env -C "$D" rm -rf ./*',
        # and an unquoted heredoc or a herestring a shell reads its commands from
        'D=/; D=/tmp/x bash <<EOF\nrm -rf "$D"/*\nEOF',
        'X=/; bash <<EOF\nX=/tmp/x; rm -rf "$X"/*\nEOF',
        'D=/; D=/tmp/x bash <<< "rm -rf $D/*"',
        # a script a wrapper starts a shell on sees the variables the wrapper gives it
        "D=/ bash -c 'rm -rf \"$D\"/*'",
        "env D=/ sh -c 'rm -rf \"$D\"/*'",
        "sudo D=/ sh -c 'rm -rf \"$D\"/*'",
        "export D=/tmp/x; D=/ command bash -c 'rm -rf \"$D\"/*'",
        "export D=/tmp/x; D=/ exec bash -c 'rm -rf \"$D\"/*'",
        "D=/tmp/x; D=/ eval 'rm -rf \"$D\"/*'",
    ],
)
def test_words_expand_with_the_shells_variables_not_the_commands(check: Check, command: str) -> None:
    verdict = check(command)
    assert not verdict.allow, command
    assert verdict.rule == "no-rm-root"


@pytest.mark.parametrize(
    "command",
    ["bash <<EOF\nrm -rf $(cat dirs)\nEOF", "bash <<EOF\nrm -rf $UNSET/*\nEOF", 'sh <<< "rm -rf $U"'],
)
def test_a_shell_reading_an_unknown_expansion_is_unknown(check: Check, command: str) -> None:
    verdict = check(command)
    assert not verdict.allow, command
    assert "not known statically" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        'D=/tmp/x; D=/ rm -rf "$D"/*',
        'D=/tmp/x; env -i rm -rf "$D"',  # the cleared environment is rm's, not its arguments'
        'env -i rm -rf "$HOME/x"',
        'D=/tmp/x; env -u D rm -rf "$D"/*',
        "D=/; D=/tmp/x bash -c 'rm -rf \"$D\"/*'",  # the inner shell expands, with D=/tmp/x
        "D=/; env D=/tmp/x sh -c 'rm -rf \"$D\"/*'",
        "D=/; sudo D=/tmp/x sh -c 'rm -rf \"$D\"/*'",
        "D=/; D=/tmp/x eval 'rm -rf \"$D\"/*'",
        "D=/; D=/tmp/x bash <<'EOF'\nrm -rf \"$D\"/*\nEOF",
        'D=/tmp/x; bash <<EOF\nrm -rf "$D"/* \\$HOME/x\nEOF',
    ],
)
def test_the_commands_own_variables_do_not_reach_its_words(check: Check, command: str) -> None:
    verdict = check(command)
    assert verdict.allow, (command, verdict.reason)


def test_tilde_with_home_unset_is_the_users_home(check: Check) -> None:
    assert check("unset HOME; rm -rf ~").rule == "no-rm-root"
    assert check("unset HOME; rm -rf ~/").rule == "no-rm-root"
    assert check("unset HOME; rm -rf ~/project/build").allow


@pytest.mark.parametrize(
    "command", ['rm -rf "~"', "rm -rf '~'/", 'rm -rf "~/"', "rm -rf \\~", "rm -rf '~/'*", 'rm -rf "~"/*']
)
def test_quoted_tilde_is_a_directory_named_tilde(check: Check, command: str) -> None:
    assert check(command).allow, command


@pytest.mark.parametrize(
    "command", ["rm -rf ~", "rm -rf ~/", "rm -rf $HOME", 'rm -rf "$HOME"/', "rm -rf ~/*"]
)
def test_unquoted_tilde_and_home_still_block(check: Check, command: str) -> None:
    assert check(command).rule == "no-rm-root", command


@pytest.mark.parametrize(
    "command",
    [
        "python3.12 -m http.server",
        "python3.8 -m http.server 9000",
        "python3.14 manage.py runserver",
        "/usr/bin/python3.12 manage.py runserver 0:8000",
        "pypy3 -m http.server",
        "pypy manage.py runserver",
    ],
)
def test_every_python_serves(check: Check, command: str) -> None:
    assert check(command).rule == "no-dev-server", command


@pytest.mark.parametrize(
    "command", ["python3.12 -m pytest", "pypy3 manage.py migrate", "python3-config --cflags"]
)
def test_python_that_does_not_serve(check: Check, command: str) -> None:
    assert check(command).allow, command


@pytest.mark.parametrize(
    "command",
    [
        "git --attr-source HEAD push --force",
        "git --super-prefix sub/ push --force",
        "git --shallow-file f push --force",
        "git --config-env core.x=V push --force",
    ],
)
def test_git_global_options_with_a_value_are_skipped(check: Check, command: str) -> None:
    assert check(command).rule == "no-force-push", command
