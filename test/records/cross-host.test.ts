/**
 * Operations across hosts sharing one records database (issue 18), with real processes on
 * one SQLite file: an operation cut off on host A is resumed by exactly one of two other
 * hosts, the tool having run once; recovery on start-up never touches a live peer's
 * running operation, and takes it once that peer is gone.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, openSqliteRecords } from "../../host/index.js";
import { filesAppear, runCompiled, type Child } from "../helpers/child.js";
import { calls, DIGEST_SECRET, TOOL_RESULT } from "./scenarios.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => { for (const f of cleanup.splice(0).reverse()) await f(); });

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sluice-hosts-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function child(script: string, args: string[]): Child {
  const c = runCompiled(script, args);
  cleanup.push(() => { if (c.process.exitCode === null) c.process.kill("SIGKILL"); });
  return c;
}

async function killed(c: Child): Promise<void> {
  c.process.kill("SIGKILL");
  await c.exited;
}

const json = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), "utf8")) as { ok: boolean; code: string | null; output: unknown };

describe("operations across hosts on one records database", () => {
  it("an operation cut off on host A between the tool's success and its after hooks is resumed by exactly one of two hosts, the tool having run once", async () => {
    const dir = tempDir();
    const a = child("test/records/crash-child.js", [dir, "tool", "host-a"]);
    await filesAppear(dir, ["paused"], [a]);
    await killed(a);
    const operationId = readFileSync(join(dir, "op-id"), "utf8");

    const resumers = ["host-b", "host-c"].map((id) => child("test/records/resume-child.js", [dir, id, operationId]));
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
    const records = openSqliteRecords(join(dir, "records.db"));
    cleanup.push(() => records.close());
    expect(await records.get(operationId)).toMatchObject({ phase: "finished", outcome: "succeeded", resumes: 1, owner: null });
  }, 120_000);

  it("start-up recovery on host B leaves host A's running operation alone while A lives, and marks it unknown once A is killed", async () => {
    const dir = tempDir();
    const a = child("test/records/crash-child.js", [dir, "running", "host-a"]);
    // "calls" is written inside the tool: the record says running from before that.
    await filesAppear(dir, ["calls"], [a]);
    const operationId = readFileSync(join(dir, "op-id"), "utf8");
    const records = openSqliteRecords(join(dir, "records.db"));
    const b = createHost({ workers: 1, records, digestSecret: DIGEST_SECRET, hostId: "host-b" });
    cleanup.push(async () => { await b.close(); await records.close(); });

    expect(await b.recover()).toEqual([]);
    expect(await records.get(operationId)).toMatchObject({ phase: "operation", realStatus: "running", owner: "host-a" });

    await killed(a);
    expect(await b.recover()).toEqual([operationId]);
    expect(await records.get(operationId)).toMatchObject({ realStatus: "unknown", owner: null });
    expect(calls(dir)).toBe(1);
  }, 120_000);
});
