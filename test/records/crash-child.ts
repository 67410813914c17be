/**
 * Runs one call with a records store (a SQLite file, or a postgres:// URL) and stops inside
 * it, for crash.test.ts and cross-host.test.ts to SIGKILL:
 * `node dist/test/records/crash-child.js <dir> <scenario> [hostId] [records location]`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHost } from "../../host/index.js";
import { writeWhole } from "../helpers/child.js";
import { answer, bump, call, ctx, DIGEST_SECRET, leaseOption, openRecordsAt, release, request, TOOL_RESULT, type Scenario } from "./scenarios.js";

const [dir, scenario, hostId, location] = process.argv.slice(2) as [string, Scenario, string | undefined, string | undefined];
// Keeps the process alive while a call waits on a promise nothing will settle.
const alive = setInterval(() => {}, 1_000);
const { records, close: closeRecords } = await openRecordsAt(location ?? join(dir, "records.db"));
const host = createHost({ workers: 1, records, digestSecret: DIGEST_SECRET, ...(hostId ? { hostId } : {}), ...leaseOption() });
await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: new Uint8Array(readFileSync(new URL("../../../build/fixtures/contract-hook.wasm", import.meta.url))) });
host.registerHook("pause", () => {
  writeFileSync(join(dir, "paused"), "");
  return new Promise(() => {});
});
host.activate(release(scenario, 1));

// "stream": the upstream sends one chunk, then nothing more (the kill comes while it streams).
const streamed = async () => {
  const stream = host.chatStream(ctx, request, async function* (_request, op) { bump(dir, op.operationId); yield { delta: "partial" }; await new Promise(() => {}); });
  for await (const _chunk of stream) { /* read on */ }
  return stream.result;
};
const r = scenario === "chat"
  ? await host.chat(ctx, request, async (_request, op) => { bump(dir, op.operationId); return answer; })
  : scenario === "stream" ? await streamed() : await host.tool(ctx, call, async (_args, op) => {
    bump(dir, op.operationId);
    if (scenario === "running") await new Promise(() => {});
    return TOOL_RESULT;
  });
writeWhole(join(dir, "result.json"), JSON.stringify({ ok: r.ok, code: r.ok ? null : r.error.code, operationId: r.facts.operationId }));
clearInterval(alive);
await host.close();
await closeRecords();
