"""The compatibility corpus: what a pi-client (the pi-server fork's `pi-server-client.ts` and
`pi-server-request.ts`) sends to a session server and what it reads back, as JSON files replayed
against `rein serve` by `tests/server/test_compat.py`. Written from the fork's source and tests; none
of its code is copied.

`shared.json` holds the entries (pi dialect) and values every scenario uses; every other file is one
scenario: `doc` (which client behaviour it captures), then `steps`, run in order against one server.
A step is a request (`method`, `path`, and a `body` sent as JavaScript's `JSON.stringify` writes it,
or `raw` text; `chunked` sends the body through chunk envelopes as `ChunkRequest` does) and an
`expect`: `status`, `contentType`, `json` (a partial match: every key given must be there and match;
lists match element by element), `paths` (dotted paths into the answer), and for streams `events`:
"proxy" (the proxy events folded into a `message`) or "result" (the `event: result` data of a
streamed compaction, matched by `json`). `save` keeps values of an answer for later steps.

Placeholders, resolved before a request is sent or an answer compared:
`{"$entry": key}`, `{"$entries": [keys]}`, `{"$var": name}`, `{"$saved": name}`,
`{"$treeHash": [keys or values]}` (the fork's chain over the entries), `{"$staticContextHash": ctx}`,
`{"$base64": value}` (of its JSON), `{"$sha256": text}`, `{"$path": [value, key, ...]}`,
`{"$format": text, "args": [...]}`. Matchers, only in `expect`: `{"$type": "int" | "nonempty" |
"array" | "object"}`, `{"$absent": true}`, `{"$in": [...]}`, `{"$gt": value}`, `{"$len": n}`.
"""

from tests.server.compat._replay import CORPUS, Replayer, Scenario, load_scenarios

__all__ = ["CORPUS", "Replayer", "Scenario", "load_scenarios"]
