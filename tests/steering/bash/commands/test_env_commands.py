"""Variables through which a program runs a command (`MANPAGER`, `LESSOPEN`, `EDITOR` for `crontab -e`)
or loads code (`NODE_OPTIONS`, `PERL5OPT`, `RUBYOPT`, `PYTHONSTARTUP`, `LD_PRELOAD`)."""

from __future__ import annotations

import pytest

from tests.steering.bash.helpers import run, texts

_JS = 'echo \'require("child_process").execSync("git push -f")\''


def _unknown(source: str) -> list[str]:
    return [note for ref in run(source).refs for note in ref.unknown]


@pytest.mark.parametrize(
    ("source", "ran"),
    [
        ("LESSOPEN='|rm -rf ~ %s' less f", "rm -rf /home/dev f"),
        ("LESSCLOSE='git push -f %s %s' less f", "git push -f f f"),
        ("MANPAGER='git push -f' man ls", "git push -f"),
        ("PAGER='git push -f' man ls", "git push -f"),
        ("MANOPT='-P \"git push -f\"' man ls", "git push -f"),
        ("BROWSER='git push -f' man -H ls", "git push -f"),
        ("SYSTEMD_PAGER='git push -f' journalctl -u x", "git push -f"),
        ("SYSTEMD_EDITOR='git push -f' systemctl edit x", "git push -f"),
        ("AWS_PAGER='git push -f' aws s3 ls", "git push -f"),
        ("SUDO_ASKPASS='git push -f' sudo -A ls", "git push -f"),
        ("SUDO_EDITOR='git push -f' sudo -e /etc/hosts", "git push -f"),
        ("VISUAL='git push -f' sudoedit /etc/hosts", "git push -f"),
        ("SSH_ASKPASS='git push -f' ssh-add key", "git push -f"),
        ("RSYNC_RSH='git push -f' rsync a host:b", "git push -f"),
        ("EDITOR='git push -f' crontab -e", "git push -f"),
        ("KUBE_EDITOR='git push -f' kubectl edit deploy x", "git push -f"),
        ("FCEDIT='git push -f' fc", "git push -f"),
        ("FZF_DEFAULT_COMMAND='git push -f' fzf", "git push -f"),
        ("FZF_DEFAULT_OPTS=\"--preview 'git push -f'\" fzf", "git push -f"),
        ("BROWSER='git push -f' xdg-open https://x", "git push -f"),
        ("BROWSER='firefox:git push -f %s' sensible-browser https://x", "git push -f ${__rein_runtime__}"),
        ("BROWSER='git push -f' python3 -m webbrowser https://x", "git push -f"),
        ("GH_BROWSER='git push -f' gh repo view --web", "git push -f"),
        ("BROWSER='git push -f' cargo doc --open", "git push -f"),
        ("echo 'git push -f' > s.sh; SHELL=./s.sh tmux new -d", "git push -f"),
        ("echo 'git push -f' > s.sh; SHELL=./s.sh sudo -s ls", "git push -f"),
        ("echo 'git push -f' > p.sh; echo '--pre=./p.sh' > rc; RIPGREP_CONFIG_PATH=rc rg x", "git push -f"),
    ],
)
def test_a_variable_holds_a_command_the_program_runs(source: str, ran: str) -> None:
    assert any(ran in text for text in texts(run(source))), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        f"{_JS} > x.js; NODE_OPTIONS='--require ./x.js' npm test",
        f"{_JS} > x.js; NODE_OPTIONS=-r./x.js node app.js",
        f"{_JS} > x.mjs; NODE_OPTIONS=--import=./x.mjs mytool",
        "PERL5OPT='-Mstrict;system(q(git),q(push),q(-f))' perl -e 1",
        "echo 'system(\"git push -f\")' > X.pm; PERL5OPT=-MX perl -e 1",
        "PERL5DB='system(q(git),q(push),q(-f))' perl -d -e 1",
        "echo 'system(\"git push -f\")' > x.rb; RUBYOPT=-r./x ruby -e 1",
        "echo 'system(\"git push -f\")' > x.rb; RUBYOPT='-I. -rx' bundle exec rspec",
        "echo 'import os; os.system(\"git push -f\")' > s.py; PYTHONSTARTUP=s.py python3 -i",
        "echo 'import os; os.system(\"git push -f\")' > s.py; PYTHONSTARTUP=s.py ipython -c 1",
        "echo 'import os; os.system(\"git push -f\")' > sitecustomize.py; PYTHONPATH=. python3 -c 1",
    ],
)
def test_a_runtime_loads_code_the_line_wrote(source: str) -> None:
    assert "git push -f" in texts(run(source)), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        "LD_PRELOAD=./evil.so ls",
        "LD_PRELOAD=/tmp/x.so git status",
        "export LD_AUDIT=./a.so; cat f",
        "LD_PRELOAD=$(mktemp) ls",
        'MANPAGER="$P" man ls',
    ],
)
def test_what_a_variable_loads_or_runs_that_rein_cannot_read_is_unknown(source: str) -> None:
    assert _unknown(source), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        "LESSOPEN='| /usr/bin/lesspipe %s' less README.md",
        "MANPAGER='less -R' man ls",
        "EDITOR='git push -f' crontab -l",
        "EDITOR='git push -f' kubectl get pods",
        "ls | FZF_DEFAULT_COMMAND='git push -f' fzf",
        "BROWSER=firefox xdg-open https://x",
        "BROWSER='git push -f' python3 -c 'print(1)'",
        "SUDO_ASKPASS='git push -f' sudo ls",
        "NODE_OPTIONS='--max-old-space-size=4096' npm run build",
        "NODE_OPTIONS='--require ts-node/register' mocha",
        "PERL5OPT=-Mstrict perl -e 1",
        "PERL5DB='system(q(git),q(push),q(-f))' perl -e 1",
        "echo 'import os; os.system(\"git push -f\")' > s.py; PYTHONSTARTUP=s.py python3 -c 1",
        "echo 'import os; os.system(\"git push -f\")' > s.py; PYTHONSTARTUP=s.py python3 s.py.bak",
        "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ./server",
        "LD_PRELOAD=libfaketime.so.1 date",
        "export LD_PRELOAD=./x.so; echo hi",
    ],
)
def test_a_variable_the_program_does_not_read_there_runs_nothing(source: str) -> None:
    analysis = run(source)
    assert "git push -f" not in texts(analysis)
    assert not _unknown(source), texts(analysis)
