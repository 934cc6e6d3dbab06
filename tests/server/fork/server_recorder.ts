// The machinery of server_scenarios.ts: the fork's server as a child process, the scripted model
// upstream both servers call (upstream.py, in a Python child), and a recorder that sends one request
// and keeps the exchange in the format tests/server/compat/_recorded.py replays.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const TOKEN = "test-token";

async function freePort(): Promise<number> {
	const probe = createServer();
	await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
	const { port } = probe.address() as AddressInfo;
	await new Promise<void>((resolve) => probe.close(() => resolve()));
	return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Serves upstream.py's `Upstream` and answers each line on stdin with the fields of the model
// requests since the previous line (its `take()`), so the replay's upstream is the recording's.
const UPSTREAM = `
import json, sys
from tests.server.fork.upstream import Upstream
with Upstream() as upstream:
    print(json.dumps(upstream.base_url), flush=True)
    for _ in sys.stdin:
        print(json.dumps(upstream.take()), flush=True)
`;

/** The scripted OpenAI chat-completions upstream of tests/server/fork/upstream.py. */
export class Upstream {
	private child: ChildProcess | undefined;
	private lines: Interface | undefined;
	private waiting: ((line: string) => void)[] = [];
	baseUrl = "";

	/** Start it with `python` (rein's venv) in the repository `root`. */
	async start(python: string, root: string): Promise<void> {
		const child = spawn(python, ["-c", UPSTREAM], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
		this.child = child;
		this.lines = createInterface({ input: child.stdout! });
		this.lines.on("line", (line) => this.waiting.shift()?.(line));
		this.baseUrl = JSON.parse(await this.next()) as string;
	}

	/** The fields of each model request since the previous call, in arrival order. */
	async take(): Promise<Json[]> {
		this.child!.stdin!.write("take\n");
		return JSON.parse(await this.next()) as Json[];
	}

	async stop(): Promise<void> {
		const child = this.child;
		if (!child || child.exitCode !== null) return;
		const exited = new Promise((resolve) => child.once("exit", resolve));
		child.stdin!.end();
		await exited;
	}

	private next(): Promise<string> {
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error("the upstream did not answer in 10 s")), 10_000);
			this.waiting.push((line) => {
				clearTimeout(timer);
				resolve(line);
			});
		});
	}
}

/** The fork's server as a process: `command` run by sh in `cwd`, configured through its env. */
export class ForkServer {
	private child: ChildProcess | undefined;
	port = 0;

	constructor(
		private readonly command: string,
		private readonly cwd: string,
		readonly dir: string,
	) {}

	get baseUrl(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	get uploadDir(): string {
		return join(this.dir, "uploads");
	}

	async start(): Promise<void> {
		mkdirSync(this.dir, { recursive: true });
		this.port = await freePort();
		// Nothing of the caller's server or provider settings leaks in.
		const inherited = Object.entries(process.env).filter(([key]) => !/^(PI_|OPENAI_|ANTHROPIC_|OPENCODE_)/.test(key));
		const env = {
			...Object.fromEntries(inherited),
			PI_SERVER_HOST: "127.0.0.1",
			PI_SERVER_PORT: String(this.port),
			PI_SERVER_AUTH_TOKEN: TOKEN,
			PI_SERVER_SESSION_STORE_DIR: join(this.dir, "sessions"),
			PI_SERVER_UPLOAD_DIR: this.uploadDir,
			OPENCODE_API_KEY: "test", // the provider of the tests' models wants a key; the upstream ignores it
		};
		this.child = spawn("sh", ["-c", this.command], { cwd: this.cwd, env, detached: true, stdio: "inherit" });
		for (let attempt = 0; attempt < 300; attempt++) {
			if (this.child.exitCode !== null) throw new Error(`the fork's server exited (${this.child.exitCode})`);
			try {
				if ((await fetch(`${this.baseUrl}/health`)).ok) return;
			} catch {
				// not listening yet
			}
			await sleep(100);
		}
		throw new Error("the fork's server did not answer /health within 30 s");
	}

	async stop(): Promise<void> {
		const child = this.child;
		if (!child || child.exitCode !== null) return;
		const exited = new Promise((resolve) => child.once("exit", resolve));
		process.kill(-child.pid!, "SIGTERM"); // the group: sh, tsx and node
		await exited;
	}
}

export interface SendOptions {
	headers?: Record<string, string>;
	body?: string;
	/** Dotted paths into the answer (`*`: any key or index) compared by JSON type only, with why. */
	ignore?: Record<string, string>;
	/** The answer's first bytes, which must come within 1 s: a heartbeat before the model answers. */
	heartbeat?: string;
	/** Files the exchange leaves under the server's upload directory (null: must not exist). */
	files?: Record<string, string | null>;
	/** How many model calls the exchange makes (the fork's test counts them). */
	calls?: number;
}

export type SseEvent = {
	event: string;
	data: Json;
};

export interface Answer {
	status: number;
	contentType: string;
	json?: Json;
	sse?: SseEvent[];
	text?: string;
}

const HEARTBEAT_MS = 1000;

// As _recorded.parse_sse reads it: comments are no events, an event without a name is "message".
function parseSse(raw: string): SseEvent[] {
	const events: SseEvent[] = [];
	for (const block of raw.replace(/\r\n/g, "\n").split("\n\n")) {
		let event = "message";
		const data: string[] = [];
		for (const line of block.split("\n")) {
			if (line.startsWith("event:")) event = line.slice(6).trim();
			else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
		}
		if (data.length === 0) continue;
		const text = data.join("\n");
		let parsed: Json;
		try {
			parsed = JSON.parse(text) as Json;
		} catch {
			parsed = text;
		}
		events.push({ event, data: parsed });
	}
	return events;
}

async function readAll(res: Response, heartbeat: string | undefined): Promise<string> {
	const reader = res.body!.getReader();
	const decoder = new TextDecoder();
	let raw = "";
	if (heartbeat !== undefined) {
		const late = sleep(HEARTBEAT_MS).then(() => "late" as const);
		const first = await Promise.race([reader.read(), late]);
		check(first !== "late" && !first.done, `first bytes within ${HEARTBEAT_MS} ms`);
		raw = decoder.decode((first as { value: Uint8Array }).value, { stream: true });
		check(raw.startsWith(heartbeat), `the first bytes ${JSON.stringify(raw)} are the heartbeat`);
	}
	for (;;) {
		const chunk = await reader.read();
		if (chunk.done) break;
		raw += decoder.decode(chunk.value, { stream: true });
	}
	return raw + decoder.decode();
}

/** Sends requests to the fork's server and keeps each exchange. */
export class Recorder {
	readonly exchanges: Record<string, Json>[] = [];

	constructor(
		readonly server: ForkServer,
		readonly upstream: Upstream,
	) {}

	async send(name: string, method: string, path: string, options: SendOptions = {}): Promise<Answer> {
		const stray = await this.upstream.take();
		check(stray.length === 0, `no model call outside an exchange (${JSON.stringify(stray)})`);
		const res = await fetch(`${this.server.baseUrl}${path}`, {
			method,
			headers: options.headers,
			body: options.body,
		});
		const raw = await readAll(res, options.heartbeat);
		const contentType = res.headers.get("content-type") ?? "";
		const answer: Answer = { status: res.status, contentType };
		const media = contentType.split(";")[0].trim().toLowerCase();
		if (media === "application/json" && raw.trim()) answer.json = JSON.parse(raw) as Json;
		else if (media === "text/event-stream") answer.sse = parseSse(raw);
		else answer.text = raw;
		const upstream = await this.upstream.take();
		if (options.calls !== undefined) check(upstream.length === options.calls, `${options.calls} model calls`);

		const request = { method, path, headers: options.headers ?? {}, body: options.body ?? "" };
		const response: Record<string, Json> = { ...answer };
		if (options.heartbeat !== undefined) {
			response.firstByteWithinMs = HEARTBEAT_MS;
			response.firstBytes = options.heartbeat;
		}
		const exchange: Record<string, Json> = { name, request, response };
		if (options.ignore) exchange.ignore = options.ignore;
		if (options.files) exchange.files = this.checkFiles(options.files);
		exchange.upstream = upstream;
		this.exchanges.push(exchange);
		return answer;
	}

	async restart(name: string): Promise<void> {
		await this.server.stop();
		await this.server.start();
		this.exchanges.push({ name, restart: true });
	}

	private checkFiles(files: Record<string, string | null>): Record<string, Json> {
		for (const [path, content] of Object.entries(files)) {
			const full = join(this.server.uploadDir, path);
			const actual = existsSync(full) ? readFileSync(full, "utf-8") : null;
			check(actual === content, `${path} holds ${JSON.stringify(content)} (it holds ${JSON.stringify(actual)})`);
		}
		return files;
	}
}

// The kit the scenarios are written with.

export const JSON_AUTH = { "Content-Type": "application/json", Authorization: `Bearer ${TOKEN}` };
export const AUTH = { Authorization: `Bearer ${TOKEN}` };
export const ERROR = { error: "error wording is the server's own; `code` is compared" };

/** One fork test: `run` sends its requests through the recorder; `model` calls the scripted upstream. */
export interface Scenario {
	file: "server" | "integration";
	test: string;
	doc: string;
	run(r: Recorder, model: Record<string, Json>): Promise<void>;
}

/** What the fork's test asserts; a recording that breaks it is refused. */
export function check(condition: boolean, what: string): void {
	if (!condition) throw new Error(`the fork's test would fail: ${what}`);
}

/** The value at a dotted path of a JSON answer. */
export function field(answer: Answer, path: string): Json | undefined {
	let value: Json | undefined = answer.json;
	for (const key of path.split(".")) {
		if (value === null || value === undefined || typeof value !== "object") return undefined;
		value = Array.isArray(value) ? value[Number(key)] : value[key];
	}
	return value;
}

export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
export const body = (value: unknown): string => JSON.stringify(value);

export const USAGE = {
	input: 1,
	output: 1,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 2,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** The assistant message the fork's tests store (its fields in their order). */
export function assistant(text: string, timestamp: number) {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "openai-completions",
		provider: "opencode-go",
		model: "glm-5.1",
		usage: USAGE,
		stopReason: "stop",
		timestamp,
	};
}

/** A user-message tree entry as the fork's tests write one. */
export function userEntry(id: string, parentId: string | null, second: number, content: string, timestamp: number) {
	const at = `2026-01-01T00:00:0${second}.000Z`;
	return { type: "message", id, parentId, timestamp: at, message: { role: "user", content, timestamp } };
}

export async function syncTree(r: Recorder, sessionId: string, entries: unknown[], leafId: string): Promise<Answer> {
	const answer = await r.send("sync the tree", "POST", "/api/session/tree/sync", {
		headers: JSON_AUTH,
		body: body({ sessionId, entries, leafId }),
	});
	check(answer.status === 200, "tree sync answers 200");
	return answer;
}

/** A JSON POST with the token, as most of the fork's tests send. */
export async function post(
	r: Recorder,
	name: string,
	path: string,
	value: unknown,
	ignore?: Record<string, string>,
): Promise<Answer> {
	return r.send(name, "POST", path, { headers: JSON_AUTH, body: body(value), ignore });
}
