"""Assemble a `Policy` from config layers, plugins and defaults, validating names and clashes.

Order decides (first rule that fires wins): the innermost config layer's rules, then outer layers',
then plugin rules, then rein's defaults. An inner layer's rule replaces an outer rule of the same name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from rein.steering._defaults import DEFAULT_RULES, OPTIONAL_RULES
from rein.steering._engine import Policy
from rein.steering._names import check_name
from rein.steering._packs import Setting, default_packs, pack_rules, pack_states
from rein.steering._rule import Observer, Plugin, Predicate, Rule, When
from rein.steering.bash import Tracker
from rein.steering.errors import ConfigError
from rein.steering.plugins.git import plugin as GIT_PLUGIN

DEFAULT_PLUGINS: tuple[Plugin, ...] = (GIT_PLUGIN,)


@dataclass(frozen=True, slots=True, kw_only=True)
class Layer:
    """One config file's contents. Layers are given innermost (closest to the cwd) first."""

    file: str
    rules: tuple[Rule, ...] = ()
    observers: tuple[Observer, ...] = ()
    plugins: tuple[Plugin, ...] = ()
    disabled_rules: frozenset[str] = frozenset()
    enabled_rules: frozenset[str] = frozenset()
    """Opt-in rules of rein's (`OPTIONAL_RULES`) this layer turns on."""
    allow_override: frozenset[str] = frozenset()
    """Rules an agent may lift with an override comment (`unknown` for the catch-all)."""
    disable_defaults: bool | None = None
    on_parse_error: Literal["block", "allow"] | None = None
    packs: Mapping[str, Setting] = field(default_factory=lambda: MappingProxyType({}))
    """`packs = { database = "ask", ... }`: a pack's or a pack rule's verdict, or off."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Built:
    policy: Policy
    warnings: tuple[str, ...]


def _check_when(when: When, predicates: dict[str, Predicate], rule: Rule) -> None:
    for name in when.plugin:
        if name not in predicates:
            known = ", ".join(sorted({"cwd", "branch", "happened", "not", *predicates}))
            raise ConfigError(
                f"rule {rule.name!r}: unknown when predicate {name!r} (known: {known})",
                file=rule.origin or None,
            )
    if when.not_ is not None:
        _check_when(when.not_, predicates, rule)


def build_policy(layers: Sequence[Layer], *, defaults: bool = True) -> Built:
    """Combine layers (innermost first) with their plugins and rein's defaults into one policy."""
    warnings: list[str] = []
    disabled = frozenset().union(*(layer.disabled_rules for layer in layers))
    disable_defaults = next((x.disable_defaults for x in layers if x.disable_defaults is not None), False)
    on_parse_error: Literal["block", "allow"] = next(
        (x.on_parse_error for x in layers if x.on_parse_error is not None), "block"
    )
    plugins = [p for layer in layers for p in layer.plugins] + (list(DEFAULT_PLUGINS) if defaults else [])

    rules: list[Rule] = []
    seen: set[str] = set()

    def add(rule: Rule) -> None:
        if rule.name not in seen and rule.name not in disabled:
            seen.add(rule.name)
            rules.append(rule)

    for layer in layers:
        for rule in layer.rules:
            add(rule)

    predicates: dict[str, Predicate] = {}
    trackers: list[Tracker] = []
    observers: list[Observer] = [o for layer in layers for o in layer.observers]
    loaded: list[Plugin] = []
    for plugin in plugins:
        check_name("plugin", plugin.name)
        if any(p.name == plugin.name for p in loaded):
            continue
        loaded.append(plugin)
        for name, predicate in plugin.predicates.items():
            predicates.setdefault(check_name("predicate", name), predicate)
        for tracker in plugin.trackers:
            clash = next((t for t in trackers if t.name == tracker.name), None)
            if clash is not None:
                raise ConfigError(
                    f"plugin {plugin.name!r}: a tracker named {tracker.name!r} is already"
                    " registered; two plugins cannot model the same state"
                )
            trackers.append(tracker)
        is_default = plugin in DEFAULT_PLUGINS
        if not (is_default and disable_defaults):
            for rule in plugin.rules:
                add(rule)
        observers.extend(plugin.observers)
    if defaults and not disable_defaults:
        for rule in DEFAULT_RULES:
            add(rule)
    states = pack_states(
        default_packs() if defaults else (),
        [(layer.file, layer.packs) for layer in layers if layer.packs],
        disabled,
    )
    if disable_defaults:
        off = (replace(rule, verdict="off", source="disable_defaults") for s in states for rule in s.rules)
        states = tuple(replace(s, verdict="off", source="disable_defaults", rules=tuple(off)) for s in states)
    for rule in pack_rules(states):
        add(rule)
    enabled = frozenset().union(*(layer.enabled_rules for layer in layers))
    for name in sorted(enabled):
        optional = OPTIONAL_RULES.get(name)
        if optional is None:
            known = ", ".join(sorted(OPTIONAL_RULES)) or "none"
            raise ConfigError(f"enable_rules: rein has no opt-in rule named {name!r} (known: {known})")
        add(optional)

    unique: list[Observer] = []
    for observer in observers:
        check_name("observer", observer.name)
        if any(o.name == observer.name for o in unique):
            warnings.append(
                f"observer {observer.name!r} from {observer.origin or observer.source} is"
                " ignored: an observer of that name is already registered"
            )
            continue
        unique.append(observer)
    for rule in rules:
        check_name("rule", rule.name)
        check_name("source", rule.source)
        _check_when(rule.when, predicates, rule)
    policy = Policy(
        rules=tuple(rules),
        observers=tuple(unique),
        plugins=tuple(loaded),
        on_parse_error=on_parse_error,
        predicates=predicates,
        trackers=tuple(trackers),
        overridable=frozenset().union(*(layer.allow_override for layer in layers)),
        packs=states,
    )
    return Built(policy=policy, warnings=tuple(warnings))
