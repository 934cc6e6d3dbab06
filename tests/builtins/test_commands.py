"""rein's own slash commands in a session on the faux provider: what each one says and does."""

from __future__ import annotations

import asyncio

from rein.ai import FauxProvider, TextContent, ToolCall
from rein.builtins import DEFAULT_MODELS
from rein.extensions import ExtensionContext
from rein.session import ModelChangeEntry, Session
from tests.builtins.conftest import Harness, MakeHarness

CONSOLE_RULE = "---\ncondition: 'console\\.log\\('\nscope: text\n---\nUse the logger.\n"


def said(h: Harness, *commands: str) -> list[str]:
    """Start the session, run `commands`, and return the notices they gave."""

    async def go() -> None:
        await h.session.start()
        for command in commands:
            await h.session.prompt(command)

    before = len(h.ui.notices)
    asyncio.run(go())
    return [message for message, _ in h.ui.notices[before:]]


def test_help_lists_every_command_once_sorted_with_its_own_and_the_extensions(
    harness: MakeHarness,
) -> None:
    h = harness([])

    def hello(args: str, ctx: ExtensionContext) -> None:
        ctx.ui.notify("hi")

    h.session.api("mine").register_command("hello", "Say hello", hello)
    (text,) = said(h, "/help")
    lines = text.splitlines()
    names = [line.split()[0] for line in lines]
    assert names == sorted(names) and len(names) == len(set(names))
    assert set(names) >= {
        "/help", "/quit", "/exit", "/model", "/timebox", "/rules", "/steering", "/session", "/new",
        "/resume", "/tree", "/fork", "/label", "/compact", "/hello",
    }  # fmt: skip
    assert "/hello     Say hello" in lines
    assert "/help      List the commands, one line each" in lines


def test_quit_and_exit_ask_the_host_to_end(harness: MakeHarness) -> None:
    for command in ("/quit", "/exit"):
        h = harness([])
        assert not h.session.quit_requested
        assert said(h, command) == []
        assert h.session.quit_requested


def test_an_unknown_command_points_to_help(harness: MakeHarness) -> None:
    h = harness([])
    assert said(h, "/nope") == ["unknown command /nope; /help lists the commands"]
    assert h.faux.calls == 0


def test_model_shows_and_switches_the_model_and_records_it(harness: MakeHarness) -> None:
    h = harness([])
    assert said(h, "/model") == ["model: faux/faux-1"]
    assert said(h, "/model faux/other") == ["model: faux/other"]
    assert h.session.model.id == "other" and h.session.provider is h.faux  # same provider kept
    assert said(h, "/model meta-llama/Llama-3") == ["model: faux/meta-llama/Llama-3"]
    assert said(h, "/model anthropic") == [f"model: anthropic/{DEFAULT_MODELS['anthropic']}"]
    assert h.session.provider is not h.faux and h.session.model.provider == "anthropic"
    assert said(h, "/model") == [f"model: anthropic/{DEFAULT_MODELS['anthropic']}"]
    assert h.store.path is not None
    reopened = Session.open(h.store.path)  # what a resume reads back
    changes = [(e.provider, e.model_id) for e in reopened.tree if isinstance(e, ModelChangeEntry)]
    assert changes == [
        ("faux", "other"),
        ("faux", "meta-llama/Llama-3"),
        ("anthropic", DEFAULT_MODELS["anthropic"]),
    ]
    assert h.session.registry.commands["model"].completions == tuple(
        f"{provider}/{model}" for provider, model in DEFAULT_MODELS.items()
    )


def test_model_keeps_the_base_url_only_for_the_same_provider(harness: MakeHarness) -> None:
    h = harness([])
    h.session.model = type(h.session.model)(provider="faux", id="a", base_url="http://127.0.0.1:9/v1")
    assert said(h, "/model") == ["model: faux/a at http://127.0.0.1:9/v1"]
    said(h, "/model b")
    assert h.session.model.base_url == "http://127.0.0.1:9/v1"
    said(h, "/model openai/gpt-4.1")
    assert h.session.model.base_url is None


def test_model_asks_for_an_id_when_the_provider_has_no_default(harness: MakeHarness) -> None:
    h = harness([])
    assert said(h, "/model faux") == ["/model faux: no default model for faux; name one: /model faux/ID"]
    assert h.session.model.id == "faux-1"


def test_rules_lists_the_stream_rules_and_their_firings(harness: MakeHarness) -> None:
    reply = [TextContent(text="console.log(1)")]
    h = harness([reply, [TextContent(text="fine")]], settings={"ttsr": {"builtin_rules": False}})
    assert said(h, "/rules") == ["no stream rules loaded (rein reads .rein/rules/ and ~/.rein/rules/)"]

    h = harness([reply, [TextContent(text="fine")]], settings={"ttsr": {"builtin_rules": False}})
    (h.project / ".rein" / "rules").mkdir(parents=True)
    (h.project / ".rein" / "rules" / "no-console-log.md").write_text(CONSOLE_RULE)
    (h.project / ".rein" / "rules" / "no-print.md").write_text(
        "---\ncondition: 'print\\('\nscope: tool:write(*.py)\n---\nNo print.\n"
    )
    assert said(h, "/rules") == [
        "stream rules (2):\n"
        "  no-console-log  .rein/rules  fired 0  text\n"
        "  no-print        .rein/rules  fired 0  tool:write(*.py)"
    ]
    (text,) = said(h, "write it", "/rules")[-1:]
    assert "  no-console-log  .rein/rules  fired 1  text" in text.splitlines()


def test_steering_lists_the_rules_in_force_and_the_latest_decisions(harness: MakeHarness) -> None:
    calls = [
        ToolCall(id="1", name="bash", arguments={"command": "git push --force origin main"}),
        ToolCall(id="2", name="bash", arguments={"command": "true"}),
        ToolCall(id="3", name="write", arguments={"path": "a.txt", "content": "x"}),
    ]
    h = harness([calls, [TextContent(text="ok")]])
    (before,) = said(h, "/steering")
    assert before.splitlines()[0].startswith("steering rules in force (")
    assert "  no-force-push           defaults  bash" in before.splitlines()
    assert before.splitlines()[-1] == "no tool calls decided yet"
    (after,) = said(h, "push", "/steering")[-1:]
    tail = after.splitlines()[-5:]
    assert tail == [
        "latest decisions (3), oldest first:",
        "  steering  outcome  tool   call                          rule",
        "  block     blocked  bash   git push --force origin main  no-force-push@defaults",
        "  allow     allowed  bash   true",
        "  allow     allowed  write  a.txt",
    ]


def test_steering_shows_which_rules_the_user_made_overridable_and_each_override(harness: MakeHarness) -> None:
    command = "git push --force origin main  # steering-override: no-force-push - my own branch"
    h = harness([[ToolCall(id="1", name="bash", arguments={"command": command})], [TextContent(text="ok")]])
    (h.project / ".rein").mkdir()
    (h.project / ".rein" / "steering.toml").write_text('allow_override = ["no-force-push"]\n')
    (text,) = said(h, "push", "/steering")[-1:]
    lines = text.splitlines()
    assert "  no-force-push           defaults  bash  overridable" in lines
    assert "  no-reset-hard           defaults  bash" in lines
    assert lines[-1].endswith("no-force-push@defaults (override)")


def test_steering_says_when_its_config_is_broken(harness: MakeHarness) -> None:
    h = harness([])
    (h.project / ".rein").mkdir()
    (h.project / ".rein" / "steering.toml").write_text("[[rule]]\nname = 'x'\n")
    (text,) = said(h, "/steering")[-1:]
    assert text.startswith("[steering:config@rein] steering config error, every tool call is blocked")
    assert "steering rules in force (0)" in text


def test_session_shows_the_file_id_entries_and_tokens(harness: MakeHarness) -> None:
    h = harness([[TextContent(text="a" * 40)], [TextContent(text="b" * 40)]])
    (before,) = said(h, "/session")
    assert before.splitlines() == [
        f"session file: {h.store.path}",
        f"id: {h.store.id}",
        "entries: 0",
        "tokens: 0 over 0 replies (0 in, 0 out)",
    ]
    (after,) = said(h, "one", "two", "/session")[-1:]
    usage = [m.usage for m in h.session.messages if hasattr(m, "usage")]
    total, out = sum(u.total for u in usage), sum(u.output for u in usage)
    assert total > 0 and len(usage) == 2
    assert after.splitlines()[2:] == [
        "entries: 4",
        f"tokens: {total} over 2 replies ({total - out} in, {out} out)",
    ]


def test_commands_never_reach_the_model(harness: MakeHarness) -> None:
    h = harness([])
    said(h, "/help", "/model", "/rules", "/steering", "/session", "/quit")
    assert h.faux.calls == 0 and h.session.messages == []
    assert isinstance(h.session.provider, FauxProvider)
