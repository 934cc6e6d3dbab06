"""The `example-rules` steering plugin: one rule, no shouting at the network with `curl`.

A steering plugin is a `rein.steering.Plugin` (rules, predicates, trackers, observers); the entry
point names it (`rein_example.rules:plugin`) or a module that defines `plugin`.
"""

from __future__ import annotations

from rein.steering import Matcher, Plugin, Rule

plugin = Plugin(
    name="example-rules",
    rules=(
        Rule(
            name="no-curl",
            source="example-rules",
            reason="Fetch with the project's client (make fetch), not curl.",
            matcher=Matcher(command=frozenset({"curl"})),
        ),
    ),
)
