/**
 * Several `sluice serve` processes on one database, for the multi-host tests and the bench
 * (`npm run build` first: they run dist/host/cli/main.js). Every host gets the same API
 * token, its own port, and either the shared data folder (SQLite: every process opens the
 * same `sluice.db`) or, with `database`, its own data folder and that database URL.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { until } from "./until.js";

export const FLEET_TOKEN = "multihost-test-token-0123456789abcdefghij";
/** The repository root, from test/helpers (vitest) or dist/test/helpers (npm run bench). */
function root(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error("multihost: cannot find the repository root");
  }
}
const MAIN = path.join(root(), "dist/host/cli/main.js");

export interface HostStatus {
  active_revision: number;
  serving_revision: number;
  serving_since: string | null;
  loading_revision: number | null;
  release_error: { revision: number; code: string; message: string; at: string } | null;
}

export interface HostProcess {
  index: number;
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** A JSON request to the management API with the fleet's token; throws on a non-2xx answer. */
  api<T = Record<string, unknown>>(method: string, route: string, body?: unknown): Promise<T>;
  status(): Promise<HostStatus>;
  stop(): Promise<void>;
}

export interface FleetOptions {
  /** Shared data folder (SQLite mode). Default: a new temporary folder. */
  dataDir?: string;
  /** A database URL (`--database`); each host then gets its own data folder. */
  database?: string;
  /** Extra `sluice serve` arguments of host `i`. */
  args?: (i: number) => string[];
  /** How long a host may take to listen. Default 60 s (the machine may be busy). */
  readyTimeoutMs?: number;
}

export interface Fleet {
  hosts: HostProcess[];
  dataDir: string;
  stop(): Promise<void>;
}

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("SLUICE_")));
}

async function startHost(index: number, dataDir: string, options: FleetOptions, digestKeyFile: string | undefined): Promise<HostProcess> {
  const args = [
    MAIN, "serve", "--port", "0", "--data-dir", dataDir, "--workers", "1", "--log-level", "info",
    ...(options.database !== undefined ? ["--database", options.database] : []),
    ...(digestKeyFile !== undefined ? ["--digest-key-file", digestKeyFile] : []),
    ...(options.args?.(index) ?? []),
  ];
  const child = spawn(process.execPath, args, { env: { ...cleanEnv(), SLUICE_TOKEN: FLEET_TOKEN }, stdio: "pipe" });
  let text = "";
  child.stdout.on("data", (d) => { text += d; });
  child.stderr.on("data", (d) => { text += d; });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill("SIGKILL"); reject(new Error(`host ${index} did not listen within ${options.readyTimeoutMs ?? 60_000} ms: ${text}`)); }, options.readyTimeoutMs ?? 60_000);
    const onData = (): void => {
      const m = /sluice listening on (http:\/\/\S+)/.exec(text);
      if (m) { clearTimeout(timer); child.stdout.off("data", onData); child.off("exit", onExit); resolve(m[1]!); }
    };
    const onExit = (code: number | null): void => { clearTimeout(timer); reject(new Error(`host ${index} exited with ${code} before listening: ${text}`)); };
    child.stdout.on("data", onData);
    child.once("exit", onExit);
  });
  const api = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const res = await fetch(new URL(route, url), {
      method, headers: { authorization: `Bearer ${FLEET_TOKEN}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json = await res.json() as T;
    if (!res.ok) throw new Error(`host ${index}: ${method} ${route} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  return {
    index, url, child, output: () => text, api,
    status: () => api<HostStatus>("GET", "/api/v1/status"),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * Starts `count` hosts: the first alone (it creates and migrates the database), then the
 * others together. Resolves once every one listens.
 * @example const fleet = await startFleet(3); await fleet.hosts[0].api("POST", "/api/v1/releases", { activate: true }); await fleet.stop();
 */
export async function startFleet(count: number, options: FleetOptions = {}): Promise<Fleet> {
  const shared = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "sluice-fleet-"));
  const dataDirOf = (i: number): string => (options.database !== undefined ? mkdtempSync(path.join(tmpdir(), `sluice-host${i}-`)) : shared);
  // Hosts with data folders of their own share the records' digest key, as a fleet must
  // (digests are compared across hosts); on one folder they share its digest.key.
  let digestKeyFile: string | undefined;
  if (options.database !== undefined) {
    digestKeyFile = path.join(shared, "digest.key");
    writeFileSync(digestKeyFile, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
  }
  const hosts: HostProcess[] = [];
  const stop = async (): Promise<void> => { await Promise.all(hosts.map((h) => h.stop())); };
  try {
    hosts.push(await startHost(0, dataDirOf(0), options, digestKeyFile));
    const rest = await Promise.allSettled(Array.from({ length: count - 1 }, (_, i) => startHost(i + 1, dataDirOf(i + 1), options, digestKeyFile)));
    for (const r of rest) if (r.status === "fulfilled") hosts.push(r.value);
    const failed = rest.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  } catch (err) {
    await stop();
    throw err;
  }
  hosts.sort((a, b) => a.index - b.index);
  return { hosts, dataDir: shared, stop };
}

/**
 * How long `revision` took to reach each host: from the activation's `activated_at` (as the
 * database recorded it) to the host's `serving_since`, both on this machine's clock. Waits
 * (up to `timeoutMs`) until every host serves it. Unlike {@link untilAllServe}, the test's
 * own polling of a busy process does not add to it.
 */
export async function switchDelays(hosts: readonly HostProcess[], revision: number, timeoutMs = 5000): Promise<number[]> {
  await untilAllServe(hosts, revision, performance.now(), timeoutMs);
  const { activations } = await hosts[0]!.api<{ activations: { revision: number; activated_at: string }[] }>("GET", "/api/v1/releases");
  const activation = activations[activations.length - 1]!;
  if (activation.revision !== revision) throw new Error(`the latest activation is of revision ${activation.revision}, not ${revision}`);
  return Promise.all(hosts.map(async (h) => Date.parse((await h.status()).serving_since!) - Date.parse(activation.activated_at)));
}

/** Milliseconds from `since` (performance.now()) until every host serves `revision`; throws past `timeoutMs`. */
export async function untilAllServe(hosts: readonly HostProcess[], revision: number, since: number, timeoutMs = 5000): Promise<number> {
  const done = new Set<number>();
  let last = 0;
  const allServe = async (): Promise<boolean> => {
    await Promise.all(hosts.filter((h) => !done.has(h.index)).map(async (h) => {
      if ((await h.status()).serving_revision === revision) { done.add(h.index); last = performance.now() - since; }
    }));
    return done.size === hosts.length;
  };
  if (!(await until(allServe, Math.max(0, timeoutMs - (performance.now() - since))))) {
    const statuses = await Promise.all(hosts.map((h) => h.status()));
    throw new Error(`after ${Math.round(performance.now() - since)} ms not every host serves revision ${revision}: ${JSON.stringify(statuses)}`);
  }
  return last;
}
