// Drives a session through the pi-server fork's own client code (pi-server-client.ts,
// pi-server-request.ts, pi-client's send.js, imported unmodified from the checkout named by
// REIN_PI_FORK) against the server at PI_SERVER_URL, and prints what the client saw.
//
// Run by tests/server/fork/recorder.py (against the fork's server, through the recording proxy)
// and tests/server/test_fork_live.py (against `rein serve`), both with the fork's tsx and
// `--import alias.mjs`. Environment: REIN_PI_FORK, PI_SERVER_URL, PI_SERVER_AUTH_TOKEN,
// UPSTREAM_BASE_URL (the fake model upstream the models point at), DRIVE_TMP (a scratch dir).
//
// Protocol on stdout: "@@restart" asks the runner to restart the server (same port and store),
// "@@step <name>" says a step starts; the runner answers each with "ok" on stdin. The last line
// is "@@result " and one JSON document:
// {steps: [{name, exchanges: ["POST /api/stream 200", ...], ok, error?, ...view}]}. A view with
// clientHash and serverHash compares the client's own hashPiServerSessionEntries of its entries
// with the treeHash the server last answered for that session.
//
// Every request carries an `x-rein-step` header naming its step (the recorder strips it). A step
// marked `cut` simulates a connection lost just before the end of a stream: the client gets the
// server's events up to the first terminal one and then the end of the body, so it recovers the
// reply through the run journal (GET /api/session/{id}/runs/{runId}), as after a real drop.

import {
	type Obj,
	SYSTEM_2,
	Tree,
	answers,
	ask,
	assistant,
	baseUrl,
	forgetServerHashes,
	forkModule,
	hashes,
	lastStream,
	model,
	parseOrNull,
	results,
	sseData,
	step,
	tick,
	uploadFixtures,
	user,
	zeroUsage,
} from "./drive_support.ts";

async function main(): Promise<void> {
	const client = await forkModule("packages/coding-agent/src/core/pi-server-client.ts");
	const request = await forkModule("packages/coding-agent/src/core/pi-server-request.ts");
	const protocol = await forkModule("packages/coding-agent/src/core/pi-server-protocol.ts");
	const send = await forkModule("packages/pi-client/bin/send.js");
	const raw = () => new request.ChunkRequest({ serverUrl: baseUrl, authToken: process.env.PI_SERVER_AUTH_TOKEN ?? "" });
	const json = async (response: Response) => ({ status: response.status, body: parseOrNull(await response.text()) });

	const sync = async (tree: Tree, leafId: string | null = tree.leafId) => {
		await client.syncPiServerTree(tree.sessionId, tree.context(), tree.snapshot(leafId), {
			onHistoryReconciled: (snapshot: Obj) => tree.adopt(snapshot),
		});
	};
	const synced = async (tree: Tree, leafId: string | null = tree.leafId) => {
		await sync(tree, leafId);
		return hashes(protocol, tree);
	};
	// a sync the server refuses with a divergence code: the client adopts the server's history and
	// stops the operation with an error
	const reconcile = async (tree: Tree, leafId: string | null = tree.leafId) => {
		try {
			await sync(tree, leafId);
			return { reconciled: false, ...(await hashes(protocol, tree)) };
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			return { reconciled: true, reconcileError: message, ...(await hashes(protocol, tree)) };
		}
	};
	const stream = async (tree: Tree, options: Obj = {}, id = "gpt-drive-1") => {
		const events = await client.streamPiServer(model(id), tree.context(), { sessionId: tree.sessionId, ...options });
		const message = await events.result();
		const text = message.content.map((part: Obj) => part.text ?? part.thinking ?? part.name ?? "").join("|");
		return { message, view: { stopReason: message.stopReason, text, errorMessage: message.errorMessage ?? null } };
	};
	const turn = async (tree: Tree, id: string, options: Obj = {}, modelId = "gpt-drive-1") => {
		const { message, view } = await stream(tree, options, modelId);
		if (message.stopReason !== "error") tree.reply(id, message);
		return view;
	};
	const compact = async (tree: Tree, options: Obj, id = "gpt-drive-1") => {
		const result = await client.compactPiServer(model(id), tree.context(), {
			sessionId: tree.sessionId,
			sessionTree: tree.snapshot(),
			onHistoryReconciled: (snapshot: Obj) => tree.adopt(snapshot),
			...options,
		});
		tree.adopt({ entries: result.entries, leafId: result.leafId });
		const { summary, firstKeptEntryId } = result.compaction;
		return { summary, firstKeptEntryId, kept: result.compactionEntry.firstKeptEntryId };
	};

	await step("root-json-401", async () => {
		return json(await fetch(`${baseUrl}/`, { headers: { Accept: "application/json" } }));
	});

	// one session through the client's everyday calls
	const main = new Tree("drive-main");
	main.message("m-u1", user("Hello, server."));
	await step("main-init-append", () => synced(main));
	await step("main-stream-options", () => turn(main, "m-a1", { maxTokens: 777, temperature: 0.3, reasoning: "high" }));
	main.message("m-u2", user("[[think]] Think, then answer."));
	await step("main-append-reply", () => synced(main));
	await step("main-stream-model-max-tokens", () => turn(main, "m-a2"));
	main.add("m-mc1", { type: "model_change", provider: "openai", modelId: "gpt-drive-2" });
	main.message("m-u3", user("Which model answers?"));
	await step("main-append-model-change", () => synced(main));
	await step("main-stream-other-model", () => turn(main, "m-a3", {}, "gpt-drive-2"));
	main.message("m-u4", user("[[tool]] Read the README."));
	await step("main-append-tool-turn", () => synced(main));
	await step("main-stream-tool-call", () => turn(main, "m-a4"));
	const call = main.entries[main.entries.length - 1].message.content.find((part: Obj) => part.type === "toolCall");
	main.message("m-tr1", {
		role: "toolResult",
		toolCallId: call?.id ?? "missing",
		toolName: "read",
		content: [{ type: "text", text: "# README\nThe drive's fixture." }],
		isError: false,
		timestamp: tick(),
	});
	main.systemPrompt = SYSTEM_2;
	await step("main-update-static-context", () => synced(main));
	await step("main-overlay-deferred-pending", async () => {
		const deferred = {
			role: "assistant",
			content: [{ type: "text", text: "A deferred answer." }],
			api: "openai-completions",
			provider: "openai",
			model: "gpt-drive-1",
			usage: zeroUsage(),
			stopReason: "deferred",
			deferred: { provider: "openai", modelId: "gpt-drive-1", api: "openai-completions", id: "resp_deferred_1" },
			timestamp: tick(),
		};
		const pending = { ...deferred, content: [{ type: "text", text: "A pending answer." }], stopReason: "pending" };
		delete (pending as Obj).deferred;
		const overlay = [...main.messages(), deferred, pending, user("After a deferred and a pending reply.")];
		return (await stream(main, { contextOverlay: overlay })).view;
	});
	main.message("m-u6b", user("A branch from the model answer."), "m-a3");
	await step("main-append-branch", () => synced(main));
	main.leafId = "m-tr1";
	await step("main-switch-back", () => synced(main));
	main.add("m-lb1", { type: "label", targetId: "m-u1", label: "start" });
	main.message("m-u7", user("Recover this reply."));
	await step("main-append-label", () => synced(main));
	await step("run-recovery-completed", () => turn(main, "m-a7"), { cut: true });
	const recovered = lastStream();
	await step("run-replay-completed", async () => {
		const response = await raw().postJson("/api/stream", JSON.parse(recovered));
		const events = sseData(await response.text());
		return { status: response.status, events: events.map((event) => event.type) };
	});
	main.message("m-u8", user("[[error]] Make the upstream fail."));
	await step("main-append-error-turn", () => synced(main));
	await step("run-recovery-failed", () => turn(main, "m-a8"), { cut: true });
	await step("run-not-found", async () => {
		return json(await raw().getJson("/api/session/drive-main/runs/no-such-run"));
	});

	// a lone UTF-16 surrogate (JSON.stringify escapes it): stored, hashed, sent to the model
	const lone = new Tree("drive-surrogate");
	lone.message("s-u1", user("A lone surrogate: \ud83d and a pair: \ud83d\ude00."));
	await step("surrogate-init-append", () => synced(lone));
	await step("surrogate-stream", () => turn(lone, "s-a1"));
	await step("surrogate-append-reply", () => synced(lone));

	// a session deleted behind the client's back: the stream re-initializes it
	const gone = new Tree("drive-gone");
	gone.message("g-u1", user("Soon gone."));
	await step("gone-init-append", () => synced(gone));
	await step("gone-deleted-elsewhere", async () => {
		const authorization = `Bearer ${process.env.PI_SERVER_AUTH_TOKEN ?? ""}`;
		return json(await fetch(`${baseUrl}/api/session/drive-gone`, { method: "DELETE", headers: { authorization } }));
	});
	await step("gone-stream-reinitializes", () => turn(gone, "g-a1"));

	// divergence: another device changes the server's tree; the client reconciles from history
	const div = new Tree("drive-diverge");
	div.message("d-u1", user("First."));
	div.message("d-a1", { ...assistant("One."), timestamp: tick() });
	div.message("d-u2", user("Second."));
	await step("div-init-append", () => synced(div));
	const other = async (path: string, body: Obj) => json(await raw().postJson(path, body));
	const at = () => new Date(tick()).toISOString();
	const x1Entry = { type: "message", id: "x-1", parentId: "d-u2", timestamp: at(), message: user("From another device.") };
	await step("div-other-device-appends", () =>
		other("/api/session/tree/append", { sessionId: "drive-diverge", entries: [x1Entry], leafId: "x-1" }),
	);
	await step("div-leaf-not-found-tree-patch", () => reconcile(div, "ghost-leaf"));
	const x2Entry = { type: "message", id: "x-2", parentId: "x-1", timestamp: at(), message: user("Theirs.") };
	await step("div-other-device-appends-again", () =>
		other("/api/session/tree/append", { sessionId: "drive-diverge", entries: [x2Entry], leafId: "x-2" }),
	);
	div.message("x-2", user("Mine, under the same id."), "x-1");
	await step("div-entry-already-exists", () => reconcile(div));
	await step("div-other-device-replaces", () =>
		other("/api/session/tree/sync", { sessionId: "drive-diverge", entries: div.entries.slice(0, 2), leafId: "d-a1" }),
	);
	div.message("d-u3", user("Third, after theirs."));
	await step("div-parent-not-found", () => reconcile(div));
	div.message("d-u4", user("Continuing on the server's tree."));
	await step("div-continue", () => synced(div));

	// compaction
	const comp = new Tree("drive-compact");
	const filler = "The drive talks at length so that a compaction has something to cut. ".repeat(4);
	for (let n = 1; n <= 3; n++) {
		comp.message(`c-u${n}`, user(`Question ${n}. ${filler}`));
		comp.message(`c-a${n}`, { ...assistant(`Answer ${n}. ${filler}`), timestamp: tick() });
	}
	await step("compact-init-append", () => synced(comp));
	await step("compact-settings-reasoning", async () => ({
		...(await compact(comp, {
			settings: { enabled: true, reserveTokens: 2000, keepRecentTokens: 100 },
			customInstructions: "Keep the question numbers.",
			reasoning: "high",
		})),
		...(await hashes(protocol, comp)),
	}));
	await step("compact-nothing-to-compact", async () => compact(comp, {}));
	comp.message("c-u4", user(`Question 4. ${filler}`));
	comp.message("c-a4", { ...assistant(`Answer 4. ${filler}`), timestamp: tick() });
	comp.message("c-u5", user("Question 5."));
	await step("compact-append-after", () => synced(comp));
	await step("compact-preparation-model", async () => ({
		...(await compact(comp, { preparation: { firstKeptEntryId: "c-u5" } }, "gpt-drive-2")),
		...(await hashes(protocol, comp)),
	}));

	// bodies over 512 KB go in chunks
	const big = new Tree("drive-big");
	big.message("b-u1", user(`A big message: ${"x".repeat(600_000)}`));
	await step("big-chunked-append", () => synced(big));
	big.message("b-u2", user("A short question after the big one."));
	await step("big-chunked-stream", () => turn(big, "b-a2"));

	// pi-client send: the upload route
	const fixtures = uploadFixtures();
	const upload = async (path: string) => json(await raw().postJson("/api/receive", send.createUploadBody(path)));
	await step("receive-folder", () => upload(fixtures.folder));
	await step("receive-chunked-file", () => upload(fixtures.big));
	await step("receive-existing", () => upload(fixtures.folder));
	await step("receive-invalid-name", async () => json(await raw().postJson("/api/receive", { name: "..", entries: [] })));

	// a restart: sessions survive it, a new client process re-initializes
	await ask("restart");
	client.resetAllSessionTracking();
	forgetServerHashes();
	await step("restart-reinit-main", () => synced(main));
	main.message("m-u9", user("After the restart."));
	await step("restart-append", () => synced(main));
	await step("restart-stream", () => turn(main, "m-a9"));
	await step("restart-reinit-compact", () => synced(comp));

	// the server's own hash of its entries, per session
	await step("verify-main", async () => (await sync(main), verify(main)));
	for (const tree of [lone, div, comp]) {
		await step(`verify-${tree.sessionId.replace("drive-", "")}`, async () => verify(tree));
	}
	await step("verify-big", async () => {
		await sync(big);
		const base = protocol.buildPiServerTreePrefixHashes(big.entries)[1];
		const path = `/api/session/drive-big/history?from=1&entriesFrom=1&baseTreeHash=${base}`;
		const body = (await json(await raw().getJson(path))).body ?? {};
		const entries = [...big.entries.slice(0, 1), ...(body.treePatch?.entries ?? [])];
		return { ...(await hashes(protocol, big)), patched: protocol.hashPiServerSessionEntries(entries) === body.treeHash };
	});

	async function verify(tree: Tree): Promise<Obj> {
		const response = await raw().getJson(`/api/session/${tree.sessionId}/history`);
		const body = (await json(response)).body ?? {};
		const own = protocol.hashPiServerSessionEntries(body.entries ?? []);
		const view = await hashes(protocol, tree);
		return { ...view, serverOwnHash: own === body.treeHash, sameEntries: own === view.clientHash };
	}

	process.stdout.write(`@@result ${JSON.stringify({ steps: results })}\n`);
	answers.close();
}

main().catch((error) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
