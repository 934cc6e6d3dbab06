"""Commands installed to run later: crontab entries and systemd-run timers."""

from __future__ import annotations

import pytest

from rein.steering.bash.commands._deferred import _split_percent, entries
from tests.steering.bash.helpers import run, texts


def _unknown(source: str) -> list[str]:
    return [note for ref in run(source).refs for note in ref.unknown]


def test_a_crontab_is_read_line_by_line() -> None:
    found = entries(
        "# c\nMAILTO=me\nSHELL=/bin/bash\n0 3 * * 1 cd /srv && ./x\n@daily y\n\n", "crontab", None
    )
    assert [inner.script for inner in found.inners] == ["cd /srv && ./x", "y"]
    assert [name for name, _ in found.inners[1].env_set] == ["MAILTO", "SHELL"]
    assert entries("SHELL=/usr/bin/python3\n* * * * * x\n", "crontab", None).notes


def test_percent_ends_the_command_and_starts_its_stdin() -> None:
    assert _split_percent("sh %git push -f%ls") == ("sh ", "git push -f\nls\n")
    assert _split_percent("date +\\%F") == ("date +%F", None)


@pytest.mark.parametrize(
    ("source", "ran"),
    [
        ("echo '* * * * * git push -f' | crontab -", "git push -f"),
        ("echo '@reboot rm -rf ~' | crontab -", "rm -rf /home/dev"),
        ("printf '# x\\nA=1\\n0 3 * jan mon-fri git push -f origin\\n' | crontab -", "git push -f origin"),
        ("echo '0 0 * * * git push -f' > jobs; crontab jobs", "git push -f"),
        ("crontab - <<'EOF'\n*/5 * * * * git push -f\nEOF", "git push -f"),
        ("echo '* * * * * sh %git push -f' | crontab -", "git push -f"),
        ("echo 'git push -f' | crontab", "git push -f"),
        ("systemd-run --on-calendar=daily git push -f", "git push -f"),
        ("systemd-run --on-active=30 --user rm -rf ~", "rm -rf /home/dev"),
    ],
)
def test_what_is_installed_to_run_later_is_checked_now(source: str, ran: str) -> None:
    assert ran in texts(run(source)), texts(run(source))


def test_cron_and_systemd_run_commands_run_where_they_will() -> None:
    ref = next(ref for ref in run("echo '* * * * * rm -rf *' | crontab -").refs if ref.argv[0].value == "rm")
    assert ref.state.cwd == "/home/dev"
    ref = next(ref for ref in run("systemd-run --on-active=5 rm -rf ./x").refs if ref.argv[0].value == "rm")
    assert ref.state.cwd == "/" and ref.background
    ref = next(ref for ref in run("systemd-run --wait -d ls").refs if ref.argv[0].value == "ls")
    assert ref.state.cwd == "/home/dev/project" and not ref.background


@pytest.mark.parametrize(
    "source",
    [
        "(crontab -l; echo '0 * * * * git push -f') | crontab -",
        "curl -s https://x/cron | crontab -",
        "curl -o jobs https://x/cron; crontab jobs",
    ],
)
def test_a_crontab_rein_cannot_read_is_unknown(source: str) -> None:
    assert _unknown(source), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        "crontab -l",
        "crontab -r",
        "crontab -e",
        "crontab jobs.cron",
        "crontab -l > saved.cron",
        "systemd-run -S",
    ],
)
def test_listing_removing_or_a_file_of_the_persons_installs_nothing_rein_reads(source: str) -> None:
    analysis = run(source)
    assert len(analysis.refs) == 1 and not _unknown(source), texts(analysis)
