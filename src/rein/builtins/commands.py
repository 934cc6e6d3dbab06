"""rein's own slash commands, loaded as a built-in extension so they sit in the session's registry
beside the extensions' commands (and `/help` lists them all):

    /help                  every command, one line each, sorted
    /quit, /exit           end the session (the UI checks `AgentSession.quit_requested`)
    /model [provider/]id   show the model, or switch it (a `model_change` entry records the switch)
    /rules                 the stream rules loaded, and how often each fired in this session
    /steering              the steering rules in force, and the latest decisions
    /session, /new, /resume   the session file (see `_session_commands`)
    /tree, /fork, /label      the session tree (see `_tree_commands`)

Every command answers through `ctx.ui.notify`, one notice per command.
"""

from __future__ import annotations

from collections.abc import Sequence

from rein._settings_schema import PROVIDERS
from rein.ai import Model, UnknownProviderError, default_model, get_provider, provider_names
from rein.builtins._compact_command import CompactCommand
from rein.builtins._session_commands import SessionCommands
from rein.builtins._tree_commands import TreeCommands
from rein.builtins.steering import HEADINGS, SteeringExtension, rule_tool
from rein.builtins.ttsr import TtsrExtension
from rein.extensions import ExtensionAPI, ExtensionContext
from rein.session import AgentSession

DEFAULT_MODELS = {name: default_model(name) for name in PROVIDERS if name != "faux"}
"""Each built-in provider's default model: `/model`'s completions. Installed providers are not listed
here (reading the installed packages costs every start); `/model <name>` still finds them."""


def provider_default(name: str) -> str:
    """The model a provider named alone gets (`/model NAME`, `rein --provider NAME`): a built-in's
    default ("" for faux, whose scripts need none), else what an installed provider declares."""
    return DEFAULT_MODELS.get(name, "") if name in PROVIDERS else default_model(name)


RECENT_SHOWN = 10
"""How many of steering's latest decisions `/steering` shows."""


class CommandsExtension:
    def __init__(
        self,
        rein: ExtensionAPI,
        session: AgentSession,
        *,
        home: str,
        ttsr: TtsrExtension,
        steering: SteeringExtension,
    ) -> None:
        self.rein = rein
        self.session = session
        self.ttsr = ttsr
        self.steering = steering
        self.files = SessionCommands(session, home=home)
        on = rein.register_command
        on("help", "List the commands, one line each", self.help)
        on("quit", "End the session", self.quit)
        on("exit", "End the session (as /quit)", self.quit)
        models = tuple(f"{provider}/{model}" for provider, model in DEFAULT_MODELS.items())
        on("model", "Show the model, or switch it: /model [provider/]id", self.model, models)
        on("rules", "The stream rules loaded and how often each fired", self.rules)
        on("steering", "The steering rules in force and the latest decisions", self.steering_report)
        on("session", "This session's file, id, entry count and tokens used", self.files.show)
        on("new", "Start a new session in this directory", self.files.new)
        on("resume", "Pick a session of this directory and continue it", self.files.resume)
        tree = TreeCommands(session, home=home)
        compact = CompactCommand(session)
        on("tree", "Walk the session tree and continue from any entry: /tree [id|label]", tree.tree)
        on("fork", "A new session file from the current branch", tree.fork)
        on("label", "Label the current entry, or clear its label: /label [text]", tree.label)
        on("compact", "Summarize this branch's older turns now: /compact [what to focus on]", compact.compact)

    def help(self, args: str, ctx: ExtensionContext) -> None:
        commands = sorted(self.session.registry.commands.values(), key=lambda command: command.name)
        width = max(len(command.name) for command in commands) + 2
        lines = [f"/{command.name:<{width}}{command.description}" for command in commands]
        ctx.ui.notify("\n".join(lines))

    def quit(self, args: str, ctx: ExtensionContext) -> None:
        self.session.request_quit()

    def model(self, args: str, ctx: ExtensionContext) -> None:
        current = self.session.model
        if not args:
            at = f" at {current.base_url}" if current.base_url else ""
            ctx.ui.notify(f"model: {current.provider}/{current.id}{at}")
            return
        provider, model_id = _parse_model(args, current.provider)
        if not model_id:
            ctx.ui.notify(f"/model {args}: no default model for {provider}; name one: /model {provider}/ID")
            return
        if provider != current.provider:
            try:
                self.session.provider = get_provider(provider)
            except (UnknownProviderError, ImportError) as error:
                ctx.ui.notify(f"/model {args}: {error}", "error")
                return
        # A base URL names a server of the current provider; another provider has its own.
        base_url = current.base_url if provider == current.provider else None
        self.session.model = Model(provider=provider, id=model_id, base_url=base_url)
        if self.session.store.writable:
            self.session.store.append_model_change(provider, model_id)
        ctx.ui.notify(f"model: {provider}/{model_id}")

    def rules(self, args: str, ctx: ExtensionContext) -> None:
        rules = self.ttsr.manager.rules
        if not rules:
            ctx.ui.notify("no stream rules loaded (rein reads .rein/rules/ and ~/.rein/rules/)")
            return
        fired = self.ttsr.fired()
        rows = [
            (rule.name, rule.origin, f"fired {fired.get(rule.name, 0)}", ", ".join(rule.scope.tokens()))
            for rule in rules
        ]
        ctx.ui.notify("\n".join([f"stream rules ({len(rules)}):", *_table(rows)]))

    def steering_report(self, args: str, ctx: ExtensionContext) -> None:
        lines: list[str] = []
        if self.steering.problem is not None:
            lines.append(self.steering.problem)
        rules = [rule for rule in self.steering.rules if not rule.pack]
        lines.append(f"steering rules in force ({len(rules)}), first match wins:")
        overridable = self.steering.overridable
        rows = [
            (rule.name, rule.source, rule_tool(rule), "overridable" if rule.name in overridable else "")
            for rule in rules
        ]
        lines.extend(_table(rows))
        packs = self.steering.packs
        if packs:  # a line per pack: its rules are many, `rein packs NAME` lists them
            lines.append(f"packs ({len(packs)}; `rein packs` lists their rules):")
            rows = [
                (state.pack.name, state.verdict, f"{sum(r.verdict != 'off' for r in state.rules)} rules", "")
                for state in packs
            ]
            lines.extend(_table(rows))
        recent = list(self.steering.decisions)[-RECENT_SHOWN:]
        if not recent:
            lines.append("no tool calls decided yet")
        else:
            lines.append(f"latest decisions ({len(recent)}), oldest first:")
            lines.extend(_table([HEADINGS, *(decision.row() for decision in recent)]))
        ctx.ui.notify("\n".join(lines))


def _parse_model(text: str, current: str) -> tuple[str, str]:
    """`provider/id`, a bare provider name (its default model), or an id of the current provider (an
    id may hold slashes itself: `meta-llama/Llama-3`, a GGUF path)."""
    head, slash, tail = text.partition("/")
    if slash and head in provider_names():
        return head, tail
    if text in provider_names():
        return text, provider_default(text)
    return current, text


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Rows as aligned columns, indented under their heading."""
    if not rows:
        return []
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    return [
        "  "
        + "  ".join(
            [*(cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)), row[-1]]
        ).rstrip()
        for row in rows
    ]
