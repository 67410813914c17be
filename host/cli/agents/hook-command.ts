/**
 * The command an agent runs for one hook event: this machine's node running `sluice-hook`
 * from this installed package, by absolute paths, so it works without a global install and
 * a moved or missing `sluice` on PATH cannot turn a guard into a no-op.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentId } from "./events.js";

/** The folder of the installed `sluice` package this CLI runs from. */
export function packageRoot(from = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "sluice") return dir;
    if (dirname(dir) === dir) throw new Error(`no sluice package.json above ${from}`);
  }
}

/** Where `sluice-hook` lives inside the package. */
export function sluiceHookPath(root = packageRoot()): string {
  return join(root, "dist/host/agents/sluice-hook.cjs");
}

/** Quotes one word for sh (every agent runs its command hooks through a shell). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface HookTarget {
  /** The server's URL (`sluice serve`'s management API). */
  url: string;
  /** The environment variable `sluice-hook` reads the hooks key from, at run time. */
  keyEnv: string;
  /** Absolute path of node. */
  node: string;
  /** Absolute path of sluice-hook.cjs (the bundled bin). */
  hook: string;
}

/**
 * How long `sluice-hook` waits for the server: well inside the time limit setup gives the
 * hook in the agent's settings (HOOK_TIMEOUT_SECONDS), so that a slow server gets sluice-hook's
 * own answer (a block before a tool) instead of the agent killing the hook, which most agents
 * treat as a non-blocking error and then run the tool.
 */
export const SERVER_TIMEOUT_MS = 25_000;

export function hookCommand(target: HookTarget, agent: AgentId, event: string): string {
  return [target.node, target.hook, agent, event, "--url", target.url, "--key-env", target.keyEnv, "--timeout-ms", String(SERVER_TIMEOUT_MS)].map(shellQuote).join(" ");
}

/** The door's URL for one event (what an http hook posts to). */
export function doorUrl(url: string, agent: AgentId, event: string): string {
  return `${url.replace(/\/+$/, "")}/v1/agent-hooks/${agent}/${event}`;
}

/** Whether a hook command or URL is one `sluice agents setup` wrote (so a rerun replaces it). */
export function isSluiceHook(commandOrUrl: unknown): boolean {
  return typeof commandOrUrl === "string" && (commandOrUrl.includes("sluice-hook") || commandOrUrl.includes("/v1/agent-hooks/"));
}
