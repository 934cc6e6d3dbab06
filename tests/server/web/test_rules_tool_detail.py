"""The web page's Rules tab shows what a rule on any tool (an MCP tool) reads: the argument and the
SQL kinds, as `/steering` does (issue 37)."""

from __future__ import annotations

from pathlib import Path

from rein.server.web._rules import rules_body
from tests.builtins.test_steering_rules_row import RULES  # the same rules `/steering` shows


def test_a_tool_rules_detail_names_its_field_pattern_and_sql(tmp_path: Path) -> None:
    (tmp_path / ".rein").mkdir()
    (tmp_path / ".rein" / "steering.toml").write_text(RULES, encoding="utf-8")
    rules = rules_body(str(tmp_path), tmp_path / "home", [])["steering"]
    assert isinstance(rules, list)
    detail = {str(r["name"]): str(r["detail"]) for r in rules if isinstance(r, dict)}
    assert (
        detail["no-prod-writes"]
        == "mcp__pg__* field sql sql drop, write: The production database is read-only."
    )
    assert detail["no-main-base"] == (
        "mcp__github__create_pull_request field options.base /^main$/:"
        " Pull requests go to a release branch first."
    )
    assert detail["no-force-push"].startswith("bash git push ")  # bash rules read as before: no field
