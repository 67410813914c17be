/**
 * Operations across hosts sharing one records database, with real processes on
 * one SQLite file and on one PostgreSQL database: an operation cut off on host A is resumed
 * by exactly one of two other hosts, the tool having run once; recovery on start-up never
 * touches a live peer's running operation, and takes it once that peer is gone.
 * On PostgreSQL a peer is gone when its lease ends (the hosts here take 1 s leases); on
 * SQLite, also when its process is dead.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost } from "../../host/index.js";
import { filesAppear, runCompiled, type Child } from "../helpers/child.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { calls, DIGEST_SECRET, openRecordsAt, TOOL_RESULT } from "./scenarios.js";
import { until } from "../helpers/until.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => { for (const f of cleanup.splice(0).reverse()) await f(); });

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sluice-hosts-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const LEASE_MS = 1_000;
function child(script: string, args: string[]): Child {
  const c = runCompiled(script, args, { SLUICE_TEST_LEASE_MS: String(LEASE_MS) });
  cleanup.push(() => { if (c.process.exitCode === null) c.process.kill("SIGKILL"); });
  return c;
}

async function killed(c: Child): Promise<void> {
  c.process.kill("SIGKILL");
  await c.exited;
}

const json = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), "utf8")) as { ok: boolean; code: string | null; output: unknown };

const ENGINES = [
  { name: "SQLite", location: async (dir: string) => join(dir, "records.db"), leaseWait: 0 },
  // Only the lease tells a PostgreSQL host that a peer is gone: wait it out after the kill.
  { name: "PostgreSQL", location: (_dir: string) => testDatabaseUrl("cross-host"), leaseWait: LEASE_MS + 500 },
];

describe.each(ENGINES)("operations across hosts on one records database ($name)", ({ location, leaseWait }) => {
  it("an operation cut off on host A between the tool's success and its after hooks is resumed by exactly one of two hosts, the tool having run once", async () => {
    const dir = tempDir();
    const at = await location(dir);
    const a = child("test/records/crash-child.js", [dir, "tool", "host-a", at]);
    await filesAppear(dir, ["paused"], [a]);
    await killed(a);
    await new Promise((r) => setTimeout(r, leaseWait));
    const operationId = readFileSync(join(dir, "op-id"), "utf8");

    const resumers = ["host-b", "host-c"].map((id) => child("test/records/resume-child.js", [dir, id, operationId, at]));
    await filesAppear(dir, ["ready-host-b", "ready-host-c"], resumers);
    writeFileSync(join(dir, "go"), "");
    // The winner holds in its after hook until "finish": the loser arrives while it runs.
    const winner = await Promise.race(["host-b", "host-c"].map((id) => filesAppear(dir, [`resuming-${id}`], resumers).then(() => id)));
    const loser = winner === "host-b" ? "host-c" : "host-b";
    await filesAppear(dir, [`resumed-${loser}.json`], resumers);
    expect(json(dir, `resumed-${loser}.json`)).toMatchObject({ ok: false, code: "OPERATION_BUSY" });

    writeFileSync(join(dir, "finish"), "");
    await filesAppear(dir, [`resumed-${winner}.json`], resumers);
    expect(json(dir, `resumed-${winner}.json`)).toMatchObject({ ok: true, output: { status: "succeeded", view: `${TOOL_RESULT}-x` } });
    expect(calls(dir)).toBe(1);
    await Promise.all(resumers.map((r) => r.exited));
    const { records, close } = await openRecordsAt(at);
    cleanup.push(close);
    expect(await records.get(operationId)).toMatchObject({ phase: "finished", outcome: "succeeded", resumes: 1, owner: null });
  }, 120_000);

  it("start-up recovery on host B leaves host A's running operation alone while A lives, and marks it unknown once A is killed", async () => {
    const dir = tempDir();
    const at = await location(dir);
    const a = child("test/records/crash-child.js", [dir, "running", "host-a", at]);
    // "calls" is written inside the tool: the record says running from before that.
    await filesAppear(dir, ["calls"], [a]);
    const operationId = readFileSync(join(dir, "op-id"), "utf8");
    const { records, close } = await openRecordsAt(at);
    const b = createHost({ workers: 1, records, digestSecret: DIGEST_SECRET, hostId: "host-b", operationLeaseMs: LEASE_MS });
    cleanup.push(async () => { await b.close(); await close(); });

    // Longer than a lease: host A renews its own while it lives.
    await new Promise((r) => setTimeout(r, leaseWait));
    expect(await b.recover()).toEqual([]);
    expect(await records.get(operationId)).toMatchObject({ phase: "operation", realStatus: "running", owner: "host-a" });

    await killed(a);
    let recovered: string[] = [];
    await until(async () => (recovered = await b.recover()).length > 0, leaseWait + 15_000);
    expect(recovered).toEqual([operationId]);
    expect(await records.get(operationId)).toMatchObject({ realStatus: "unknown", owner: null });
    expect(calls(dir)).toBe(1);
  }, 120_000);
});
