"""The second half of `rein demo`: steering on telling commands, as `rein check` and `rein explain`
show them.

Runs in a scratch directory with its own empty home, so the user's own config does not change what
is shown; the process's cwd and HOME are put back afterwards.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from rich.console import Console

from rein.cli import main

CHECKS: list[tuple[str, list[str]]] = [
    ("a force push, however it is spelled", ["git push -uf origin main"]),
    ("the safe alternative is allowed", ["git push --force-with-lease origin topic"]),
    ("a string that only mentions it is not a command", ["echo 'never run git push --force'"]),
    ("a search for the text is not a push", ['git log -S "push --force"']),
    ("hidden in a wrapper and a subshell", ["sudo env -i bash -c 'cd / && rm -rf *'"]),
    ("hidden in a command substitution", ['echo "cleaning up $(git reset --hard)"']),
    ("a heredoc fed to a shell is code", ["bash <<'EOF'\ngit stash clear\nEOF"]),
    ("a heredoc written to a file is data", ["cat > notes.md <<'EOF'\ngit stash clear\nEOF"]),
    ("a dynamic command cannot be known, so it is blocked", ['eval "$CLEANUP"']),
    (
        "committing on main, with the branch tracked through the chain",
        ["--branch", "main", "--", "git commit -m wip"],
    ),
    (
        "... is fine once a topic branch is made",
        ["--branch", "main", "--", "git switch -c fix && git commit -m wip"],
    ),
    ("a dev server would hang the agent's shell", ["npm run dev"]),
    (
        "the agent cannot lift a block itself: overrides are the user's to allow (allow_override)",
        ["git branch -D spike  # steering-override: no-branch-force-delete - spike merged by squash"],
    ),
]

EXPLAIN = "cd /tmp && sudo bash -c 'git -C repo push -uf' && echo $(git stash drop)"


def steering_demo(console: Console) -> None:
    saved_cwd, saved_home = Path.cwd(), os.environ.get("HOME")
    with tempfile.TemporaryDirectory(prefix="rein-demo-") as scratch:
        home = Path(scratch) / "home"
        project = home / "project"
        project.mkdir(parents=True)
        os.environ["HOME"] = str(home)
        os.chdir(project)
        try:
            console.rule("[bold]rein check[/]: may the agent run this?")
            for title, args in CHECKS:
                argv = args if "--" in args else ["--", *args]
                shown = argv[argv.index("--") + 1]
                console.print(f"\n[dim]# {title}[/]")
                options = "".join(f"{option} " for option in argv[: argv.index("--")])
                console.print(f"$ rein check {options}-- [cyan]{shown!r}[/]")
                main(["check", *argv])
            console.print()
            console.rule("[bold]rein explain[/]: what rein sees in a command line")
            console.print(f"$ rein explain -- [cyan]{EXPLAIN!r}[/]")
            main(["explain", "--", EXPLAIN])
        finally:
            os.chdir(saved_cwd)
            if saved_home is None:
                os.environ.pop("HOME", None)
            else:
                os.environ["HOME"] = saved_home
