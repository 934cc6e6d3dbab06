"""Gemini CLI's trusted folders: what `status` reads and what `trust` writes, as Gemini CLI 0.61.0 does."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from rein.hooks import InstallError
from rein.hooks._trust import Module, module
from rein.hooks._trust_gemini import decision


def _gemini() -> Module:
    found = module("gemini")
    assert found is not None
    return found


GEMINI = _gemini()


@dataclass(frozen=True)
class Home:
    home: Path
    project: Path

    @property
    def record(self) -> Path:
        return self.home / ".gemini" / "trustedFolders.json"

    @property
    def hooks(self) -> Path:
        return self.project / ".gemini" / "settings.json"

    def rules(self, rules: dict[str, str] | str) -> None:
        self.record.parent.mkdir(parents=True, exist_ok=True)
        self.record.write_text(rules if isinstance(rules, str) else json.dumps(rules))

    def status(self, scope: str = "project") -> tuple[bool, str]:
        hooks = self.hooks if scope == "project" else self.home / ".gemini" / "settings.json"
        found = GEMINI.status(
            hooks, scope="project" if scope == "project" else "user", cwd=self.project, home=self.home
        )
        assert found.record == self.record
        return found.trusted, found.detail

    def trust(self, scope: str = "project") -> bool:
        """Apply `trust`; whether it changed the file."""
        hooks = self.hooks if scope == "project" else self.home / ".gemini" / "settings.json"
        change = GEMINI.trust(
            hooks, scope="project" if scope == "project" else "user", cwd=self.project, home=self.home
        )
        assert change.path == self.record
        change.write()
        return change.changed


@pytest.fixture
def where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    for name in ("GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)
    home = tmp_path / "home"
    project = home / "code" / "project"
    project.mkdir(parents=True)
    return Home(home=home, project=project)


def test_a_project_not_listed_is_not_trusted_and_says_how(where: Home) -> None:
    trusted, detail = where.status()
    assert not trusted
    assert "rein hook install gemini --project --trust" in detail and "/permissions trust" in detail
    assert str(where.project) in detail and "\n" not in detail
    assert "--skip-trust" in detail


def test_rules_decide_as_gemini_does(where: Home) -> None:
    code = str(where.home / "code")
    cases: list[tuple[dict[str, str], bool]] = [
        ({str(where.project): "TRUST_FOLDER"}, True),
        ({code: "TRUST_FOLDER"}, True),
        ({str(where.home / "code" / "other"): "TRUST_PARENT"}, True),  # its parent holds the project
        ({str(where.project): "TRUST_PARENT"}, True),
        ({code: "TRUST_FOLDER", str(where.project): "DO_NOT_TRUST"}, False),  # the longest path wins
        ({code: "DO_NOT_TRUST", str(where.project): "TRUST_FOLDER"}, True),
        ({str(where.home / "code" / "proj"): "TRUST_FOLDER"}, False),  # a prefix is not a parent
        ({str(where.project / "sub"): "TRUST_FOLDER"}, False),
        ({}, False),
    ]
    for rules, expected in cases:
        where.rules(rules)
        assert where.status()[0] is expected, rules


def test_a_symlinked_project_matches_its_real_folder(where: Home, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(where.project)
    assert decision({str(where.project): "TRUST_FOLDER"}, link) == (str(where.project), "TRUST_FOLDER")
    assert decision({str(link): "TRUST_FOLDER"}, where.project) == (str(link), "TRUST_FOLDER")


def test_a_user_install_needs_only_that_the_folder_is_not_distrusted(where: Home) -> None:
    trusted, detail = where.status("user")
    assert trusted and "--skip-trust" in detail
    where.rules({str(where.project): "DO_NOT_TRUST"})
    trusted, detail = where.status("user")
    assert not trusted and "DO_NOT_TRUST" in detail and "rein hook install gemini --trust" in detail
    assert where.trust("user")
    assert where.status("user")[0]


def test_a_user_install_in_a_new_folder_trusts_nothing(where: Home) -> None:
    where.rules({"/elsewhere": "TRUST_FOLDER"})
    before = where.record.read_text()
    assert not where.trust("user")
    assert where.record.read_text() == before


def test_folder_trust_turned_off_trusts_every_folder(where: Home) -> None:
    settings = where.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"security": {"folderTrust": {"enabled": False}}}))
    trusted, detail = where.status()
    assert trusted and str(settings) in detail
    settings.write_text(json.dumps({"security": {"folderTrust": {"enabled": True}}}))
    assert not where.status()[0]


def test_the_environment_overrides_the_file(where: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    assert where.status()[0]
    where.rules({str(where.project): "TRUST_FOLDER"})
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "false")
    trusted, detail = where.status()
    assert not trusted and "GEMINI_CLI_TRUST_WORKSPACE=false" in detail
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE")
    monkeypatch.setenv("GEMINI_RESTRICTED_MODE", "true")
    assert not where.status()[0]


def test_gemini_home_and_record_variables_move_the_file(
    where: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "gemini-home"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere))
    change = GEMINI.trust(where.hooks, scope="project", cwd=where.project, home=where.home)
    assert change.path == elsewhere / ".gemini" / "trustedFolders.json"
    record = tmp_path / "trust.json"
    monkeypatch.setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", str(record))
    change = GEMINI.trust(where.hooks, scope="project", cwd=where.project, home=where.home)
    assert change.path == record
    change.write()
    assert json.loads(record.read_text()) == {str(where.project.resolve()): "TRUST_FOLDER"}
    assert GEMINI.status(where.hooks, scope="project", cwd=where.project, home=where.home).trusted


def test_trust_adds_the_project_and_keeps_other_entries(where: Home) -> None:
    where.rules({"/srv/a": "TRUST_FOLDER", "/srv/b": "DO_NOT_TRUST"})
    assert where.trust()
    assert json.loads(where.record.read_text()) == {
        "/srv/a": "TRUST_FOLDER",
        "/srv/b": "DO_NOT_TRUST",
        str(where.project.resolve()): "TRUST_FOLDER",
    }
    trusted, detail = where.status()
    assert trusted and "TRUST_FOLDER" in detail
    assert not where.trust()  # a second time changes nothing


def test_trust_creates_the_file(where: Home) -> None:
    assert where.trust()
    assert json.loads(where.record.read_text()) == {str(where.project.resolve()): "TRUST_FOLDER"}


def test_trust_leaves_an_already_trusted_project_alone(where: Home) -> None:
    where.rules(json.dumps({str(where.project): "TRUST_PARENT"}, indent=4))
    before = where.record.read_text()
    assert not where.trust()
    assert where.record.read_text() == before


def test_trust_flips_a_distrusted_project_in_place(where: Home) -> None:
    where.rules({str(where.project): "DO_NOT_TRUST", "/srv": "TRUST_FOLDER"})
    assert where.trust()
    assert json.loads(where.record.read_text()) == {
        str(where.project): "TRUST_FOLDER",
        "/srv": "TRUST_FOLDER",
    }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{", "not valid JSON"),
        ("[]", "expected a JSON object"),
        ('{"/srv": "TRUST"}', 'trust level "TRUST"'),
        ('// a comment\n{"/srv": "TRUST_FOLDER"}', "not valid JSON"),
    ],
)
def test_a_file_gemini_would_refuse_is_named(where: Home, text: str, problem: str) -> None:
    where.rules(text)
    with pytest.raises(InstallError) as raised:
        where.trust()
    message = str(raised.value)
    assert message.startswith(f"{where.record}: ") and problem in message and "\n" not in message
    assert where.record.read_text() == text
    trusted, detail = where.status()
    assert not trusted and detail.startswith(f"{where.record}: ") and problem in detail
