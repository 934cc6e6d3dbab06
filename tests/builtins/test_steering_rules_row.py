"""`/steering` lists a rule on any tool (an MCP tool) with the argument it reads and the SQL it looks
for, so the person sees what the rule checks (issue 37)."""

from __future__ import annotations

from tests.builtins.conftest import MakeHarness
from tests.builtins.test_commands import said

RULES = """
[[rule]]
name = "no-prod-writes"
reason = "The production database is read-only."
tool = "mcp__pg__*"
field = "sql"
sql = ["write", "drop"]

[[rule]]
name = "no-main-base"
reason = "Pull requests go to a release branch first."
tool = "mcp__github__create_pull_request"
field = "options.base"
pattern = "^main$"

[[rule]]
name = "no-merges"
reason = "Merges are done by a person."
tool = "mcp__github__merge_*"
"""


def test_steering_shows_a_tool_rules_field_and_sql(harness: MakeHarness) -> None:
    h = harness([])
    (h.project / ".rein").mkdir()
    (h.project / ".rein" / "steering.toml").write_text(RULES)
    (text,) = said(h, "/steering")[-1:]
    rows = {
        line.split()[0]: " ".join(line.split()[1:]) for line in text.splitlines() if line.startswith("  ")
    }
    assert rows["no-prod-writes"] == "user mcp__pg__* (field sql; sql drop, write)"
    assert rows["no-main-base"] == "user mcp__github__create_pull_request (field options.base)"
    assert rows["no-merges"] == "user mcp__github__merge_*"
    assert rows["no-force-push"] == "defaults bash"
