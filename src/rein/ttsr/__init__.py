"""Stream rules (TTSR): a rule costs no context until the model starts writing what it forbids; then the
generation is cut, the rule is injected, and the turn is retried.

Pure and host-agnostic: `discover_rules` is the only function that reads files; the manager and the
matcher do no I/O and never raise on stream input. The agent loop uses:

    discovery = discover_rules(cwd, home)
    manager = TtsrManager(discovery.rules, TtsrSettings.from_mapping(settings.get("ttsr", {})))
    # every delta of a reply:
    matches = manager.check_delta(delta, MatchContext(source="text"))          # final=True at block end
    if any(m.interrupt for m in matches):
        inject = manager.render_interrupt(matches); manager.mark_injected(matches)  # cut, inject, retry
    # a tool call's non-interrupting matches: manager.render_reminder(...) on its result
    manager.reset()            # before the next provider call
    manager.turn_completed()   # at each turn end
"""

from rein.ttsr._discovery import (
    Discovery,
    builtin_rule_texts,
    dialect_of,
    discover_rules,
    load_rule_file,
    rule_sources,
)
from rein.ttsr._jsonargs import PATH_KEYS, JsonArgsDecoder
from rein.ttsr._manager import TtsrManager, allows_interrupt
from rein.ttsr._parse import REMINDER_LIMIT, parse_rule
from rein.ttsr._plan import PlannedCondition, RulePlan, plan_rules
from rein.ttsr._rule import (
    Condition,
    Dialect,
    Engine,
    Extent,
    InterruptMode,
    RepeatMode,
    Rule,
    RuleFormat,
    RuleIssue,
    Scope,
    Source,
    ToolScope,
)
from rein.ttsr._settings import ContextMode, TtsrSettings, select_rules
from rein.ttsr._templates import INTERRUPT_TEMPLATE, REMINDER_TEMPLATE, Templates, render
from rein.ttsr._values import InjectionRecord, MatchContext, RuleMatch, TtsrState
from rein.ttsr._window import HoldWindow, hold_windows, longest_match
from rein.ttsr.errors import FrontmatterError, NotAStreamRule, RuleError, SettingsError, TtsrError

__all__ = [
    "INTERRUPT_TEMPLATE",
    "PATH_KEYS",
    "REMINDER_LIMIT",
    "REMINDER_TEMPLATE",
    "Condition",
    "ContextMode",
    "Dialect",
    "Discovery",
    "Engine",
    "Extent",
    "FrontmatterError",
    "HoldWindow",
    "InjectionRecord",
    "InterruptMode",
    "JsonArgsDecoder",
    "MatchContext",
    "NotAStreamRule",
    "PlannedCondition",
    "RepeatMode",
    "Rule",
    "RuleError",
    "RuleFormat",
    "RuleIssue",
    "RuleMatch",
    "RulePlan",
    "Scope",
    "SettingsError",
    "Source",
    "Templates",
    "ToolScope",
    "TtsrError",
    "TtsrManager",
    "TtsrSettings",
    "TtsrState",
    "allows_interrupt",
    "builtin_rule_texts",
    "dialect_of",
    "discover_rules",
    "hold_windows",
    "load_rule_file",
    "longest_match",
    "parse_rule",
    "plan_rules",
    "render",
    "rule_sources",
    "select_rules",
]
