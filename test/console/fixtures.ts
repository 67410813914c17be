/**
 * A real `sluice serve` for the console tests (`npm run build` first): a temporary data
 * folder, the gateway in front of a stub upstream, the reference plugins uploaded and bound
 * as the demo binds them, r1 published and active.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_BINDINGS, DEMO_PLUGINS } from "../../host/demo/release.js";
import { spawnSluice, stop, waitFor } from "../cli/run-cli.js";
import { tempDir } from "../registry/fixtures.js";

export const CONSOLE_TOKEN = "console-test-token-0123456789abcdefghij";
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** A JSON request to `base` with the API token; throws on a non-2xx answer. */
export async function apiCall<T = Record<string, unknown>>(base: string, method: string, route: string, body?: unknown, bearer = CONSOLE_TOKEN): Promise<T> {
  const res = await fetch(new URL(route, base), { method, headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Uploads every reference plugin and the demo's bindings through the API of `base`. */
export async function uploadReferencePlugins(base: string): Promise<void> {
  for (const name of DEMO_PLUGINS) {
    const manifest = readFileSync(path.join(ROOT, "plugins", name, "hook.yaml"), "utf8");
    const wasm = readFileSync(path.join(ROOT, "build/plugins", `${name}.wasm`));
    await apiCall(base, "POST", "/api/v1/plugins", { manifest, wasm_base64: wasm.toString("base64") });
  }
  for (const b of DEMO_BINDINGS) await apiCall(base, "POST", "/api/v1/bindings", structuredClone(b));
}

/** An OpenAI-compatible upstream that answers every chat with one short message. */
export async function stubUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "chatcmpl-console", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "  Paris.  " }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }) };
}

export interface Served { api: string; gateway: string; output(): string; stop(): Promise<void> }

/** `sluice serve` with the gateway and the payload store, on a new data folder. */
export async function startServe(upstream: string): Promise<Served> {
  const work = tempDir("sluice-console-");
  const child = spawnSluice(["serve", "--port", "0", "--gateway-port", "0", "--payload-store"], {
    SLUICE_DATA_DIR: path.join(work, "data"), SLUICE_TOKEN: CONSOLE_TOKEN, SLUICE_WORKERS: "1", SLUICE_LOG_LEVEL: "warn", SLUICE_UPSTREAM: upstream,
  }, work);
  let text = "";
  child.stdout.on("data", (d: Buffer) => { text += d; });
  child.stderr.on("data", (d: Buffer) => { text += d; });
  const out = await waitFor(child, /sluice listening on \S+/);
  return { api: /sluice listening on (\S+)/.exec(out)![1]!, gateway: /gateway listening on (\S+)\/v1/.exec(out)![1]!, output: () => text, stop: () => stop(child) };
}

/** A page on another origin (its own port) that the cross-origin test loads. */
export async function otherOrigin(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => { res.writeHead(200, { "content-type": "text/html; charset=utf-8" }); res.end(html); });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }) };
}
