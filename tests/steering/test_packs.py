"""Packs as data: reading a pack file, the person's settings (`packs = {...}`), ask verdicts beside
block ones, and the `writes` field read from the command model."""

from __future__ import annotations

from pathlib import Path

import pytest

from rein.steering import ConfigError, Policy, Steering, ToolCall, build_policy, parse_layer
from rein.steering._packs import Pack, default_packs, pack_rules, pack_states, read_pack
from tests.steering.conftest import make_context

PACK = """\
name = "demo"
summary = "Deleting demo things"
allows = "Listing demo things"
verdict = "ask"

[[rule]]
name = "demo-delete"
reason = "Deleting a demo loses it. Ask the user."
command = "demo"
subcommand = "delete"
not_flags = "--dry-run"

[[rule]]
name = "demo-device"
reason = "Writing a device destroys its file system."
writes = "^/dev/sd[a-z]"
verdict = "block"
"""


def demo() -> Pack:
    return read_pack(PACK, "demo.toml")


def engine(*settings: tuple[str, dict[str, str]], disabled: frozenset[str] = frozenset()) -> Steering:
    states = pack_states([demo()], settings, disabled)  # type: ignore[arg-type]
    return Steering(Policy(rules=tuple(pack_rules(states)), packs=states))


def decide(steering: Steering, command: str) -> tuple[str, str | None]:
    verdict = steering.evaluate(ToolCall(tool="bash", command=command), make_context())
    return ("allow" if verdict.allow else "ask" if verdict.ask else "block"), verdict.rule


def test_a_pack_file_reads_into_rules_of_its_pack_with_its_verdict() -> None:
    pack = demo()
    assert (pack.name, pack.verdict, pack.summary, pack.allows) == (
        "demo", "ask", "Deleting demo things", "Listing demo things"
    )  # fmt: skip
    delete, device = pack.rules
    assert (delete.pack, delete.source, delete.verdict, delete.origin) == (
        "demo",
        "packs",
        "ask",
        "demo.toml:6",
    )
    assert device.verdict == "block"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = 'demo'\n", "demo.toml: pack: needs [[rule]] tables"),
        ("name = 'demo'\ncolour = 1\n[[rule]]\n", "unknown key 'colour'"),
        ("name = 'demo'\n[[rule]]\nname = 'x-y'\nreason = 'r'\ncommand = 'x'\n", "start with 'demo-'"),
        (
            "name = 'demo'\n[[rule]]\nname = 'demo-y'\nreason = 'r'\ncommand = 'x'\ntool = 'write'\n",
            "a write rule",
        ),
        ("name = 'demo'\nverdict = 'warn'\n[[rule]]\n", 'verdict must be one of block, ask, not "warn"'),
        ("name = [\n", "demo.toml: not valid TOML"),
    ],
)
def test_a_broken_pack_file_is_one_line_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read_pack(text, "demo.toml")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_pack_rule_asks_and_its_look_alikes_run() -> None:
    steering = engine()
    assert decide(steering, "demo delete thing") == ("ask", "demo-delete")
    assert decide(steering, "sudo -u x env A=1 timeout 5 demo delete thing") == ("ask", "demo-delete")
    assert decide(steering, "demo delete thing --dry-run") == ("allow", None)
    assert decide(steering, "demo list") == ("allow", None)
    assert decide(steering, "echo demo delete thing") == ("allow", None)


def test_a_block_anywhere_in_the_line_wins_over_an_ask() -> None:
    steering = engine()
    assert decide(steering, "demo delete a && cat x.img > /dev/sdb") == ("block", "demo-device")
    assert decide(steering, "cat x.img > /dev/sdb; demo delete a") == ("block", "demo-device")


def test_a_value_only_known_at_run_time_asks_with_a_reason_saying_so() -> None:
    verdict = engine().evaluate(ToolCall(tool="bash", command='demo "$ACTION" x'), make_context())
    assert verdict.ask and verdict.rule == "demo-delete" and "only known at run time" in verdict.reason
    assert "needs the user's approval" in verdict.reason and verdict.pack == "demo"


@pytest.mark.parametrize(
    "command",
    [
        "dd if=/dev/zero of=/dev/sdb bs=1M",
        "cat x.img > /dev/sdb",
        "sudo tee /dev/sdc < x.img",
        "cp x.img /dev/sdd",
        'D=/dev/sde; bash -c "cat img > $D"',
        "pv x.img | sudo dd of=/dev/sdb",
    ],
)
def test_writes_reads_every_way_a_command_writes_a_file(command: str) -> None:
    assert decide(engine(), command) == ("block", "demo-device")


@pytest.mark.parametrize(
    "command", ["dd if=/dev/sdb of=disk.img", "cat /dev/sdb > disk.img", "echo x > /dev/null"]
)
def test_reading_a_device_into_a_file_writes_no_device(command: str) -> None:
    assert decide(engine(), command) == ("allow", None)


def test_settings_change_a_pack_and_a_rule_and_say_where_they_came_from() -> None:
    home, project = "/h/.rein/steering.toml", "/p/.rein/steering.toml"
    states = pack_states(
        [demo()],
        [(project, {"demo-delete": "block"}), (home, {"demo": "off", "demo-delete": "ask"})],
        frozenset(),
    )
    (state,) = states
    assert (state.verdict, state.source) == ("off", f"{home} (packs.demo)")
    delete, device = state.rules
    assert (delete.verdict, delete.source) == ("block", f"{project} (packs.demo-delete)")
    assert (device.verdict, device.source) == ("off", f"{home} (packs.demo)")
    assert [rule.name for rule in pack_rules(states)] == ["demo-delete"]


def test_a_rule_the_pack_file_sets_keeps_its_verdict_until_the_person_sets_the_pack() -> None:
    (state,) = pack_states([demo()], [], frozenset())
    assert [(r.verdict, r.source) for r in state.rules] == [("ask", "default"), ("block", "default")]
    (state,) = pack_states([demo()], [("f", {"demo": "ask"})], frozenset())
    assert [r.verdict for r in state.rules] == ["ask", "ask"]


def test_disabled_rules_turn_a_pack_rule_off() -> None:
    steering = engine(disabled=frozenset({"demo-delete"}))
    assert decide(steering, "demo delete thing") == ("allow", None)
    assert steering.policy.packs[0].rules[0].source == "disabled_rules"


def test_an_unknown_pack_name_is_an_error_naming_the_file() -> None:
    with pytest.raises(ConfigError, match=r"^f\.toml: packs: no pack or pack rule is named 'dmeo'"):
        pack_states([demo()], [("f.toml", {"dmeo": "off"})], frozenset())


def test_the_config_file_packs_table_reaches_the_policy() -> None:
    layer = parse_layer('packs = { disk = "ask" }\n', "/p/.rein/steering.toml")
    assert dict(layer.packs) == {"disk": "ask"}
    with pytest.raises(ConfigError, match=r'packs\.disk must be one of block, ask, off, not "no"'):
        parse_layer('packs = { disk = "no" }\n', "/p/.rein/steering.toml")


def test_rein_ships_ten_packs_each_with_rules_a_summary_and_its_look_alikes() -> None:
    packs = default_packs()
    assert [pack.name for pack in packs] == [
        "disk", "permissions", "system", "database", "containers", "kubernetes", "cloud", "iac", "hosting",
        "publish",
    ]  # fmt: skip
    verdicts = {pack.name: pack.verdict for pack in packs}
    assert {name for name, verdict in verdicts.items() if verdict == "block"} == {
        "disk",
        "permissions",
        "system",
    }
    for pack in packs:
        assert pack.summary and pack.allows and pack.rules, pack.name
        files = Path(__file__).parents[2] / "src" / "rein" / "steering" / "packs" / f"{pack.name}.toml"
        assert files.is_file()


def test_disable_defaults_turns_every_pack_off() -> None:
    built = build_policy([parse_layer("disable_defaults = true\n", "/p/.rein/steering.toml")])
    assert all(s.verdict == "off" and s.source == "disable_defaults" for s in built.policy.packs)
    assert not any(rule.pack for rule in built.policy.rules)


def test_the_docs_packs_table_says_what_each_pack_file_says() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "steering.md").read_text()
    for pack in default_packs():
        row = f"| `{pack.name}` | {pack.verdict} | {pack.summary} | {pack.allows} |"
        assert row in docs, f"docs/steering.md: the packs table's row for {pack.name} differs from its file"


def test_every_pattern_of_rein_s_packs_compiles() -> None:
    """rein's packs compile their patterns at the first search (a hook pays only for the rules its
    command meets): this is where a broken one is found instead."""
    for pack in default_packs():
        for rule in pack.rules:
            matcher = rule.matcher
            patterns = [
                matcher.pattern,
                rule.requires,
                rule.unless,
                *matcher.args,
                *matcher.writes,
                *matcher.code,
            ]
            for pattern in patterns:
                if pattern is not None:
                    pattern.search("")  # a pattern that does not compile raises ValueError here
