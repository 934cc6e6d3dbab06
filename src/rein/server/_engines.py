"""rein's engines on the server, for server-side runs: stream rules and steering, loaded
once per app from the server's own `cwd` and `home`, the way a local run loads them.

    engines = get_engines(request.app)       # cached on app.state.engines
    rules = engines.ttsr_manager(branch)     # a fresh manager with the branch's injection records
    verdicts = engines.steer(reply, cwd)     # blocked bash calls of a finished reply

What differs from a local run, by design: stream rules run only for clients that asked for rein's
events (`reinEvents`), since a pi client cannot drop a partial reply; only interrupting rules act (a
reminder needs the tool result, which the client makes); steering judges the reply's bash calls and
the client blocks them; `when.happened` sees no observer entries (the tools run on the client).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from starlette.applications import Starlette

from rein.ai import AssistantMessage, JsonValue
from rein.builtins.ttsr import INJECTION_ENTRY
from rein.gitio import host_context
from rein.server._config import ServerConfig
from rein.settings import load_settings
from rein.steering import ConfigError, Context, Steering, load_policy
from rein.steering import ToolCall as SteeringCall
from rein.ttsr import InjectionRecord, Rule, TtsrManager, TtsrSettings, TtsrState, discover_rules


@dataclass(frozen=True, slots=True, kw_only=True)
class Engines:
    config: ServerConfig
    rules: tuple[Rule, ...]
    ttsr: TtsrSettings
    steering: Steering | None
    steering_problem: str | None
    """Why the steering policy did not load: every bash call is then blocked (fail closed)."""
    max_retries: int = 5
    """Stream-rule retries per request, as the loop's `max_retries_per_turn`."""

    def ttsr_manager(self, branch: Sequence[Mapping[str, object]]) -> TtsrManager:
        """A manager for one request, restored from the branch's injection records and turn count."""
        manager = TtsrManager(self.rules, self.ttsr, clock=time.time, root=self.config.cwd)
        records: dict[str, InjectionRecord] = {}
        turns = 0
        for raw in branch:
            message = raw.get("message")
            if (
                raw.get("type") == "message"
                and isinstance(message, dict)
                and message.get("role") == "assistant"
            ):
                turns += 1
            data = raw.get("data")
            if (
                raw.get("type") == "custom"
                and raw.get("customType") == INJECTION_ENTRY
                and isinstance(data, dict)
            ):
                items = data.get("records")
                for item in items if isinstance(items, list) else []:
                    if isinstance(item, Mapping):
                        record = InjectionRecord.from_dict(item)
                        records[record.rule] = record
        manager.restore(TtsrState(turns=turns, records=tuple(records.values())))
        return manager

    def steer(self, reply: AssistantMessage, cwd: str | None) -> list[dict[str, JsonValue]]:
        """The reply's bash calls that steering blocks, as `{toolCallId, decision, reason}`. `cwd` is the
        client's directory, used for rule matching only (nothing is read there). A call a rule asks
        about is blocked too: nobody can be asked on this path, and its reason says it needs the
        user's approval."""
        blocked: list[dict[str, JsonValue]] = []
        for call in reply.tool_calls:
            if call.name != "bash":
                continue
            reason = self._verdict(call.arguments.get("command"), cwd)
            if reason is not None:
                blocked.append({"toolCallId": call.id, "decision": "block", "reason": reason})
        return blocked

    def _verdict(self, command: object, cwd: str | None) -> str | None:
        if self.steering_problem is not None:
            return self.steering_problem
        assert self.steering is not None
        home = str(self.config.home)
        context = (
            host_context(self.config.cwd, home)
            if cwd is None
            else Context(cwd=cwd, home=home, env={"HOME": home}, branch=None)
        )
        call = SteeringCall(tool="bash", command=command if isinstance(command, str) else "")
        verdict = self.steering.evaluate(call, context)
        return None if verdict.allow else verdict.reason


def load_engines(config: ServerConfig) -> Engines:
    cwd, home = Path(config.cwd), Path(config.home)
    settings = load_settings(cwd, home, warn=lambda _message: None)
    ttsr = TtsrSettings.from_mapping(settings.get("ttsr", {}))
    found = discover_rules(cwd, home, builtin=ttsr.builtin_rules)
    steering: Steering | None = None
    problem: str | None = None
    try:
        steering = Steering(load_policy(cwd, home).policy)
    except ConfigError as error:
        problem = (
            f"[steering:config@rein] steering config error, every tool call is blocked: {error}."
            " Ask the user to fix the config file."
        )
    return Engines(
        config=config,
        rules=found.rules,
        ttsr=ttsr,
        steering=steering,
        steering_problem=problem,
    )


def get_engines(app: Starlette) -> Engines:
    """The app's engines, loaded on first use (rules and policy are compiled once per process)."""
    engines = getattr(app.state, "engines", None)
    if not isinstance(engines, Engines):
        engines = load_engines(app.state.config)
        app.state.engines = engines
    return engines
