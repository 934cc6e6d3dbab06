// The drive's harness side (see drive.ts): the environment, a fetch wrapper that sees the wire as
// the client does, the local session tree, the step runner and the runner protocol.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = Record<string, any>;

export const fork = need("REIN_PI_FORK");
export const baseUrl = need("PI_SERVER_URL");
export const upstream = need("UPSTREAM_BASE_URL");
export const scratch = need("DRIVE_TMP");

function need(name: string): string {
	const value = process.env[name];
	if (!value) throw new Error(`${name} is not set`);
	return value;
}

export const forkModule = (path: string) => import(pathToFileURL(join(fork, path)).href);

// client-side view of the wire, per step ---------------------------------------------------------

interface Seen {
	line: string;
	body: Promise<string>;
	contentType: string;
}

const realFetch = globalThis.fetch;
let stepName = "";
let seen: Seen[] = [];
let cutStreams = false;
let lastStreamBody = "";
const serverHashes = new Map<string, string>();

globalThis.fetch = async (input: any, init?: any): Promise<Response> => {
	const headers = new Headers(init?.headers);
	headers.set("x-rein-step", stepName);
	const url = new URL(String(input));
	if (url.pathname === "/api/stream" && typeof init?.body === "string") lastStreamBody = init.body;
	const response = await realFetch(input, { ...init, headers });
	const route = url.pathname.replace(/\/runs\/[^/]+$/, "/runs/{runId}");
	const contentType = response.headers.get("content-type") ?? "";
	const copy = response.clone();
	seen.push({ line: `${init?.method ?? "GET"} ${route} ${response.status}`, body: copy.text(), contentType });
	if (!cutStreams || !contentType.startsWith("text/event-stream")) return response;
	const text = await response.text();
	return new Response(beforeTerminal(text), { status: response.status, headers: response.headers });
};

// the server's events up to the first terminal one, the rest cut off
function beforeTerminal(text: string): string {
	const kept: string[] = [];
	for (const block of text.replace(/\r\n/g, "\n").split("\n\n")) {
		const type = dataLines(block).map((data) => JSON.parse(data).type)[0];
		if (type === "done" || type === "error") break;
		kept.push(block);
	}
	return kept.join("\n\n");
}

function dataLines(text: string): string[] {
	return text
		.replace(/\r\n/g, "\n")
		.split("\n")
		.filter((line) => line.startsWith("data:"))
		.map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
}

export function sseData(text: string): Obj[] {
	return dataLines(text).map((data) => JSON.parse(data));
}

/** The body of the last POST /api/stream, as the client sent it. */
export function lastStream(): string {
	return lastStreamBody;
}

/** A new client process knows no server state. */
export function forgetServerHashes(): void {
	serverHashes.clear();
}

let noted = 0;

async function noteServerHashes(): Promise<void> {
	for (; noted < seen.length; noted++) {
		const item = seen[noted];
		const text = await item.body;
		const bodies = item.contentType.startsWith("text/event-stream") ? sseData(text) : [parseOrNull(text)];
		for (const body of bodies) {
			if (body && typeof body.sessionId === "string" && typeof body.treeHash === "string") {
				serverHashes.set(body.sessionId, body.treeHash);
			}
		}
	}
}

export function parseOrNull(text: string): Obj | null {
	try {
		const value = JSON.parse(text);
		return value && typeof value === "object" ? value : null;
	} catch {
		return null;
	}
}

// the session model ------------------------------------------------------------------------------

const tools = [
	{
		name: "read",
		description: "Read a file",
		parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
	},
];
export const SYSTEM = "You are the drive's assistant.";
export const SYSTEM_2 = "You are the drive's assistant, now with a changed system prompt.";

export function model(id: string): Obj {
	return {
		id,
		name: id,
		api: "openai-completions",
		provider: "openai",
		baseUrl: upstream,
		reasoning: true,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 200000,
		maxTokens: 3333,
	};
}

let clock = Date.parse("2026-01-01T00:00:00.000Z");
export function tick(): number {
	clock += 1000;
	return clock;
}

export function user(text: string): Obj {
	return { role: "user", content: [{ type: "text", text }], timestamp: tick() };
}

export class Tree {
	entries: Obj[] = [];
	leafId: string | null = null;
	constructor(
		readonly sessionId: string,
		public systemPrompt = SYSTEM,
	) {}

	add(id: string, fields: Obj, parentId: string | null = this.leafId): Obj {
		const entry = { id, parentId, timestamp: new Date(tick()).toISOString(), ...fields };
		if (entry.type === undefined) throw new Error("an entry needs a type");
		this.entries.push(entry);
		this.leafId = id;
		return entry;
	}

	message(id: string, message: Obj, parentId: string | null = this.leafId): Obj {
		return this.add(id, { type: "message", message }, parentId);
	}

	reply(id: string, message: Obj): Obj {
		return this.message(id, { ...message, timestamp: tick() });
	}

	branch(): Obj[] {
		const byId = new Map(this.entries.map((entry) => [entry.id, entry]));
		const path: Obj[] = [];
		for (let at = this.leafId ? byId.get(this.leafId) : undefined; at; at = byId.get(at.parentId)) path.unshift(at);
		return path;
	}

	messages(): Obj[] {
		return this.branch()
			.filter((entry) => entry.type === "message")
			.map((entry) => entry.message);
	}

	context(): Obj {
		return { systemPrompt: this.systemPrompt, messages: this.messages(), tools };
	}

	snapshot(leafId: string | null = this.leafId): Obj {
		return { entries: this.entries, leafId };
	}

	adopt(snapshot: Obj): void {
		this.entries = [...snapshot.entries];
		this.leafId = snapshot.leafId;
	}
}

// steps ------------------------------------------------------------------------------------------

interface StepResult {
	name: string;
	exchanges: string[];
	ok: boolean;
	error?: string;
	[key: string]: Json | undefined;
}

export const results: StepResult[] = [];

export async function step(name: string, body: () => Promise<Obj | undefined>, options: { cut?: boolean } = {}) {
	await ask(`step ${name}`);
	stepName = name;
	seen = [];
	noted = 0;
	cutStreams = options.cut ?? false;
	let outcome: Obj;
	try {
		outcome = { ok: true, ...((await body()) ?? {}) };
	} catch (error) {
		outcome = { ok: false, error: error instanceof Error ? error.message : String(error) };
		if (error && typeof error === "object" && "code" in error) outcome.code = (error as Obj).code ?? null;
	}
	await noteServerHashes();
	results.push({ name, exchanges: seen.map((item) => item.line), ...outcome } as StepResult);
	cutStreams = false;
}

export async function hashes(protocol: Obj, tree: Tree): Promise<Obj> {
	await noteServerHashes();
	const clientHash = protocol.hashPiServerSessionEntries(tree.entries);
	const serverHash = serverHashes.get(tree.sessionId) ?? null;
	return { session: tree.sessionId, clientHash, serverHash, hashesMatch: clientHash === serverHash };
}

export const answers = createInterface({ input: process.stdin });
const lines = answers[Symbol.asyncIterator]();

// a line the runner acts on before it answers "ok" (a restart; a step's start, so that it can tell
// which step the model calls it sees belong to)
export async function ask(command: string): Promise<void> {
	process.stdout.write(`@@${command}\n`);
	const answer = await lines.next();
	if (answer.done || answer.value.trim() !== "ok") {
		throw new Error(`the runner answered ${JSON.stringify(answer.value)} to ${command}`);
	}
}

export function uploadFixtures(): { folder: string; big: string } {
	const folder = join(scratch, "drive-upload");
	mkdirSync(join(folder, "sub"), { recursive: true });
	writeFileSync(join(folder, "a.txt"), "alpha\n");
	writeFileSync(join(folder, "sub", "b.txt"), "beta\n");
	const big = join(scratch, "drive-big-upload.txt");
	writeFileSync(big, "abc".repeat(150_000));
	return { folder, big };
}

export function zeroUsage(): Obj {
	const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost };
}

export function assistant(text: string): Obj {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "openai-completions",
		provider: "openai",
		model: "gpt-drive-1",
		usage: zeroUsage(),
		stopReason: "stop",
	};
}
