"""The repeat policy across requests: injection records per client session.

A proxy sees requests, not sessions. A client that sends `x-rein-session: <id>` gets rein's repeat
policy over its requests, as in the agent: each request is a turn, a rule that fired is recorded, and
`once`, `after-gap`, `maxFirings` and `cooldown` read those records. Without the header each request is
its own session. Within one request a rule may fire on every attempt: the hidden message it injects is
not in the client's history, and held text that breaks a rule never reaches the client.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable

from rein.ttsr import InjectionRecord, TtsrState

MAX_SESSIONS = 10_000
"""Sessions remembered (the least recently used are forgotten first)."""


class Sessions:
    def __init__(self, clock: Callable[[], float] = time.time, limit: int = MAX_SESSIONS) -> None:
        self._states: OrderedDict[str, TtsrState] = OrderedDict()
        self._clock = clock
        self._limit = limit

    def state(self, key: str | None) -> TtsrState:
        if key is None:
            return TtsrState()
        found = self._states.get(key)
        if found is None:
            return TtsrState()
        self._states.move_to_end(key)
        return found

    def finish(self, key: str | None, fired: Iterable[str]) -> None:
        """One request of `key` ended, with these rules injected (in order; repeats count)."""
        if key is None:
            return
        state = self.state(key)
        records = {record.rule: record for record in state.records}
        for name in fired:
            old = records.get(name)
            count = old.count + 1 if old else 1
            records[name] = InjectionRecord(rule=name, turn=state.turns, at=self._clock(), count=count)
        self._states[key] = TtsrState(turns=state.turns + 1, records=tuple(records.values()))
        self._states.move_to_end(key)
        while len(self._states) > self._limit:
            self._states.popitem(last=False)
