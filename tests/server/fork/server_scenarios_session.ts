// The fork's server tests of session state over HTTP (message sync and append, history, tree switch,
// the session list, restarts, delete), for server_scenarios.ts.
import {
	type Answer,
	AUTH,
	assistant,
	check,
	ERROR,
	field,
	type Json,
	post,
	type Recorder,
	type Scenario,
	same,
	syncTree,
	userEntry,
} from "./server_recorder.ts";

async function history(r: Recorder, query: string, ignore?: Record<string, string>): Promise<Answer> {
	return r.send("history", "GET", `/api/session/${query}`, { headers: AUTH, ignore });
}

// A message sync or append stores each message as a tree entry whose id the server mints.
const MINTED = { leafId: "minted: the last entry's id", treeHash: "minted: the hash of entries with minted ids" };
const MINTED_TREE = {
	...MINTED,
	"entries.*.id": "minted: the entry's id",
	"entries.*.parentId": "minted: the id of the entry before",
};
// Sessions listed newest first: listed-b (init), then listed-a (a message sync, so minted ids).
const LISTED = {
	"sessions.*.createdAt": "the server's clock: when the session was made (ms)",
	"sessions.*.updatedAt": "the server's clock: when it last changed (ms)",
	"sessions.1.leafId": MINTED.leafId,
	"sessions.1.treeHash": MINTED.treeHash,
};

const treeEntries = [
	userEntry("u1", null, 0, "one", 1000),
	{
		type: "message",
		id: "a1",
		parentId: "u1",
		timestamp: "2026-01-01T00:00:01.000Z",
		message: assistant("first answer", 2000),
	},
	userEntry("u2", "a1", 2, "two", 3000),
];

export const sessionScenarios: Scenario[] = [
	{
		file: "server",
		test: "syncs a replaced local message history",
		doc: "A message sync answers messageCount 2. Partly replayed: the test also reads the stored messages and system prompt with getSession (in-process).",
		async run(r) {
			const messages = [{ role: "user", content: "new branch", timestamp: 1000 }, assistant("branch answer", 2000)];
			const staticContext = { systemPrompt: "Synced system prompt" };
			const a = await post(
				r,
				"sync",
				"/api/session/sync",
				{ sessionId: "sync-history", messages, staticContext },
				MINTED,
			);
			check(a.status === 200 && field(a, "messageCount") === 2, "messageCount 2");
		},
	},
	{
		file: "server",
		test: "returns full session history without a request body",
		doc: "GET history after a message sync answers the session, its static context and every message.",
		async run(r) {
			const messages = [
				{ role: "user", content: "large local history", timestamp: 1000 },
				assistant("stored on server", 2000),
			];
			const staticContext = { systemPrompt: "History system prompt" };
			await post(r, "sync", "/api/session/sync", { sessionId: "full-history", messages, staticContext }, MINTED);
			const a = await history(r, "full-history/history", MINTED_TREE);
			check(a.status === 200 && field(a, "messageCount") === 2, "200, 2 messages");
			check(
				field(a, "staticContext.systemPrompt") === "History system prompt" && same(field(a, "messages"), messages),
				"history",
			);
		},
	},
	{
		file: "server",
		test: "returns session history after the requested message offset",
		doc: "GET history?from=1 answers messageCount 3, baseMessageCount 1 and the messages after the first.",
		async run(r) {
			const messages = ["one", "two", "three"].map((content, i) => ({
				role: "user",
				content,
				timestamp: (i + 1) * 1000,
			}));
			await post(r, "sync", "/api/session/sync", { sessionId: "delta-history", messages }, MINTED);
			const a = await history(r, "delta-history/history?from=1", MINTED_TREE);
			check(field(a, "messageCount") === 3 && field(a, "baseMessageCount") === 1, "counts");
			check(same(field(a, "messages"), messages.slice(1)), "messages after the first");
		},
	},
	{
		file: "server",
		test: "returns session history tree patch after the requested entry offset and revision",
		doc: "GET history?entriesFrom=1&revision=R (R the sync's revision) answers a treePatch of the second entry instead of entries.",
		async run(r) {
			const entries = [userEntry("u1", null, 0, "one", 1000), userEntry("u2", "u1", 1, "two", 2000)];
			const sync = await syncTree(r, "entry-delta-history", entries, "u2");
			const a = await history(r, `entry-delta-history/history?entriesFrom=1&revision=${field(sync, "revision")}`);
			check(a.status === 200 && field(a, "entries") === undefined, "no entries");
			check(field(a, "treePatch.entriesFrom") === 1 && field(a, "treePatch.baseRevision") === 1, "patch base");
			check(
				same(field(a, "treePatch.entries"), [entries[1]]) &&
					field(a, "treePatch.revision") === field(a, "revision"),
				"patch",
			);
		},
	},
	{
		file: "server",
		test: "lists active sessions with summary counts",
		doc: "GET /api/sessions lists both sessions, the synced one with messageCount 1, entryCount 1, revision 1.",
		async run(r) {
			const one = [{ role: "user", content: "one", timestamp: 1000 }];
			await post(r, "sync", "/api/session/sync", { sessionId: "listed-a", messages: one }, MINTED);
			await post(r, "init", "/api/session/init", { sessionId: "listed-b", staticContext: { systemPrompt: "B" } });
			const a = await r.send("list", "GET", "/api/sessions", { headers: AUTH, ignore: LISTED });
			const sessions = (field(a, "sessions") ?? []) as {
				sessionId: string;
				messageCount: number;
				revision: number;
			}[];
			check(same(sessions.map((s) => s.sessionId).sort(), ["listed-a", "listed-b"]), "both sessions");
			const listed = sessions.find((s) => s.sessionId === "listed-a");
			check(listed?.messageCount === 1 && listed.revision === 1, "listed-a counts");
		},
	},
	{
		file: "server",
		test: "appends client-only messages without replacing server history",
		doc: "An append after a sync answers messageCount 2. Partly replayed: the test also reads the stored messages with getSession (in-process).",
		async run(r) {
			const base = [{ role: "user", content: "server base", timestamp: 1000 }];
			const delta = [{ role: "user", content: "client delta", timestamp: 2000 }];
			await post(r, "sync", "/api/session/sync", { sessionId: "append-history", messages: base }, MINTED);
			const a = await post(
				r,
				"append",
				"/api/session/append",
				{ sessionId: "append-history", messages: delta },
				MINTED,
			);
			check(a.status === 200 && field(a, "messageCount") === 2, "messageCount 2");
		},
	},
	{
		file: "server",
		test: "persists appended session history across server restarts",
		doc: "A sync and an append survive a restart: history answers both messages.",
		async run(r) {
			const first = { role: "user", content: "before restart", timestamp: 1000 };
			const second = { role: "user", content: "after append", timestamp: 2000 };
			await post(r, "sync", "/api/session/sync", { sessionId: "append-restart", messages: [first] }, MINTED);
			await post(r, "append", "/api/session/append", { sessionId: "append-restart", messages: [second] }, MINTED);
			await r.restart("restart the server");
			const a = await history(r, "append-restart/history", MINTED_TREE);
			check(a.status === 200 && same(field(a, "messages"), [first, second]), "both messages");
		},
	},
	{
		file: "server",
		test: "switches active history by tree leaf without replacing the stored tree",
		doc: "A tree switch to an earlier leaf answers leafId a1, entryCount 3, messageCount 2; history keeps all entries and answers the branch's messages.",
		async run(r) {
			await syncTree(r, "tree-http", treeEntries, "u2");
			const a = await post(r, "switch", "/api/session/tree/switch", { sessionId: "tree-http", leafId: "a1" });
			check(
				field(a, "leafId") === "a1" && field(a, "entryCount") === 3 && field(a, "messageCount") === 2,
				"switched",
			);
			const h = await history(r, "tree-http/history");
			check(same(field(h, "entries"), treeEntries), "entries kept");
			check((field(h, "messages") as { content: Json }[]).length === 2, "branch messages");
		},
	},
	{
		file: "server",
		test: "persists a synced session tree by session id across server restarts",
		doc: "A tree sync survives a restart: history answers its system prompt, treeHash, entries and messages.",
		async run(r) {
			const entries = [userEntry("u1", null, 0, "persist me", 1000)];
			const sync = await post(r, "sync", "/api/session/tree/sync", {
				sessionId: "persisted-tree",
				entries,
				leafId: "u1",
				staticContext: { systemPrompt: "Persisted" },
			});
			await r.restart("restart the server");
			const a = await history(r, "persisted-tree/history");
			check(
				field(a, "staticContext.systemPrompt") === "Persisted" && field(a, "treeHash") === field(sync, "treeHash"),
				"kept",
			);
			check(same(field(a, "entries"), entries), "entries");
		},
	},
	{
		file: "server",
		test: "returns 404 when full session history is missing",
		doc: "History of an unknown session answers 404 (code SESSION_NOT_FOUND). Partly replayed: the test also checks with getSession (in-process) that asking created no session.",
		async run(r) {
			const a = await r.send("history", "GET", "/api/session/missing-history/history", {
				headers: AUTH,
				ignore: ERROR,
			});
			check(a.status === 404 && String(field(a, "error")).includes("session not found"), "404");
		},
	},
	{
		file: "server",
		test: "deletes only the requested session, not all sessions",
		doc: "DELETE of one of two sessions answers {deleted}. Partly replayed: the test checks with getSession (in-process) which sessions remain.",
		async run(r) {
			await post(r, "init a", "/api/session/init", { sessionId: "session-a", staticContext: { systemPrompt: "A" } });
			await post(r, "init b", "/api/session/init", { sessionId: "session-b", staticContext: { systemPrompt: "B" } });
			const a = await r.send("delete a", "DELETE", "/api/session/session-a", { headers: AUTH });
			check(a.status === 200 && field(a, "deleted") === "session-a", "deleted");
		},
	},
];
