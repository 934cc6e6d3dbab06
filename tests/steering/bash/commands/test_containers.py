"""Containers: `--entrypoint` is the program and the words after the image its arguments; a detached
run says so in its label; `oc rsh`, `kubectl create ... -- cmd`, `podman unshare`."""

from __future__ import annotations

import pytest

from tests.steering.bash.commands._runs import chains, unknown
from tests.steering.bash.helpers import CWD, run

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("docker run --rm --entrypoint git img push -f", [(PUSH, ("docker run",))]),
        ("podman run --entrypoint rm img -rf /", [("rm -rf /", ("podman run",))]),
        ("nerdctl run --entrypoint=git img push -f", [(PUSH, ("nerdctl run",))]),
        (f"docker compose run --entrypoint '{PUSH}' web", [(PUSH, ("docker compose run",))]),
        ("docker run --entrypoint '' img git push -f", [(PUSH, ("docker run",))]),
        ("docker run -d --rm img npm run dev", [("npm run dev", ("docker run -d",))]),
        ("docker run -dit img npm start", [("npm start", ("docker run -d",))]),
        ("docker run --detach=false img ls", [("ls", ("docker run",))]),
        ("docker container run --detach img ls", [("ls", ("docker container run -d",))]),
        (
            "podman run -d img ls; nerdctl run -d img ls",
            [("ls", ("podman run -d",)), ("ls", ("nerdctl run -d",))],
        ),
        ("docker exec -d web ls", [("ls", ("docker exec -d",))]),
        (f"oc rsh pod {PUSH}", [(PUSH, ("oc rsh",))]),
        (f"oc rsh -c app --shell=/bin/bash pod {PUSH}", [(PUSH, ("oc rsh",))]),
        (f"kubectl create job x --image=a -- {PUSH}", [(PUSH, ("kubectl create",))]),
        (f"oc create cronjob x --image=a --schedule='* * * * *' -- {PUSH}", [(PUSH, ("kubectl create",))]),
        ("podman unshare rm -rf ~", [("rm -rf /home/dev", ("podman unshare",))]),
        ("podman unshare --rootless-netns ls", [("ls", ("podman unshare",))]),
    ],
)
def test_what_a_container_runs(source: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert chains(source) == expected


def test_podman_unshare_runs_here() -> None:
    (ref,) = [ref for ref in run("podman unshare ls").refs if ref.wrappers]
    assert ref.state.cwd == CWD


def test_nothing_runs_without_a_command() -> None:
    assert chains("kubectl create deployment web --image=nginx") == []
    assert chains("oc rsh pod") == []
    assert chains("docker run --entrypoint sh img") == [("sh", ("docker run",))]


def test_a_dynamic_entrypoint_is_unknown() -> None:
    assert unknown('docker run --entrypoint "$E" img')
