"""The schema of `settings.toml`: every group and key, its type, default and meaning.

`rein.settings.load_settings` checks each file against it; `docs/settings.md` documents it and a test
walks it, so a key added here is validated, documented and tested without anything else to remember.
Standard library only: the settings are read before anything heavy is imported.

The choices of `[ttsr]` and `[rein] provider` repeat values the engines and the provider registry own
(`rein.ttsr`, `rein.ai.provider_names()`); importing them here would load those packages on every
start, so a test checks that the two lists agree instead. A provider an installed package adds (the
`rein.providers` entry point group) is accepted too: its names are read only for a value that is not
built in, so a file that names a built-in provider never pays for the scan.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

Kind = Literal["bool", "string", "url", "count", "names", "choice", "tables", "entries"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Key:
    """One key of a group. `default` is what rein uses when no file sets it (None: nothing)."""

    name: str
    kind: Kind
    default: object
    doc: str
    choices: tuple[str, ...] = ()
    installed: str = ""
    """An entry point group whose names a `choice` accepts too (`rein.providers`)."""

    @property
    def allowed(self) -> str:
        """What the key accepts, as the docs say it (`accepted` adds the installed choices)."""
        match self.kind:
            case "bool":
                return "true or false"
            case "string":
                return "a non-empty string"
            case "url":
                return "an http:// or https:// URL"
            case "count":
                return "a whole number, 0 or more"
            case "names":
                return "a list of names (strings)"
            case "choice":
                return "one of " + ", ".join(self.choices)
            case "tables":
                return "a table of tables, one per name"
            case "entries":
                return "a list of tables, one per [[entry]]"

    def accepted(self) -> str:
        """What the key accepts, as an error message says it: `allowed`, with the names installed
        packages add after the built-in ones."""
        if not self.installed:
            return self.allowed
        names = [name for name in installed_names(self.installed) if name not in self.choices]
        return ", ".join([self.allowed, *names])

    def accepts(self, value: object) -> bool:
        match self.kind:
            case "bool":
                return isinstance(value, bool)
            case "string":
                return isinstance(value, str) and bool(value.strip())
            case "url":
                return isinstance(value, str) and value.startswith(("http://", "https://"))
            case "count":
                return isinstance(value, int) and not isinstance(value, bool) and value >= 0
            case "names":  # one name alone is taken as a list of one, as `[ttsr]` always has
                items = [value] if isinstance(value, str) else value
                return isinstance(items, list) and all(isinstance(item, str) and item for item in items)
            case "choice":
                if not isinstance(value, str) or value in self.choices:
                    return value in self.choices
                return bool(self.installed) and value in installed_names(self.installed)
            case "tables":  # each table's own keys are checked by their reader (`rein.mcp`)
                return isinstance(value, dict) and all(isinstance(item, dict) for item in value.values())
            case "entries":  # each entry's own keys are checked by their reader (`rein.proxy`)
                return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def installed_names(group: str) -> tuple[str, ...]:
    """The names installed packages declare in the entry point group `group`, sorted."""
    import importlib.metadata  # lazy: 35 ms, paid only for a value that is not built in

    return tuple(sorted({point.name for point in importlib.metadata.entry_points(group=group)}))


@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """A `[group]` table; `note` says where its settings live when it has no keys yet."""

    name: str
    doc: str
    keys: tuple[Key, ...]
    note: str = ""


PROVIDERS = ("anthropic", "faux", "local", "openai", "openai-responses")
"""The provider registry's names (`rein.ai.provider_names()`; a test keeps them equal)."""

REIN = Group(
    name="rein",
    doc="The agent: which model answers, and how tool calls that change things are approved.",
    keys=(
        Key(
            name="provider",
            kind="choice",
            choices=PROVIDERS,
            installed="rein.providers",
            default=None,
            doc="The provider when `--provider` is not given: a built-in one, or one an installed package"
            " adds. Unset: the one whose API key is set (ANTHROPIC_API_KEY, then OPENAI_API_KEY), else"
            " `local` when it is installed.",
        ),
        Key(
            name="model",
            kind="string",
            default=None,
            doc="The model id when `--model` is not given (for `local`, a GGUF file path). Unset: the"
            " provider's default model.",
        ),
        Key(
            name="base_url",
            kind="url",
            default=None,
            doc="An OpenAI- or Anthropic-compatible server (Ollama, vLLM, llama.cpp) when `--base-url`"
            " is not given. Unset: the provider's own URL, or ANTHROPIC_BASE_URL / OPENAI_BASE_URL.",
        ),
        Key(
            name="approve",
            kind="choice",
            choices=("ask", "auto", "deny"),
            default="ask",
            doc="Tool calls that change things (bash, write, edit) when `--approve` is not given: `ask`"
            " a person first (print and JSON modes, with nobody to ask, deny them), `auto` run them,"
            " `deny` block them.",
        ),
        Key(
            name="context_window",
            kind="count",
            default=None,
            doc="The model's context window in tokens, for models rein has no size for (a server's"
            " own model, say). Unset: rein's table of known models; for others, compaction waits for"
            " the provider's overflow error and learns the size from it.",
        ),
        Key(
            name="validation_hints",
            kind="bool",
            default=True,
            doc="After a tool batch that edited files or ran a failing command, tell the model once,"
            " in a hidden hint that is never saved, to check them before going on.",
        ),
        Key(
            name="max_repeated_calls",
            kind="count",
            default=4,
            doc="The same tool call (name and arguments) this many times in a row runs; the next gets a"
            " notice instead and the turn ends, so a model stuck on one command stops (0: no limit).",
        ),
    ),
)

TTSR = Group(
    name="ttsr",
    doc="Stream rules: how rules that watch the model's output as it streams behave.",
    keys=(
        Key(name="enabled", kind="bool", default=True, doc="Run stream rules at all; false scans nothing."),
        Key(
            name="disabled_rules",
            kind="names",
            default=(),
            doc="Rule names never loaded, wherever they are found.",
        ),
        Key(
            name="builtin_rules",
            kind="bool",
            default=True,
            doc="Load rein's built-in rules (after every rule of yours).",
        ),
        Key(
            name="context_mode",
            kind="choice",
            choices=("discard", "keep"),
            default="discard",
            doc="After an interrupt: `discard` drops the cut reply before the retry, `keep` keeps it"
            " and appends the rule after it.",
        ),
        Key(
            name="interrupt_mode",
            kind="choice",
            choices=("always", "prose-only", "tool-only", "never"),
            default="always",
            doc="Which output may be cut: a rule's own `interruptMode` can only narrow this.",
        ),
        Key(
            name="repeat_mode",
            kind="choice",
            choices=("once", "after-gap"),
            default="once",
            doc="For rules that set none: inject a rule `once` per session, or again `after-gap`.",
        ),
        Key(
            name="repeat_gap",
            kind="count",
            default=10,
            doc="Completed turns between two injections of one rule under `after-gap`.",
        ),
        Key(
            name="interrupt_template",
            kind="string",
            default=None,
            doc="Replaces the injected interrupt text (placeholders `{{name}}`, `{{path}}`,"
            " `{{content}}`). Unset: rein's.",
        ),
        Key(
            name="reminder_template",
            kind="string",
            default=None,
            doc="Replaces the reminder attached to a tool result (`{{description}}`, `{{source}}`,"
            " `{{tool}}`). Unset: rein's.",
        ),
    ),
)

STEERING = Group(
    name="steering",
    doc="Reserved for command steering; it has no keys in settings.toml.",
    keys=(),
    note="steering is configured in .rein/steering.toml",
)

TIMEBOX = Group(
    name="timebox",
    doc="Reserved for the time and token budget; it has no keys in settings.toml.",
    keys=(),
    note="a budget is set per session with /timebox",
)

COMPACTION = Group(
    name="compaction",
    doc="Compaction: when a session nears the model's context window, old turns become a summary"
    " (docs/compaction.md). The names are pi's.",
    keys=(
        Key(
            name="enabled",
            kind="bool",
            default=True,
            doc="Compact on its own when the context passes the window less `reserve_tokens`, and after"
            " an overflow error; false leaves only `/compact` and `rein compact`.",
        ),
        Key(
            name="reserve_tokens",
            kind="count",
            default=16384,
            doc="Tokens kept free for the reply and the summary; compaction starts when the context"
            " passes the window less this. Small windows use at most a quarter of the window.",
        ),
        Key(
            name="keep_recent_tokens",
            kind="count",
            default=20000,
            doc="Recent conversation kept verbatim after the summary (cut at a turn boundary). Small"
            " windows keep less: what is kept and the summary always fit the window.",
        ),
        Key(
            name="keep_user_tokens",
            kind="count",
            default=20000,
            doc="The user's own messages from the summarized part, kept word for word beside the"
            " summary, newest first (Codex keeps 20k).",
        ),
        Key(
            name="reinject_tokens",
            kind="count",
            default=8000,
            doc="After a compaction, the project's instruction files (AGENTS.md, CLAUDE.md, ...) and the"
            " files read most recently are read again from disk into the context, up to this size.",
        ),
    ),
)

SERVER = Group(
    name="server",
    doc="The session server (`rein serve`, docs/server.md).",
    keys=(
        Key(
            name="models",
            kind="names",
            default=None,
            doc="Globs of the model ids a client may name (`gpt-4.1*`); another id is refused with the"
            " list. Unset: the client's model, whatever it is. `--models` overrides it.",
        ),
    ),
)

MCP = Group(
    name="mcp",
    doc="MCP servers for rein's agent, beside those of `.mcp.json` and `~/.claude.json` (docs/mcp.md).",
    keys=(
        Key(
            name="servers",
            kind="tables",
            default=None,
            doc="`[mcp.servers.<name>]`: a server as `.mcp.json` writes one (`command`, `args`, `env`;"
            ' or `type = "http"`, `url`, `headers`), or `enabled = false` to switch off a server'
            " configured anywhere.",
        ),
        Key(
            name="startup_timeout",
            kind="count",
            default=30,
            doc="Seconds each server has to start and list its tools; one that takes longer is"
            " reported and the session goes on without it (0: the default).",
        ),
    ),
)

PROXY = Group(
    name="proxy",
    doc="The proxy (`rein proxy`, docs/proxy.md).",
    keys=(
        Key(
            name="steering",
            kind="choice",
            choices=("retry", "error", "off"),
            default="retry",
            doc="A tool call rein's steering refuses in a stream: `retry` drops it and asks again with the"
            " reason injected, `error` ends the reply with the reason as the API's error, `off` checks"
            " no tool call. `--steering` overrides it.",
        ),
        Key(
            name="route",
            kind="entries",
            default=None,
            doc="`[[proxy.route]]`: `model` (a glob of model ids), `upstream` (a base URL), optionally"
            " `key_env` (the route's own key, from that environment variable), `api` (`openai` or"
            " `anthropic`: the key's header) and `timeout` (seconds to the reply's start before the"
            " next matching route takes over). After `--route` flags; unmatched models go to"
            " `--upstream`.",
        ),
        Key(
            name="budget",
            kind="tables",
            default=None,
            doc="`[proxy.budget.session]` (per `x-rein-session`) and `[proxy.budget.key]` (per API key):"
            " `tokens`, `requests`, `spend_usd`, `minutes`, each a limit more than 0. At 80 percent the"
            " model is reminded, at 100 a request gets a 429. `--budget` overrides each.",
        ),
        Key(
            name="prices",
            kind="tables",
            default=None,
            doc='`[proxy.prices."<model>"]`: `input`, `output` and optionally `cache_read`, `cache_write`,'
            " in USD per million tokens, for `spend_usd`; over rein's table of common models. A model"
            " name may be a glob.",
        ),
        Key(
            name="state",
            kind="string",
            default=None,
            doc="The SQLite file budgets are kept in, shared by workers and kept over restarts. Unset:"
            " `~/.rein/proxy/budgets.sqlite3`. `--state` overrides it.",
        ),
    ),
)

GROUPS: tuple[Group, ...] = (REIN, TTSR, STEERING, TIMEBOX, COMPACTION, SERVER, MCP, PROXY)
"""Every group rein knows, in the order the docs list them."""


def normalize(name: str) -> str:
    """A key as it is compared: lower-cased, without `_` or `-` (`base_url`, `baseUrl`, `base-url`)."""
    return name.lower().replace("_", "").replace("-", "")


def show(value: object) -> str:
    """`value` as TOML writes it (`"yes"`, `true`, `[1, 2]`), for messages."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)  # a date or time: TOML writes those as Python prints them
