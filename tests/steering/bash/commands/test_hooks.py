"""Tools that are data except for an option or an address naming a command they run: `split --filter`,
`sort --compress-program`, `rg --pre`, `fzf --preview`/`--bind`, `socat EXEC:`, `gh alias set --shell`,
`sg group -c`, `mail -E`, `rsync --rsync-path`; `hub` is git; `su -c'cmd'`."""

from __future__ import annotations

import pytest

from tests.steering.bash.commands._runs import chains, inner, unknown
from tests.steering.bash.helpers import run
from tests.steering.conftest import Check

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"split --filter='{PUSH}' big", [(PUSH, ("split --filter",))]),
        (f"split -l 10 --fil '{PUSH}' big", [(PUSH, ("split --filter",))]),  # getopt_long: a unique prefix
        (f"sort --compress-program='{PUSH}' big", [(PUSH, ("sort --compress-program",))]),
        (f"sort -S 1G --compress-prog '{PUSH}' big", [(PUSH, ("sort --compress-program",))]),
        (f"rg --pre '{PUSH}' x", [(PUSH, ("rg --pre",))]),
        (f"rg --pre='{PUSH}' -z x", [(PUSH, ("rg --pre",))]),
        (f"ugrep --filter='pdf:{PUSH}' x", [(PUSH, ("ugrep --filter",))]),
        (f"bat --pager '{PUSH}' f", [(PUSH, ("bat --pager",))]),
        (f"fzf --preview '{PUSH}'", [(PUSH, ("fzf",))]),
        (f"fzf --bind 'enter:execute({PUSH})+abort'", [(PUSH, ("fzf",))]),
        (f"fzf --bind 'ctrl-r:reload:{PUSH}'", [(PUSH, ("fzf",))]),
        (f"fzf --bind 'enter:become[{PUSH}]'", [(PUSH, ("fzf",))]),
        (f"FZF_DEFAULT_COMMAND='{PUSH}' fzf", [(PUSH, ("fzf",))]),
        (f"socat - EXEC:'{PUSH}'", [(PUSH, ("socat",))]),
        (f"socat TCP-LISTEN:80 system:'{PUSH}',pty,stderr", [(PUSH, ("socat",))]),
        (f"ncat -l 80 --sh-exec '{PUSH}'", [(PUSH, ("ncat -e",))]),
        (f"gh alias set pf --shell '{PUSH}'", [(PUSH, ("gh alias",))]),
        (f"gh alias set pf '!{PUSH}' --clobber", [(PUSH, ("gh alias",))]),
        (f"gh alias set pf -s - <<< '{PUSH}'", [(PUSH, ("gh alias",))]),
        (f"sg docker -c '{PUSH}'", [(PUSH, ("sg",))]),
        (f"sg - docker '{PUSH}'", [(PUSH, ("sg",))]),
        (f"mail -E '!{PUSH}' -s x a@b.c", [(PUSH, ("mail -E",))]),
        (f"mailx -X 'shell {PUSH}' a@b.c", [(PUSH, ("mailx -E",))]),
        (f"rsync --rsync-path='{PUSH};' host:/x .", [(PUSH, ("rsync --rsync-path",))]),
        ("hub push -f", [(PUSH, ("hub",))]),
        ("hub -C repo reset --hard", [("git -C repo reset --hard", ("hub",))]),
        (f"su -c'{PUSH}'", [(PUSH, ("su",))]),
        (f"su -lc'{PUSH}' dev", [(PUSH, ("su",))]),
        (f"su -s /bin/bash -c '{PUSH}' dev", [(PUSH, ("su",))]),
        (f"su dev -- -c '{PUSH}'", [(PUSH, ("su",))]),
    ],
)
def test_the_command_an_option_names_runs(source: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert chains(source) == expected


def test_fzf_placeholders_are_the_selection_at_run_time() -> None:
    (ref,) = [ref for ref in run("fzf --preview 'rm -rf {}'").refs if ref.wrappers]
    assert ref.argv[-1].dynamic


def test_a_gh_shell_alias_runs_later() -> None:
    assert run(f"gh alias set pf --shell '{PUSH}'").refs[-1].wrappers == ("gh alias",)


@pytest.mark.parametrize(
    "source",
    [
        "split -l 1000 big.csv part_",
        "sort -u names.txt",
        "rg 'git push -f' src",
        "rg --pre-glob '*.pdf' foo",
        "fzf --filter 'git push -f'",
        "socat TCP-LISTEN:8080,fork TCP:localhost:3000",
        "gh alias set co 'pr checkout'",
        "gh pr create --title 'Fix' --body 'Run git push -f later'",
        "sg -p 'git push -f' src",
        "sg run -p 'rm -rf $A' src",
        "mail -s 'rm -rf / incident' ops@example.com",
        "nc -zv localhost 5432",
        "bat README.md",
    ],
)
def test_without_the_option_they_are_data(source: str) -> None:
    assert inner(source) == []


@pytest.mark.parametrize(
    "source",
    [
        "sd 'git push -f' 'git push --force-with-lease' README.md",
        "fastmod 'git push -f' 'git push --force-with-lease'",
        "comby 'git push -f' 'git push --force-with-lease' .md",
        "ruplacer 'git push -f' 'git push --force-with-lease'",
        "ast-grep -p 'rm -rf $A' -r 'x'",
        "sg -p 'git push -f'",
        "fzf --filter 'git push -f'",
        "xsv search 'git reset --hard' log.csv",
        "mail -s 'rm -rf / incident' a@b.c",
        "mailx -s 'rm -rf / incident' a@b.c",
        "jira issue create --summary 'git reset --hard lost work'",
        "zenity --info --text 'git push -f'",
        "notify-send 'git push -f done'",
        "howdoi undo git reset --hard",
    ],
)
def test_text_tools_do_not_run_their_strings(check: Check, source: str) -> None:
    assert check(source).allow


def test_a_dynamic_command_is_unknown() -> None:
    assert unknown('split --filter="$F" big')
    assert unknown('fzf --preview "$P"')
    assert unknown('socat - EXEC:"$C"')
