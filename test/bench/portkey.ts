/**
 * Portkey's open-source gateway (`@portkey-ai/gateway`, a devDependency pinned with the
 * `hono` versions of its own lockfile through npm `overrides`), run as its users run it:
 * its start script in a child process. The peer `sluice serve` is measured beside.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { repoRoot } from "./systems.js";

/** Two in-process regex guardrails, as a Portkey user would write prompt-guard and pii-redact: an injection marker before, an e-mail address after. */
export const PORTKEY_GUARDRAILS = {
  input_guardrails: [{ "default.regexMatch": { rule: "[Ii]gnore (all )?(previous|prior) instructions", not: true }, deny: true }],
  output_guardrails: [{ "default.regexMatch": { rule: "[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}", not: true }, deny: true }],
};

/** Headers that route a call through Portkey to an OpenAI-compatible upstream, with or without the guardrails. */
export function portkeyHeaders(upstream: string, guardrails: boolean): Record<string, string> {
  return {
    "x-portkey-provider": "openai",
    "x-portkey-custom-host": `${upstream}/v1`,
    ...(guardrails ? { "x-portkey-config": JSON.stringify(PORTKEY_GUARDRAILS) } : {}),
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
}

/** Starts Portkey on a free loopback port; resolves once it answers its probe. */
export async function startPortkey(): Promise<{ origin: string; kill: () => void }> {
  const port = await freePort();
  const child: ChildProcess = fork(join(repoRoot(), "node_modules/@portkey-ai/gateway/build/start-server.js"), [`--port=${port}`, "--headless"], { stdio: ["ignore", "ignore", "inherit", "ipc"], env: { ...process.env, NODE_ENV: "production" } });
  const origin = `http://localhost:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`portkey exited with ${child.exitCode}`);
    try {
      const r = await fetch(origin, { signal: AbortSignal.timeout(1_000) });
      if (r.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) { child.kill(); throw new Error("portkey did not answer within 30 s"); }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { origin, kill: () => { child.kill(); } };
}
