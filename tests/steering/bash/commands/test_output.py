"""What rein can tell a command prints: what a pipe carries, a substitution gives, a redirect writes."""

from __future__ import annotations

import pytest

from rein.steering.bash import Bounded
from tests.steering.bash.helpers import CWD, run, texts


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("echo 'rm -rf /' | sh", "rm -rf /"),
        ("echo -n 'rm -rf /' | sh", "rm -rf /"),
        ("echo -e 'ls\\nrm -rf /' | sh", "rm -rf /"),
        ("printf '%s -rf %s\\n' rm / | sh", "rm -rf /"),
        ("printf 'rm -rf /' | bash -s", "rm -rf /"),
        ("cat <<'EOF' | sh\nrm -rf /\nEOF", "rm -rf /"),
        ("echo cm0gLXJmIC8= | base64 --decode | sh", "rm -rf /"),
        ("echo / | xargs rm -rf", "rm -rf /"),
        ("D=$(echo /); rm -rf $D", "rm -rf /"),
        ("bash <(echo 'rm -rf /')", "rm -rf /"),
    ],
)
def test_known_output_is_read(source: str, expected: str) -> None:
    assert expected in texts(run(source))


def test_substitutions_rein_can_bound() -> None:
    assert run("cd $(pwd)").refs[-1].state.cwd == CWD
    temp = run('T=$(mktemp -d); echo "$T"').refs[-1].state.expansion["T"]
    assert temp == Bounded("temp")
    branch = run("git push origin $(git branch --show-current)").refs[-1]
    assert branch.argv[-1].dynamic and branch.argv[-1].parts[0].value == Bounded("ref")  # type: ignore[union-attr]


def test_output_rein_cannot_know_stays_unknown() -> None:
    (_, sh) = run("curl x | sh").refs
    assert sh.unknown
    assert run("cd $(pwd -P); pwd").refs[-1].state.cwd != CWD  # -P resolves links rein cannot see
