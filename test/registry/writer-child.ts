/**
 * One of two processes writing the same registry database at once, for
 * concurrent-writers.test.ts: `node dist/test/registry/writer-child.js <file> <tag> <n> [postgres-url]`
 * (with a URL the registry is in that PostgreSQL database; `<file>` still names the signal files).
 * Waits for `<file>.go`, then publishes `n` releases (each reading the latest revision and
 * awaiting before it writes, the check-then-write a transaction must keep whole) and
 * inserts plugin `shared@1.0.0` with code of its own. Writes `<file>.<tag>.json`.
 */
import { existsSync, writeFileSync } from "node:fs";
import { openSqliteStore } from "../../host/registry/sqlite-store.js";
import { writeWhole } from "../helpers/child.js";
import type { PluginRecord } from "../../host/registry/records.js";

const [file, tag, n, url] = process.argv.slice(2) as [string, string, string, string | undefined];
const { store, close } = url
  ? await import("../../host/registry/postgres-stores.js").then(async ({ openPostgresStores }) => {
    const stores = await openPostgresStores(url, { max: 2 });
    return { store: stores.registry, close: () => stores.close() };
  })
  : (() => { const sqlite = openSqliteStore(file, { busyTimeoutMs: 20_000 }); return { store: sqlite, close: () => sqlite.close() }; })();
writeFileSync(`${file}.ready-${tag}`, "");
while (!existsSync(`${file}.go`)) await new Promise((r) => setTimeout(r, 2));

const revisions: number[] = [];
for (let i = 0; i < Number(n); i++) {
  const release = await store.transaction(async (tx) => {
    const latest = (await tx.listReleases()).at(-1)?.revision ?? 0;
    await new Promise((r) => setImmediate(r));
    const r = await tx.insertRelease({ order_mode: "staged", bindings: [], based_on: latest || null, note: `${tag} ${i}` });
    return r;
  });
  revisions.push(release.revision);
}
const plugin: PluginRecord = { id: "shared", version: "1.0.0", sha256: tag.padEnd(64, "0"), size: 1, manifest: { id: "shared", version: "1.0.0" } as PluginRecord["manifest"], created_at: new Date().toISOString() };
let insert: string;
try { insert = await store.insertPlugin(plugin); } catch (err) { insert = (err as { code?: string }).code ?? String(err); }
await close();
writeWhole(`${file}.${tag}.json`, JSON.stringify({ revisions, insert }));
