// Resolves the fork's workspace package names to its TypeScript sources, as the fork's own vitest
// config does (vitest.base.ts), so its server and client run from source without a build.
// Used with `node --import <this file>`; the fork checkout is named by REIN_PI_FORK.
import { mkdirSync, writeFileSync } from "node:fs";
import { register } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const fork = process.env.REIN_PI_FORK;
if (!fork) throw new Error("REIN_PI_FORK must name a checkout of the pi-server fork");
const src = (pkg, file) => pathToFileURL(join(fork, "packages", pkg, "src", file)).href;
const aliases = {
	"@earendil-works/pi-telemetry": src("telemetry", "index.ts"),
	"@earendil-works/pi-telemetry/testing": src("telemetry", "testing/index.ts"),
	"@earendil-works/pi-ai": src("ai", "index.ts"),
	"@earendil-works/pi-ai/compat": src("ai", "compat.ts"),
	"@earendil-works/pi-ai/oauth": src("ai", "oauth.ts"),
	"@earendil-works/pi-agent-core": src("agent", "index.ts"),
	"@earendil-works/pi-tui": src("tui", "index.ts"),
	// pi-client's `send` (bin/send.js) imports the client's request module through the package
	"@earendil-works/pi-coding-agent/pi-server-request": src("coding-agent", "core/pi-server-request.ts"),
};
const providers = src("ai", "providers/");

// The model catalog (providers/data/*.json) is generated from the network and not in the checkout;
// the server takes the client's model object, so an empty catalog stands in for a missing file.
const stubs = join(tmpdir(), "rein-pi-fork-stubs");
mkdirSync(stubs, { recursive: true });
const manifest = { schemaVersion: 1, generatedAt: "1970-01-01T00:00:00.000Z", structureHash: "", files: {} };
writeFileSync(join(stubs, "manifest.json"), JSON.stringify(manifest));
writeFileSync(join(stubs, "empty.json"), "{}");
const emptyCatalog = pathToFileURL(join(stubs, "empty.json")).href;
const emptyManifest = pathToFileURL(join(stubs, "manifest.json")).href;

const hooks = `
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
const aliases = ${JSON.stringify(aliases)};
const providers = ${JSON.stringify(providers)};
const emptyCatalog = ${JSON.stringify(emptyCatalog)};
const emptyManifest = ${JSON.stringify(emptyManifest)};
export async function resolve(specifier, context, next) {
	// through the next resolver, so that tsx (under node < 22.18) marks the file as TypeScript
	if (specifier in aliases) return next(aliases[specifier], context);
	if (specifier.startsWith("./data/") && context.parentURL?.startsWith(providers)) {
		const url = new URL(specifier, context.parentURL);
		if (!existsSync(fileURLToPath(url))) {
			return { url: specifier.endsWith(".manifest.json") ? emptyManifest : emptyCatalog, shortCircuit: true };
		}
	}
	const prefix = "@earendil-works/pi-ai/providers/";
	if (specifier.startsWith(prefix)) {
		return next(providers + specifier.slice(prefix.length) + ".ts", context);
	}
	return next(specifier, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
