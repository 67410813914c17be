/**
 * Records and resume end to end: a real host process is SIGKILLed between the real call and the end
 * of its after chain; a new host on the same database resumes it. The tool's (or model's)
 * own counter must read 1, and the output must be what an uninterrupted run gives.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDigester, createHost, openSqliteRecords, type Host, type OperationStore } from "../../host/index.js";
import { fixture, repoRoot } from "../helpers/fixtures.js";
import { answer, call, calls, ctx, DIGEST_SECRET, MARKER, release, request, TOOL_RESULT, type Scenario } from "./scenarios.js";
import { until } from "../helpers/until.js";

const open: { host: Host; records: OperationStore; dir: string }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) { await o.host.close(); o.records.close(); rmSync(o.dir, { recursive: true, force: true }); }
});

/** Starts the child and SIGKILLs it once `file` appears in its directory (or lets it finish when `file` is null). */
async function runChild(scenario: Scenario, file: "paused" | "calls" | null): Promise<{ dir: string; operationId: string }> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-records-"));
  const child = spawn(process.execPath, [join(repoRoot, "dist/test/records/crash-child.js"), dir, scenario], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += String(d); });
  const exited = once(child, "exit");
  if (file) {
    await until(() => existsSync(join(dir, file)) || child.exitCode !== null, 20_000);
    expect(existsSync(join(dir, file)), `child never wrote ${file}: ${stderr}`).toBe(true);
    child.kill("SIGKILL");
    const [, signal] = await exited;
    expect(signal).toBe("SIGKILL");
  } else {
    const [code] = await exited;
    expect(code, stderr).toBe(0);
  }
  return { dir, operationId: readFileSync(join(dir, "op-id"), "utf8") };
}

/** The host after the restart: same database, same plugin, "pause" no longer pauses. */
async function restart(dir: string, scenario: Scenario, revision: 1 | 2) {
  const records = openSqliteRecords(join(dir, "records.db"));
  const host = createHost({ workers: 1, records, digestSecret: DIGEST_SECRET });
  open.push({ host, records, dir });
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
  host.registerHook("pause", () => ({ kind: "continue" }));
  host.activate(release(scenario, revision));
  return { host, records, recovered: await host.recover() };
}

/** No byte of the database files (main and WAL) holds the marker placed in the input. */
function expectNoMarkerOnDisk(dir: string): void {
  for (const f of readdirSync(dir).filter((f) => f.startsWith("records.db"))) {
    expect(readFileSync(join(dir, f)).includes(Buffer.from(MARKER)), f).toBe(false);
  }
}

describe("crash recovery (SIGKILL between the real call and the after chain)", () => {
  it("resumes a tool call: the tool ran once, and the output is what an uninterrupted run gives", async () => {
    const { dir, operationId } = await runChild("tool", "paused");
    const { host, records, recovered } = await restart(dir, "tool", 1);
    expect(recovered).not.toContain(operationId);
    expect(await records.get(operationId)).toMatchObject({ phase: "after", realStatus: "succeeded", revision: 1, realResultRef: createDigester(DIGEST_SECRET).of(TOOL_RESULT) });

    const resumed = await host.resume(operationId);
    const fresh = await host.tool(ctx, call, async () => TOOL_RESULT);
    expect(calls(dir)).toBe(1);
    expect(resumed.ok && fresh.ok).toBe(true);
    expect(resumed.ok && resumed.output).toEqual(fresh.ok && fresh.output);
    expect(resumed.ok && resumed.output).toEqual({ status: "succeeded", view: `${TOOL_RESULT}-x`, callId: call.callId });
    expect(resumed.facts).toMatchObject({ operationId, idempotencyKey: operationId, realStatus: "succeeded", called: true, revision: 1, resumedRevision: 1, realResult: TOOL_RESULT });
    expect(await records.get(operationId)).toMatchObject({ phase: "finished", outcome: "succeeded", resumes: 1, effectiveOutputRef: createDigester(DIGEST_SECRET).of(resumed.ok && resumed.output) });

    const again = await host.resume(operationId);
    expect(!again.ok && again.error.code).toBe("OPERATION_NOT_RESUMABLE");
    expect(calls(dir)).toBe(1);

    const audit = await records.audit({ operationId });
    expect(audit.map((a) => `${a.point}:${a.bindingId}`)).toEqual(["tool.before:audit-before", "tool.after:append-x", "tool.after:pause"]);
    expect(JSON.stringify([audit, await records.audit({ operationId: fresh.facts.operationId }), await records.list()])).not.toContain(MARKER);
    records.close();
    expectNoMarkerOnDisk(dir);
  });

  it("resumes a model call without requesting it again: usage and provider request id stay with the real result", async () => {
    const { dir, operationId } = await runChild("chat", "paused");
    const { host, records } = await restart(dir, "chat", 1);
    expect(await records.get(operationId)).toMatchObject({ phase: "after", realStatus: "succeeded", usage: answer.usage, providerRequestId: "req-42" });

    const resumed = await host.resume(operationId);
    const fresh = await host.chat(ctx, request, async () => answer);
    expect(calls(dir)).toBe(1);
    expect(resumed.ok && resumed.output).toEqual(fresh.ok && fresh.output);
    expect(resumed.ok && resumed.output).toMatchObject({ content: "the answer-x", usage: answer.usage, provider_request_id: "req-42" });
    expect(resumed.facts.realResult).toEqual(answer);
    expect(JSON.stringify(await records.audit())).not.toContain(MARKER);
    records.close();
    expectNoMarkerOnDisk(dir);
  });

  it("resumes an after hook that failed closed on the release published to fix it, and records both revisions", async () => {
    const { dir, operationId } = await runChild("fail", null);
    expect(JSON.parse(readFileSync(join(dir, "result.json"), "utf8"))).toMatchObject({ ok: false, code: "HOOK_FAILED", operationId });
    const { host, records } = await restart(dir, "fail", 2);
    expect(await records.get(operationId)).toMatchObject({ phase: "after", realStatus: "succeeded", outcome: "failed", error: { code: "HOOK_FAILED" }, revision: 1 });

    const resumed = await host.resume(operationId);
    const fresh = await host.tool(ctx, call, async () => TOOL_RESULT);
    expect(calls(dir)).toBe(1);
    expect(resumed.ok && resumed.output).toEqual(fresh.ok && fresh.output);
    expect(resumed.facts).toMatchObject({ revision: 1, resumedRevision: 2 });
    expect(await records.get(operationId)).toMatchObject({ phase: "finished", outcome: "succeeded", revision: 1, resumedRevision: 2, error: null });
    const broken = await records.audit({ operationId, bindingId: "broken" });
    expect(broken).toMatchObject([{ outcome: "failed", errorCode: "GUEST_ABORTED", revision: 1 }]);
  });

  it("an operation killed while its real call ran comes back unknown and is never resumed", async () => {
    const { dir, operationId } = await runChild("running", "calls");
    const { host, records, recovered } = await restart(dir, "running", 1);
    expect(recovered).toEqual([operationId]);
    expect(await records.get(operationId)).toMatchObject({ phase: "operation", realStatus: "unknown", finalInputRef: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const r = await host.resume(operationId);
    expect(!r.ok && r.error.code).toBe("OPERATION_NOT_RESUMABLE");
    expect(!r.ok && r.error.message).toContain(operationId);
    expect(r.facts.realStatus).toBe("unknown");
    expect(calls(dir)).toBe(1);
  });

  it("a streamed model call killed while its upstream streamed comes back unknown and is never resumed", async () => {
    const { dir, operationId } = await runChild("stream", "calls");
    const { host, records, recovered } = await restart(dir, "stream", 1);
    expect(recovered).toEqual([operationId]);
    expect(await records.get(operationId)).toMatchObject({ phase: "operation", realStatus: "unknown", identity: { operation: "chat" }, completed: [{ point: "model.chat.before", bindingId: "audit-before" }] });
    expect((await records.audit({ operationId })).map((a) => a.bindingId)).toEqual(["audit-before"]);
    const r = await host.resume(operationId);
    expect(!r.ok && r.error.code).toBe("OPERATION_NOT_RESUMABLE");
    expect(calls(dir)).toBe(1);
    expectNoMarkerOnDisk(dir);
  });
});
