// The fork's server tests that reach the model (streams, compaction), for server_scenarios.ts. Where the
// fork's test mocks the model in-process, the request's model is a whole model object calling the
// scripted upstream (upstream.py: an echo, or after 1.5 s a fixed summary), shaped as the fork's faux
// provider's model; the fork's assertions on the mocked text become assertions on the echo.
import {
	AUTH,
	body,
	check,
	ERROR,
	field,
	JSON_AUTH,
	type Json,
	type Recorder,
	type Scenario,
	type SseEvent,
	same,
	syncTree,
	userEntry,
} from "./server_recorder.ts";

const exampleModel = { id: "test", api: "openai-completions", provider: "opencode-go", baseUrl: "https://example.com" };

// The integration tests' model: id, api, provider, then `baseUrl`, then the rest in their order.
const integrationModel = (baseUrl: Json) => ({
	id: "test-model",
	api: "openai-completions",
	provider: "opencode-go",
	baseUrl,
	name: "Test",
	reasoning: false,
	input: ["text"],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 1000,
	maxTokens: 100,
});

const compactEntries = [userEntry("u1", null, 0, "old", 1000), userEntry("u2", "u1", 1, "keep", 2000)];
const compactSettings = { enabled: true, reserveTokens: 0, keepRecentTokens: 0 };

// What a compaction answer holds that the server mints (tokensBefore is pi's estimate: compared).
const COMPACTION: Record<string, string> = {
	"compactionEntry.id": "minted: the compaction entry's id",
	"compactionEntry.timestamp": "minted: when the compaction ran",
	treeHash: "minted: the hash of a tree with the minted entry",
	leafId: "minted: the compaction entry's id",
};
// ...and as a patch of that one entry.
const PATCHED: Record<string, string> = {
	...COMPACTION,
	"treePatch.entries.0.id": "minted: the compaction entry's id",
	"treePatch.entries.0.timestamp": "minted: when the compaction ran",
	"treePatch.leafId": "minted: the compaction entry's id",
};
// ...or, without a matching baseTreeHash, the whole tree and the messages.
const WHOLE: Record<string, string> = {
	...COMPACTION,
	"entries.2.id": "minted: the compaction entry's id",
	"entries.2.timestamp": "minted: when the compaction ran",
	"messages.0.timestamp": "minted: the summary message is stamped when the compaction ran",
};
const inSse = (paths: Record<string, string>) =>
	Object.fromEntries(Object.entries(paths).map(([path, why]) => [`*.data.${path}`, why]));

const RUN: Record<string, string> = {
	createdAt: "the server's clock: when the run started (ms)",
	updatedAt: "the server's clock: when the run last changed (ms)",
	"message.timestamp": "the server's clock: when the reply was made (ms)",
};

async function init(r: Recorder, sessionId: string, systemPrompt: string): Promise<void> {
	const a = await r.send("init", "POST", "/api/session/init", {
		headers: JSON_AUTH,
		body: body({ sessionId, staticContext: { systemPrompt } }),
	});
	check(a.status === 200, "init answers 200");
}

/** The text a stream answered, from its text_delta events. */
function streamed(events: SseEvent[] | undefined): string {
	const deltas = (events ?? []).map((e) => e.data as { type?: string; delta?: string });
	return deltas
		.filter((d) => d.type === "text_delta")
		.map((d) => d.delta)
		.join("");
}

function done(events: SseEvent[] | undefined): boolean {
	return (events ?? []).some((e) => (e.data as { type?: string }).type === "done");
}

type CompactKind = "patch" | "json heartbeat" | "sse heartbeat";

// A tree sync, then a compaction; upstream.py writes the summary after 1.5 s, so a heartbeat kind
// wants its first bytes before that.
async function compact(r: Recorder, model: Record<string, Json>, sessionId: string, kind: CompactKind) {
	const sync = await syncTree(r, sessionId, compactEntries, "u2");
	const sse = kind === "sse heartbeat";
	const request = sse ? { sessionId, streamResponse: true } : { sessionId, baseTreeHash: field(sync, "treeHash") };
	const answer = await r.send("compact", "POST", "/api/session/compact", {
		headers: JSON_AUTH,
		body: body({ ...request, model, settings: compactSettings, preparation: { firstKeptEntryId: "u2" } }),
		...(kind === "patch" ? {} : { heartbeat: sse ? ": keep-alive\n\n" : " \n" }),
		ignore: sse ? inSse(WHOLE) : PATCHED,
		calls: 1,
	});
	return { sync, answer };
}

export const modelScenarios: Scenario[] = [
	{
		file: "server",
		test: "returns compact tree patch when the client base tree hash matches",
		doc: "A compaction whose baseTreeHash is the session's answers only a treePatch of the new entry (no entries, no messages), entryCount 3. The fork's test mocks compactLegacy with a stub model; here a whole model object calls the scripted upstream for the summary.",
		async run(r, model) {
			const { sync, answer } = await compact(r, model, "compact-delta", "patch");
			check(answer.status === 200, "200");
			check(
				field(answer, "entries") === undefined && field(answer, "messages") === undefined,
				"no entries, no messages",
			);
			check(field(answer, "treePatch.baseTreeHash") === field(sync, "treeHash"), "treePatch.baseTreeHash");
			check(field(answer, "treePatch.entriesFrom") === 2, "treePatch.entriesFrom 2");
			check((field(answer, "treePatch.entries") as Json[]).length === 1, "one patched entry");
			check(field(answer, "treePatch.leafId") === field(answer, "leafId"), "treePatch.leafId");
			check(field(answer, "entryCount") === 3, "entryCount 3");
		},
	},
	{
		file: "server",
		test: "streams compact heartbeat before upstream compaction finishes",
		doc: "A compaction with streamResponse answers text/event-stream: a keep-alive comment within 1 s while the summary is still being written (the upstream takes 1.5 s; the fork's test holds a mocked compactLegacy), then one `result` event with success and the summary.",
		async run(r, model) {
			const { answer } = await compact(r, model, "compact-stream", "sse heartbeat");
			check(answer.status === 200 && answer.contentType.includes("text/event-stream"), "200 event stream");
			const events = answer.sse ?? [];
			check(events.length === 1 && events[0].event === "result", "one result event");
			const result = events[0].data as { success?: boolean; compaction?: { summary?: string } };
			check(result.success === true && Boolean(result.compaction?.summary), "success, a summary");
		},
	},
	{
		file: "server",
		test: "keeps JSON compact clients alive with whitespace heartbeat bytes",
		doc: "A JSON compaction answers application/json whose first bytes (within 1 s, the summary still being written) are whitespace, then the answer: a treePatch of one entry, entryCount 3. The fork's test holds a mocked compactLegacy; here the upstream takes 1.5 s.",
		async run(r, model) {
			const { sync, answer } = await compact(r, model, "compact-json-stream", "json heartbeat");
			check(answer.status === 200 && answer.contentType.includes("application/json"), "200 JSON");
			check(field(answer, "treePatch.baseTreeHash") === field(sync, "treeHash"), "treePatch.baseTreeHash");
			check(
				(field(answer, "treePatch.entries") as Json[]).length === 1 && field(answer, "entryCount") === 3,
				"patch",
			);
		},
	},
	{
		file: "server",
		test: "rejects stream without static context",
		doc: "A stream for a session never initialized answers 400 (code SESSION_NO_STATIC_CONTEXT) and calls no model.",
		async run(r) {
			const a = await r.send("stream without static context", "POST", "/api/stream", {
				headers: JSON_AUTH,
				body: body({ sessionId: "test-no-ctx", model: exampleModel, delta: [] }),
				ignore: ERROR,
				calls: 0,
			});
			check(a.status === 400 && String(field(a, "error")).includes("static context"), "400 static context");
		},
	},
	{
		file: "server",
		test: "sends a stream heartbeat before upstream provider events",
		doc: "A stream answers 200 and a keep-alive comment within 1 s, before any model event. The fork's test points its stub model at a closed port; here a whole model object calls the scripted upstream, which `[[slow]]` in the system prompt makes answer after 1.5 s.",
		async run(r, model) {
			await init(r, "stream-heartbeat", "Heartbeat test [[slow]]");
			const a = await r.send("stream", "POST", "/api/stream", {
				headers: JSON_AUTH,
				body: body({ sessionId: "stream-heartbeat", model }),
				heartbeat: ": keep-alive\n\n",
				calls: 1,
			});
			check(a.status === 200, "200");
		},
	},
	{
		file: "server",
		test: "journals a completed stream run for recovery by run id",
		doc: "After a stream with a runId, GET /api/session/{id}/runs/{runId} answers the run: completed, with the assistant message streamed. The fork's test answers with registerFauxProvider; here the scripted upstream.",
		async run(r, model) {
			await init(r, "stream-run-journal", "Journal test");
			const stream = await r.send("stream with a run id", "POST", "/api/stream", {
				headers: JSON_AUTH,
				body: body({ sessionId: "stream-run-journal", runId: "run-journal-1", model }),
				calls: 1,
			});
			check(stream.status === 200, "stream 200");
			const run = await r.send("the run", "GET", "/api/session/stream-run-journal/runs/run-journal-1", {
				headers: AUTH,
				ignore: RUN,
			});
			check(run.status === 200 && field(run, "status") === "completed", "run completed");
			check(field(run, "message.role") === "assistant", "assistant message");
			check(
				same(field(run, "message.content"), [{ type: "text", text: streamed(stream.sse) }]),
				"the streamed text",
			);
		},
	},
	{
		file: "server",
		test: "replays a completed run through a second stream request",
		doc: "A second stream with a completed run's runId replays the run (the text, then done) without calling the model again. The fork's test answers with registerFauxProvider; here the scripted upstream, called once.",
		async run(r, model) {
			await init(r, "stream-replay", "Replay");
			const request = body({ sessionId: "stream-replay", runId: "run-replay", model });
			const first = await r.send("stream", "POST", "/api/stream", { headers: JSON_AUTH, body: request, calls: 1 });
			check(first.status === 200, "first 200");
			const second = await r.send("the same run again", "POST", "/api/stream", {
				headers: JSON_AUTH,
				body: request,
				ignore: { "*.data.message.timestamp": RUN["message.timestamp"] },
				calls: 0,
			});
			check(second.status === 200 && done(second.sse), "second 200, done");
			check(streamed(second.sse) === streamed(first.sse), "the same text replayed");
		},
	},
	{
		file: "server",
		test: "clears completed run journals when deleting a session",
		doc: "Deleting a session forgets its runs: the same runId after delete and re-init calls the model again (the fork's test counts faux provider calls: 2; here the scripted upstream's, one per stream).",
		async run(r, model) {
			const sessionId = "deleted-run-session";
			const request = body({ sessionId, runId: "reused-run", model });
			const init = body({ sessionId, staticContext: { systemPrompt: "test" } });
			await r.send("init", "POST", "/api/session/init", { headers: JSON_AUTH, body: init });
			await r.send("stream", "POST", "/api/stream", { headers: JSON_AUTH, body: request, calls: 1 });
			const deleted = await r.send("delete", "DELETE", `/api/session/${sessionId}`, { headers: AUTH });
			check(deleted.status === 200, "delete 200");
			await r.send("init again", "POST", "/api/session/init", { headers: JSON_AUTH, body: init });
			const again = await r.send("the same run id", "POST", "/api/stream", {
				headers: JSON_AUTH,
				body: request,
				calls: 1,
			});
			check(again.status === 200 && done(again.sse), "streamed again");
		},
	},
	{
		file: "integration",
		test: "rejects stream without prior static context",
		doc: "A stream (with delta messages) for a session never initialized answers 400 and calls no model.",
		async run(r) {
			const a = await r.send("stream without static context", "POST", "/api/stream", {
				headers: JSON_AUTH,
				body: body({
					sessionId: "no-ctx-stream",
					model: integrationModel("https://example.com"),
					delta: [{ role: "user", content: "hello", timestamp: 1000 }],
				}),
				ignore: ERROR,
				calls: 0,
			});
			check(a.status === 400 && String(field(a, "error")).includes("static context"), "400 static context");
		},
	},
	{
		file: "integration",
		test: "accepts stream with inline static context",
		doc: "A stream carrying its own staticContext needs no init: 200. The fork's test model names example.com; here the scripted upstream, so the call is hermetic.",
		async run(r, model) {
			const a = await r.send("stream with inline static context", "POST", "/api/stream", {
				headers: JSON_AUTH,
				body: body({
					sessionId: "inline-ctx-stream",
					model: integrationModel(model.baseUrl),
					delta: [{ role: "user", content: "hello", timestamp: 1000 }],
					staticContext: { systemPrompt: "You are helpful.", tools: [] },
				}),
				calls: 1,
			});
			check(a.status === 200, "200");
		},
	},
];
