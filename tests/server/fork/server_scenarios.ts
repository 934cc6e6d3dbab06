/**
 * The pi-server fork's own server tests, as the HTTP they speak, recorded from the fork's server so that
 * tests/server/test_recorded.py can replay them against `rein serve`.
 *
 * The fork's packages/pi-server/test/server.test.ts and integration.test.ts start its server in-process
 * and talk to it with fetch. Each scenario here sends the same requests (same order, bodies and headers,
 * auth token `test-token`) to the fork's server run as a process, and writes every exchange to
 * tests/server/compat/recorded/server-tests/<file>-<test>.json: the exact request, the status, the
 * content type and the parsed answer (JSON, or SSE as a list of {event, data}). Written from reading
 * those tests; none of their code is copied. Each scenario also checks what its fork test asserts, so a
 * recording fails rather than keep an answer the fork's own test would refuse.
 *
 * A test that mocks the model in-process (registerFauxProvider, the vi.mock of compactLegacy) is
 * recorded with its request's model calling tests/server/fork/upstream.py instead: the scripted OpenAI
 * chat-completions upstream that the replayed `rein serve` calls too (server_scenarios_model.ts). A test
 * that also reads the fork's in-process state (getSession) is recorded for its HTTP answers only and
 * says so in its `doc`. docs/server.md lists every test and why one is not replayed.
 *
 * Run it with node 20+ and the fork's tsx (the fork checkout after `npm ci --ignore-scripts`, see
 * recorder.py); PI_SERVER_CMD starts the fork's server (run by sh in PI_SERVER_CWD, default the
 * checkout, with PI_SERVER_PORT, PI_SERVER_AUTH_TOKEN, PI_SERVER_SESSION_STORE_DIR and
 * PI_SERVER_UPLOAD_DIR in its environment); REIN_PI_FORK names the checkout, whose commit the
 * recordings name:
 *
 *   export REIN_PI_FORK=/path/to/fork
 *   PI_SERVER_CMD="node_modules/.bin/tsx --import $PWD/tests/server/fork/alias.mjs packages/pi-server/src/cli.ts" \
 *     $REIN_PI_FORK/node_modules/.bin/tsx tests/server/fork/server_scenarios.ts [OUT_DIR or "" for the default] [NAME_FILTER]
 *
 * Each scenario gets a fresh server (new session store and upload directory); a restart inside one
 * stops the process and starts it again on the same directories. The upstream runs in rein's venv
 * (REIN_PYTHON, default .venv/bin/python).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
	AUTH,
	body,
	check,
	ERROR,
	ForkServer,
	field,
	JSON_AUTH,
	post,
	Recorder,
	type Scenario,
	same,
	TOKEN,
	Upstream,
} from "./server_recorder.ts";
import { modelScenarios } from "./server_scenarios_model.ts";
import { sessionScenarios } from "./server_scenarios_session.ts";

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const b64 = (value: string) => Buffer.from(value, "utf-8").toString("base64");

function chunk(requestId: string, target: string, index: number, total: number, text: string) {
	return { requestId, target, chunkIndex: index, totalChunks: total, sha256: sha256(text), chunk: text };
}

const UPLOAD_PATH = { path: "an absolute path on the server's machine" };

const scenarios: Scenario[] = [
	{
		file: "server",
		test: "responds to health check",
		doc: "GET /health answers 200 {status: ok} without a token.",
		async run(r) {
			const a = await r.send("health", "GET", "/health");
			check(a.status === 200 && field(a, "status") === "ok", "health ok");
		},
	},
	{
		file: "server",
		test: "includes the package version with an unauthorized root response",
		doc: "GET / without a token answers 401 JSON {error, version}.",
		async run(r) {
			const a = await r.send("root without a token", "GET", "/", {
				ignore: { ...ERROR, version: "the server's own version; the fork checks its shape x.y.z-piclient.n" },
			});
			check(a.status === 401 && field(a, "error") === "Unauthorized", "401 Unauthorized");
			check(/^\d+\.\d+\.\d+-piclient\.\d+$/.test(String(field(a, "version"))), "version shape");
		},
	},
	{
		file: "server",
		test: "rejects requests without auth token when configured",
		doc: "POST /api/session/init without a token answers 401.",
		async run(r) {
			const a = await r.send("init without a token", "POST", "/api/session/init", {
				headers: { "Content-Type": "application/json" },
				body: body({ sessionId: "test" }),
				ignore: ERROR,
			});
			check(a.status === 401, "401");
		},
	},
	{
		file: "server",
		test: "accepts requests with correct auth token",
		doc: "POST /api/session/init with the token answers 200.",
		async run(r) {
			check(
				(await post(r, "init with the token", "/api/session/init", { sessionId: "test-auth" })).status === 200,
				"200",
			);
		},
	},
	{
		file: "server",
		test: "initializes session with static context",
		doc: "Init with a static context answers the session id, its staticContextHash and messageCount 0.",
		async run(r) {
			const staticContext = { systemPrompt: "You are helpful.", tools: [] };
			const a = await post(r, "init", "/api/session/init", { sessionId: "test-init", staticContext });
			check(a.status === 200 && field(a, "sessionId") === "test-init", "200, session id");
			check(Boolean(field(a, "staticContextHash")) && field(a, "messageCount") === 0, "hash, no messages");
		},
	},
	{
		file: "server",
		test: "reassembles chunked requests and dispatches them to the target endpoint",
		doc: "Two chunks of a /api/receive body: the first is acknowledged, the second answers the upload {path, files: 1}; the file lands under the upload directory.",
		async run(r) {
			const upload = {
				name: "chunked-upload",
				entries: [
					{ path: "", type: "directory" },
					{ path: "nested", type: "directory" },
					{ path: "nested/file.txt", type: "file", data: b64("hello") },
				],
			};
			const encoded = b64(body(upload));
			const mid = Math.ceil(encoded.length / 2);
			const first = await post(
				r,
				"first chunk",
				"/api/request/chunk",
				chunk("request-1", "/api/receive", 0, 2, encoded.slice(0, mid)),
			);
			check(same(first.json, { received: true, requestId: "request-1", chunkIndex: 0, totalChunks: 2 }), "ack");
			const second = await r.send("second chunk", "POST", "/api/request/chunk", {
				headers: JSON_AUTH,
				body: body(chunk("request-1", "/api/receive", 1, 2, encoded.slice(mid))),
				ignore: UPLOAD_PATH,
				files: { "chunked-upload/nested/file.txt": "hello" },
			});
			check(second.status === 200 && field(second, "files") === 1, "one file");
			check(String(field(second, "path")).endsWith("/chunked-upload"), "path");
		},
	},
	{
		file: "server",
		test: "returns a structured error code for tree divergence",
		doc: "A tree append whose entry names a missing parent answers 400 PARENT_ENTRY_NOT_FOUND with details.parentId.",
		async run(r) {
			const entry = {
				type: "message",
				id: "child",
				parentId: "missing-parent",
				timestamp: "2026-01-01T00:00:00.000Z",
				message: { role: "user", content: "test", timestamp: 1000 },
			};
			const a = await post(
				r,
				"append",
				"/api/session/tree/append",
				{ sessionId: "tree-error", entries: [entry], leafId: "child" },
				ERROR,
			);
			check(a.status === 400 && field(a, "code") === "PARENT_ENTRY_NOT_FOUND", "400 PARENT_ENTRY_NOT_FOUND");
			check(field(a, "details.parentId") === "missing-parent", "details.parentId");
		},
	},
	{
		file: "server",
		test: "returns a response for an unknown chunk target",
		doc: "A one-chunk request whose target is no endpoint answers 400 INVALID_REQUEST.",
		async run(r) {
			const encoded = b64(body({ sessionId: "unknown-target" }));
			const a = await post(
				r,
				"chunk",
				"/api/request/chunk",
				chunk("unknown-target-request", "/api/session/removed", 0, 1, encoded),
				ERROR,
			);
			check(a.status === 400 && field(a, "code") === "INVALID_REQUEST", "400 INVALID_REQUEST");
		},
	},
	{
		file: "server",
		test: "rejects receive paths that could escape the upload directory",
		doc: "An upload entry `../outside` answers 400 and writes nothing outside the upload directory.",
		async run(r) {
			const upload = {
				name: "unsafe",
				entries: [
					{ path: "", type: "directory" },
					{ path: "../outside", type: "file", data: "" },
				],
			};
			const a = await r.send("receive", "POST", "/api/receive", {
				headers: JSON_AUTH,
				body: body(upload),
				ignore: ERROR,
				files: { "../outside": null },
			});
			check(a.status === 400, "400");
		},
	},
	{
		file: "server",
		test: "receives a single file",
		doc: 'An upload of one file (entry path "") answers 200 and writes it as the upload\'s name.',
		async run(r) {
			const upload = { name: "file.txt", entries: [{ path: "", type: "file", data: b64("hello") }] };
			const a = await r.send("receive", "POST", "/api/receive", {
				headers: JSON_AUTH,
				body: body(upload),
				ignore: UPLOAD_PATH,
				files: { "file.txt": "hello" },
			});
			check(a.status === 200, "200");
		},
	},
	{
		file: "server",
		test: "returns 404 for unknown routes with auth",
		doc: "An unknown route with the token answers 404.",
		async run(r) {
			check(
				(await r.send("unknown route", "GET", "/unknown", { headers: AUTH, ignore: ERROR })).status === 404,
				"404",
			);
		},
	},
	...sessionScenarios,
	{
		file: "integration",
		test: "session init endpoint creates session with static context",
		doc: "Init with a system prompt and a tool answers the session id and a staticContextHash.",
		async run(r) {
			const staticContext = {
				systemPrompt: "You are a coding assistant.",
				tools: [{ name: "read", description: "Read a file", parameters: {} }],
			};
			const a = await post(r, "init", "/api/session/init", { sessionId: "http-test", staticContext });
			check(
				a.status === 200 && field(a, "sessionId") === "http-test" && Boolean(field(a, "staticContextHash")),
				"init",
			);
		},
	},
	{
		file: "integration",
		test: "rejects unauthenticated requests when auth token is configured",
		doc: "Init without a token answers 401.",
		async run(r) {
			const a = await r.send("init without a token", "POST", "/api/session/init", {
				headers: { "Content-Type": "application/json" },
				body: body({ sessionId: "unauth" }),
				ignore: ERROR,
			});
			check(a.status === 401, "401");
		},
	},
	{
		file: "integration",
		test: "health check works without auth",
		doc: "GET /health without a token answers 200.",
		async run(r) {
			check((await r.send("health", "GET", "/health")).status === 200, "200");
		},
	},
	{
		file: "integration",
		test: "returns 404 for unknown routes with auth",
		doc: "An unknown route with the token answers 404.",
		async run(r) {
			check(
				(await r.send("unknown route", "GET", "/unknown", { headers: AUTH, ignore: ERROR })).status === 404,
				"404",
			);
		},
	},
	...modelScenarios,
];

async function main(): Promise<void> {
	const fork = process.env.REIN_PI_FORK;
	const command = process.env.PI_SERVER_CMD;
	if (!fork || !command) throw new Error("set REIN_PI_FORK and PI_SERVER_CMD (see the docstring)");
	const sha = execFileSync("git", ["-C", fork, "rev-parse", "HEAD"], { encoding: "utf-8" }).trim();
	const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
	const out = process.argv[2] || join(root, "tests", "server", "compat", "recorded", "server-tests");
	const filter = process.argv[3] ?? "";
	mkdirSync(out, { recursive: true });
	const upstream = new Upstream();
	await upstream.start(process.env.REIN_PYTHON ?? join(root, ".venv", "bin", "python"), root);
	// Shaped as the fork's faux provider's model (its defaults): the real compaction reads every field.
	const model = {
		id: "test",
		name: "Test",
		api: "openai-completions",
		provider: "opencode-go",
		baseUrl: upstream.baseUrl,
		reasoning: false,
		input: ["text", "image"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 128000,
		maxTokens: 16384,
	};
	try {
		for (const scenario of scenarios) {
			const name = `${scenario.file}-${scenario.test.replace(/[^A-Za-z0-9]+/g, "-").toLowerCase()}`;
			if (!name.includes(filter)) continue;
			const dir = mkdtempSync(join(tmpdir(), "fork-server-test-"));
			const recorder = new Recorder(new ForkServer(command, process.env.PI_SERVER_CWD ?? fork, dir), upstream);
			await recorder.server.start();
			try {
				await scenario.run(recorder, model);
			} finally {
				await recorder.server.stop();
				rmSync(dir, { recursive: true, force: true });
			}
			const document = {
				doc: `${scenario.file}.test.ts "${scenario.test}": ${scenario.doc}`,
				source: {
					fork: sha,
					test: `packages/pi-server/test/${scenario.file}.test.ts`,
					how: "tests/server/fork/server_scenarios.ts against the fork's server process (PI_SERVER_AUTH_TOKEN=test-token, a fresh store per file), its model calls to tests/server/fork/upstream.py",
				},
				server: { token: TOKEN },
				exchanges: recorder.exchanges,
			};
			writeFileSync(join(out, `${name}.json`), `${JSON.stringify(document, null, 2)}\n`);
			console.log(`recorded ${name} (${recorder.exchanges.length} exchanges)`);
		}
	} finally {
		await upstream.stop();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
