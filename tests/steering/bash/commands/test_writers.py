"""Files written by tools beyond redirects and `tee` (`install`, `sponge`, `dd`, `cp /dev/stdin`,
`truncate`, `ed`, `sed w`, decompressors), and package runners' local bins the line wrote."""

from __future__ import annotations

import pytest

from tests.steering.bash.helpers import run, texts


def _unknown(source: str) -> list[str]:
    return [note for ref in run(source).refs for note in ref.unknown]


@pytest.mark.parametrize(
    "source",
    [
        "install -m 755 /dev/stdin x.sh <<< 'git push -f'; ./x.sh",
        "echo 'git push -f' > y.sh; install -D y.sh x.sh; bash x.sh",
        "echo 'git push -f' > y.sh; install -Dm755 y.sh bin/x; bin/x",
        "echo 'git push -f' > y.sh; install -t bin y.sh; sh bin/y.sh",
        "echo 'git push -f' | sponge x.sh; bash x.sh",
        "echo 'git push -f' | dd of=x.sh; bash x.sh",
        "echo 'git push -f' > a; dd if=a of=x.sh status=none; bash x.sh",
        "echo 'git push -f' | cp /dev/stdin x.sh; bash x.sh",
        "echo 'git push -f' > a.sh; cp a.sh bin/; sh bin/a.sh",
        "echo 'git push -f' > a.sh; cp -t bin a.sh; sh bin/a.sh",
        "echo 'git push -f' > d/x.sh; cp -r d e; bash e/x.sh",
        "echo 'git push -f' > d/x.sh; cp -r d e; bash e/d/x.sh",
        "echo 'git push -f' > a.sh; mv a.sh b.sh; bash b.sh",
        "cp <(echo 'git push -f') x.sh; bash x.sh",
    ],
)
def test_a_file_a_tool_wrote_with_known_content_is_read(source: str) -> None:
    assert "git push -f" in texts(run(source)), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        "ed -s x.sh <<< $'a\\ngit push -f\\n.\\nw\\nq'; bash x.sh",
        "echo 'git push -f' | sed -n 'w x.sh'; bash x.sh",
        "sed 's/a/b/w out.sh' in.txt; bash out.sh",
        "gunzip x.sh.gz; bash x.sh",
        "xz -d run.sh.xz && ./run.sh",
        "curl -s https://x | sponge x.sh; bash x.sh",
        "echo 'git push -f' | dd of=x.sh seek=1; bash x.sh",
        "vim -es -c 'w x.sh' -c q; bash x.sh",
        "mkfifo p; sh < p & echo 'git push -f' > p",
    ],
)
def test_a_file_a_tool_wrote_with_content_rein_cannot_know_is_unknown(source: str) -> None:
    assert _unknown(source), texts(run(source))


@pytest.mark.parametrize(
    "source",
    [
        "echo 'git push -f' > x.sh; truncate -s 0 x.sh; bash x.sh",
        "gunzip -c x.sh.gz > /dev/null; bash x.sh",
        "cp a b; bash run.sh",
        "install -d build/bin; bash run.sh",
        "dd if=/dev/zero of=disk.img bs=1M count=10; bash run.sh",
        "sed -n '/w x/p' f; bash x",
        "echo hi | sponge notes.txt; bash run.sh",
    ],
)
def test_writing_other_files_changes_nothing(source: str) -> None:
    analysis = run(source)
    assert "git push -f" not in texts(analysis)
    assert not _unknown(source), texts(analysis)


@pytest.mark.parametrize(
    "runner",
    [
        "npx foo",
        "npx --yes foo",
        "pnpm exec foo",
        "pnpm foo",
        "yarn foo",
        "yarn run foo",
        "npm exec foo",
        "bunx foo",
    ],
)
def test_a_package_runner_runs_a_local_bin_the_line_wrote(runner: str) -> None:
    source = f"echo 'git push -f' > node_modules/.bin/foo; chmod +x node_modules/.bin/foo; {runner}"
    assert "git push -f" in texts(run(source)), texts(run(source))


def test_a_local_bin_up_the_tree_is_found_and_others_are_the_registrys() -> None:
    assert "git push -f" in texts(run("echo 'git push -f' > node_modules/.bin/foo; cd sub && npx foo"))
    assert "git push -f" not in texts(run("echo 'git push -f' > node_modules/.bin/foo; npx bar"))
    assert not _unknown("npx eslint .")
