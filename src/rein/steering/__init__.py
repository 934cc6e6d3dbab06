"""Steering: decide whether an agent's tool call may run, and record what happened after it ran.

    policy = load_policy(cwd, home).policy          # config layers, plugins, defaults
    engine = Steering(policy)
    verdict = engine.evaluate(ToolCall(tool="bash", command="git push -f"), context)
    engine.dispatch(ToolResult(call=..., exit_code=0), context)   # observers write entries

The engine is pure: session entries go through `Context.entries`, git through `Context.git`.
"""

from rein.steering._anytool import tool_matches
from rein.steering._defaults import DEFAULT_RULES
from rein.steering._engine import Policy, Steering
from rein.steering._packs import Pack, PackState, RuleState, default_packs
from rein.steering._policy import Built, Layer, build_policy
from rein.steering._rule import (
    Happened,
    Matcher,
    Observer,
    Plugin,
    Predicate,
    PredicateInput,
    Rule,
    Watch,
    When,
)
from rein.steering._types import (
    TOOLS,
    Context,
    Entry,
    EntryStore,
    FileRead,
    FilesPort,
    GitPort,
    GitResult,
    MemoryEntries,
    Override,
    RefDecision,
    ToolCall,
    ToolResult,
    Verdict,
)
from rein.steering.bash import UNKNOWN, Analysis, CommandRef, Unknown, Word, analyze
from rein.steering.config import load_policy, parse_layer
from rein.steering.errors import ConfigError, SteeringError

__all__ = [
    "DEFAULT_RULES",
    "TOOLS",
    "UNKNOWN",
    "Analysis",
    "Built",
    "CommandRef",
    "ConfigError",
    "Context",
    "Entry",
    "EntryStore",
    "FileRead",
    "FilesPort",
    "GitPort",
    "GitResult",
    "Happened",
    "Layer",
    "Matcher",
    "MemoryEntries",
    "Observer",
    "Override",
    "Pack",
    "PackState",
    "Plugin",
    "Policy",
    "Predicate",
    "PredicateInput",
    "RefDecision",
    "Rule",
    "RuleState",
    "Steering",
    "SteeringError",
    "ToolCall",
    "ToolResult",
    "Unknown",
    "Verdict",
    "Watch",
    "When",
    "Word",
    "analyze",
    "build_policy",
    "default_packs",
    "load_policy",
    "parse_layer",
    "tool_matches",
]
