"""`rein packs`, and `rein check`/`rein explain` on a pack rule that asks: real subprocesses, real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run_rein


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = home / "project"
    (project / ".rein").mkdir(parents=True)
    return project, home


@pytest.mark.slow
def test_rein_packs_lists_every_pack_with_its_verdict_and_where_it_was_set(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    config = project / ".rein" / "steering.toml"
    config.write_text('packs = { database = "block", publish = "off", "kubernetes-drain" = "block" }\n')
    done = run_rein("packs", "--json", cwd=project, home=home)
    assert done.returncode == 0, done.stderr
    packs = {pack["name"]: pack for pack in json.loads(done.stdout)}
    assert list(packs)[:3] == ["disk", "permissions", "system"] and len(packs) == 10
    assert (packs["disk"]["verdict"], packs["disk"]["source"]) == ("block", "default")
    assert (packs["cloud"]["verdict"], packs["cloud"]["source"]) == ("ask", "default")
    assert (packs["database"]["verdict"], packs["database"]["source"]) == (
        "block",
        f"{config} (packs.database)",
    )
    assert {rule["verdict"] for rule in packs["publish"]["rules"]} == {"off"}
    drain = next(rule for rule in packs["kubernetes"]["rules"] if rule["name"] == "kubernetes-drain")
    assert (drain["verdict"], drain["source"]) == ("block", f"{config} (packs.kubernetes-drain)")
    table = run_rein("packs", cwd=project, home=home)
    assert table.returncode == 0 and "database" in table.stdout and "publish" in table.stdout
    rules = run_rein("packs", "kubernetes", cwd=project, home=home)
    assert rules.returncode == 0 and "kubernetes-drain" in rules.stdout


@pytest.mark.slow
def test_rein_packs_names_an_unknown_pack_or_a_broken_setting_in_one_line(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = run_rein("packs", "databse", cwd=project, home=home)
    assert done.returncode == 2 and "no pack is named 'databse'" in done.stderr
    (project / ".rein" / "steering.toml").write_text('packs = { databse = "off" }\n')
    done = run_rein("packs", cwd=project, home=home)
    assert done.returncode == 2 and "packs: no pack or pack rule is named 'databse'" in done.stderr


@pytest.mark.slow
def test_check_says_ask_and_exits_1_and_a_setting_turns_it_into_a_block_or_off(
    dirs: tuple[Path, Path],
) -> None:
    project, home = dirs
    command = "sudo -u x env A=1 timeout 5 kubectl delete ns staging"
    done = run_rein("check", "--json", "--", command, cwd=project, home=home)
    verdict = json.loads(done.stdout)
    assert done.returncode == 1
    assert (verdict["decision"], verdict["rule"], verdict["pack"]) == (
        "ask",
        "kubernetes-delete-namespace",
        "kubernetes",
    )
    assert run_rein("check", "--", command, cwd=project, home=home).stdout.startswith("ask [steering:")
    (project / ".rein" / "steering.toml").write_text('packs = { kubernetes = "block" }\n')
    assert (
        json.loads(run_rein("check", "--json", "--", command, cwd=project, home=home).stdout)["decision"]
        == "block"
    )
    (project / ".rein" / "steering.toml").write_text('packs = { kubernetes = "off" }\n')
    assert run_rein("check", "--", command, cwd=project, home=home).returncode == 0


@pytest.mark.slow
def test_explain_shows_the_pack_and_rule_of_each_decision(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = run_rein(
        "explain", "--json", "--", "ls && bash -c 'kubectl delete ns staging'", cwd=project, home=home
    )
    out = json.loads(done.stdout)
    assert done.returncode == 1 and out["decision"] == "ask" and out["pack"] == "kubernetes"
    decided = [c for c in out["commands"] if c["rule"]]
    assert decided and all(c["pack"] == "kubernetes" and c["asks"] for c in decided)
    text = run_rein("explain", "--", "kubectl delete ns staging", cwd=project, home=home).stdout
    assert "pack kubernetes, asks" in text and "ask [steering:kubernetes-delete-namespace@packs]" in text
