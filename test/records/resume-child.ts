/**
 * A second host on the crashed child's records file, resuming one operation:
 * `node dist/test/records/resume-child.js <dir> <hostId> <operationId> [records location]`. It starts resuming
 * when `<dir>/go` exists; its after hook "pause" writes `<dir>/resuming-<hostId>` and holds
 * until `<dir>/finish` exists, so a rival resumer arrives while this one still runs.
 * Writes `<dir>/resumed-<hostId>.json` with the outcome.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHost } from "../../host/index.js";
import { writeWhole } from "../helpers/child.js";
import { until } from "../helpers/until.js";
import { DIGEST_SECRET, leaseOption, openRecordsAt, release } from "./scenarios.js";

const [dir, hostId, operationId, location] = process.argv.slice(2) as [string, string, string, string | undefined];
/** Waits for the test's signal file; the test's own timeout ends a child whose signal never comes. */
const appears = (file: string): Promise<boolean> => until(() => existsSync(join(dir, file)), 120_000);
const { records, close: closeRecords } = await openRecordsAt(location ?? join(dir, "records.db"));
const host = createHost({ workers: 1, records, digestSecret: DIGEST_SECRET, hostId, ...leaseOption() });
await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: new Uint8Array(readFileSync(new URL("../../../build/fixtures/contract-hook.wasm", import.meta.url))) });
host.registerHook("pause", async () => {
  writeFileSync(join(dir, `resuming-${hostId}`), "");
  await appears("finish");
  return { kind: "continue" };
});
host.activate(release("tool", 1));
writeFileSync(join(dir, `ready-${hostId}`), "");
await appears("go");
const r = await host.resume(operationId);
writeWhole(join(dir, `resumed-${hostId}.json`), JSON.stringify({ ok: r.ok, code: r.ok ? null : r.error.code, output: r.ok ? r.output : null }));
await host.close();
await closeRecords();
