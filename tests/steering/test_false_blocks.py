"""Ordinary commands agents run that rein used to block, next to the dangerous spellings that must stay
blocked: strings of unknown programs, heredoc lines, `tmux send-keys`, `find` filters, removal below
an unknown directory, deserialization."""

from __future__ import annotations

import pytest

from tests.steering.conftest import Check

ALLOWED = [
    # a string argument that is no command line
    "mytool 'int(a() / b())'",
    "logger -t deploy 'ran git reset --hard'",
    "submit 'grep -c x | wc -l'",
    "notify 'deploy: git push --force was refused'",
    "mytool --query 'select * from t where a > 1'",
    "mytool 'rm -rf build'",
    # heredoc lines
    "python3 - <<EOF 2>&1 | tail -5\nprint(1)\nEOF",
    "python3 - <<'EOF' > out.txt 2>&1\nprint(1)\nEOF",
    "python3 2>&1 <<EOF | grep x\nprint('x')\nEOF",
    "cat <<EOF | sh\necho hi\nEOF",
    "cat <<A && cat <<B\na\nA\nb\nB",
    "cat <<EOF > f.txt && wc -l f.txt\nx\nEOF",
    "cat <<-EOF 2>&1 | tail\n\tx\n\tEOF",
    "nohup python3 - <<EOF > log 2>&1 &\nprint(1)\nEOF",
    # find filters
    "find ~ -name '*.pyc' -delete",
    "find /tmp -name 'tmp.*' -mtime +1 -exec rm -rf {} +",
    "find /tmp -maxdepth 1 -name 'pytest-*' -type d -exec rm -rf {} +",
    "find ~/.cache -name '*.tmp' -delete",
    "find ~ -type f -name '*.log' -exec rm -f {} +",
    "find /home/dev/.. -name '*.pyc' -delete",
    # removal below a directory rein cannot read
    'rm -rf "${TMPDIR:-/tmp}/build-"*',
    'rm -rf "$X"/build-*',
    'rm -rf "$OUT"/*.pyc',
    'rm -rf "$CACHE"/.cache-*',
    # deserialization of files
    'python -c \'import pickle; print(pickle.load(open("x.pkl","rb")))\'',
    "python3 -c 'import torch; m = torch.load(\"m.pt\")'",
    "python3 -c 'import joblib; print(joblib.load(\"m.joblib\"))'",
    "python3 -c 'import pandas as pd; print(pd.read_pickle(\"df.pkl\"))'",
]

BLOCKED = [
    ("hyperfine 'git push --force'", "no-force-push"),
    ("mytool 'X=1 git push -f'", "no-force-push"),
    ("mytool 'sudo git push -f'", "no-force-push"),
    ("mytool 'bash -c \"git push -f\"'", "no-force-push"),
    ("mytool '$(git push -f) x'", "no-force-push"),
    ("mytool 'cd /tmp && git clean -fdx'", "no-git-clean-force"),
    ("python3 - <<EOF 2>&1 | tail -5\nimport os\nos.system('git push -f')\nEOF", "no-force-push"),
    ("cat <<EOF 2>&1 | sh\ngit push -f\nEOF", "no-force-push"),
    ("cat <<A && bash <<B\necho\nA\ngit push -f\nB", "no-force-push"),
    ("echo 'git push -f' > x.sh; bash <<EOF x.sh\necho hi\nEOF", "no-force-push"),
    ("bash <<<x <<EOF\ngit push -f\nEOF", "no-force-push"),
    ("find /tmp -name 'tmp*' -mtime +1 -exec rm -rf {} +", "no-rm-root"),
    ("find ~ -type f -delete", "no-rm-root"),
    ("find ~ -mindepth 1 -delete", "no-rm-root"),
    ("find ~ -delete -name '*.pyc'", "no-rm-root"),
    ("find ~ -name '*.pyc' -o -delete", "no-rm-root"),
    ("find ~ ! -name '*.pyc' -delete", "no-rm-root"),
    ("find ~ -name '.*' -delete", "no-rm-root"),
    ("find /home -name dev -exec rm -rf {} +", "no-rm-root"),
    ("find /home -iname DEV -delete", "no-rm-root"),
    ("find / -name '*.pyc' -delete", "no-rm-root"),
    ("find -L ~ -name x -delete", "no-rm-root"),
    ('rm -rf "$X"/*', "no-rm-root"),
    ('rm -rf "$X"*', "no-rm-root"),
    ("rm -rf $X/", "no-rm-root"),
    ('rm -rf "$X"/.*', "no-rm-root"),
    ('rm -rf "$X"/d*', "no-rm-root"),
    ('rm -rf "$X"/..?*', "no-rm-root"),
    ("python3 -c 'import pickle; pickle.loads(b\"cposix\\nsystem\\n(Vgit push -f\\ntR.\")'", "unknown"),
]


@pytest.mark.parametrize("command", ALLOWED)
def test_allowed(check: Check, command: str) -> None:
    verdict = check(command)
    assert verdict.allow, verdict.reason


@pytest.mark.parametrize(("command", "rule"), BLOCKED)
def test_blocked(check: Check, command: str, rule: str) -> None:
    assert check(command).rule == rule
