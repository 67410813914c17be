/**
 * GET /api/v1/trends and GET /api/v1/usage: viewer routes whose figures are the audit
 * rows' and the records' own, the same for every role; bad ranges refused with
 * REQUEST_INVALID naming the parameter. The stores' side is in the records contract suite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROLES, type ApiRole } from "../../host/keys/api-roles.js";
import type { AuditRecord } from "../../host/records/types.js";
import { operationRecord } from "../helpers/operation-record.js";
import { roleServer, type RoleServer } from "../helpers/role-server.js";

let server: RoleServer;
let app: RoleServer["app"];
let tokenOf: RoleServer["tokenOf"];
let keyA = "";

const row = (operationId: string, bindingId: string, at: number, durationMs: number, fuel: number | null, errorCode: string | null = null): AuditRecord => ({
  operationId, bindingId, hookRef: "p@1.0.0", codeSha256: "ab".repeat(32), point: "model.chat.before", phase: "before", revision: 1, outcome: errorCode ? "failed" : "continue",
  inputDigest: "1".repeat(64), outputDigest: "1".repeat(64), patchDigest: null, durationMs, fuel, errorCode, at,
});
const get = (url: string, role: ApiRole | null = "viewer") => app.inject({ method: "GET", url, headers: role ? { authorization: `Bearer ${tokenOf[role]}` } : {} });

beforeAll(async () => {
  server = await roleServer("trends");
  ({ app, tokenOf } = server);
  const { keys, registry } = server;
  keyA = (await keys.create({ spaceId: "team-a", name: "ci" })).record.id;
  await keys.create({ spaceId: "team-b", name: "idle" });
  const store = registry.host.records!;
  const op = (id: string, spaceId: string, actorId: string | undefined, createdAt: number, over = {}) =>
    operationRecord(id, { createdAt, phase: "finished", identity: { ...operationRecord(id).identity, ctx: { spaceId, ...(actorId ? { actorId } : {}) } }, ...over });
  await store.insert(op("o1", "team-a", keyA, 10_000, { usage: { input_tokens: 7, output_tokens: 2 } }), [row("o1", "guard", 10_000, 2, 50), row("o1", "meter", 10_001, 1, null)]);
  await store.insert(op("o2", "team-a", keyA, 10_500, { error: { code: "HOOK_REJECTED", message: "refused" } }), [row("o2", "guard", 10_500, 4, 70, "HOOK_REJECTED")]);
  await store.insert(op("o3", "team-a", undefined, 11_500), [row("o3", "guard", 11_500, 3, 60)]);
  await store.insert(op("o4", "team-a", keyA, 99_000), [row("o4", "guard", 99_000, 100, 1)]);
});
afterAll(async () => { await server?.close(); });

describe("GET /api/v1/trends", () => {
  it("answers every role the same exact figures per binding and bucket, from the audit rows of the range", async () => {
    const answers = [];
    for (const role of API_ROLES) {
      const res = await get("/api/v1/trends?from=10000&to=12000&buckets=2", role);
      expect(res.statusCode).toBe(200);
      answers.push(res.json());
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    const t = answers[0];
    expect(t).toMatchObject({ from: 10_000, to: 12_000, bucket_ms: 1_000, starts: [10_000, 11_000], rows: 4, complete: true });
    expect(t.bindings.map((b: { binding: string }) => b.binding)).toEqual(["guard", "meter"]);
    expect(t.bindings[0].buckets).toEqual([
      { calls: 2, errors: 1, p50_ms: 2, p99_ms: 4, fuel_p50: 50, fuel_p99: 70 },
      { calls: 1, errors: 0, p50_ms: 3, p99_ms: 3, fuel_p50: 60, fuel_p99: 60 },
    ]);
    expect(t.bindings[0].total).toEqual({ calls: 3, errors: 1, p50_ms: 3, p99_ms: 4, fuel_p50: 60, fuel_p99: 70 });
    expect(t.bindings[1].total).toEqual({ calls: 1, errors: 0, p50_ms: 1, p99_ms: 1, fuel_p50: null, fuel_p99: null });
    expect((await get("/api/v1/trends?from=10000&to=12000&binding=meter")).json().bindings.map((b: { binding: string }) => b.binding)).toEqual(["meter"]);
  });

  it("needs a token, and refuses a range that ends before it starts or a bucket count out of bounds, naming the parameter", async () => {
    expect((await get("/api/v1/trends", null)).statusCode).toBe(401);
    const backwards = await get("/api/v1/trends?from=2000&to=1000");
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().error).toMatchObject({ code: "REQUEST_INVALID" });
    expect(backwards.json().error.message).toContain("from must be before to");
    for (const n of ["0", "501", "two"]) {
      const res = await get(`/api/v1/trends?buckets=${n}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toContain("buckets must be an integer from 1 to 500");
    }
  });
});

describe("GET /api/v1/hook-figures", () => {
  it("gives each hook's runs, failures and nearest-rank run time and fuel over the range, the same figures as the trends' totals", async () => {
    const res = await get("/api/v1/hook-figures?from=10000&to=12000");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      from: 10_000, to: 12_000, rows: 4, complete: true,
      hooks: [
        { point: "model.chat.before", binding: "guard", hook_ref: "p@1.0.0", runs: 3, failed: 1, p50_ms: 3, p99_ms: 4, fuel_p50: 60, fuel_p99: 70, fuel_runs: 3 },
        { point: "model.chat.before", binding: "meter", hook_ref: "p@1.0.0", runs: 1, failed: 0, p50_ms: 1, p99_ms: 1, fuel_p50: null, fuel_p99: null, fuel_runs: 0 },
      ],
    });
  });
});

describe("GET /api/v1/usage", () => {
  it("answers every role the operations, errors and tokens per space and per gateway key in the range, idle keys with zeros", async () => {
    for (const role of API_ROLES) {
      const res = await get("/api/v1/usage?from=10000&to=12000", role);
      expect(res.statusCode).toBe(200);
      const u = res.json();
      expect(u).toMatchObject({ operations: 3, complete: true, unreadable: 0 });
      expect(u.spaces).toEqual([{ space: "team-a", calls: 3, errors: 1, input_tokens: 7, output_tokens: 2 }]);
      expect(u.keys.map((k: Record<string, unknown>) => [k.name, k.space, k.calls, k.errors, k.input_tokens, k.output_tokens, k.revoked])).toEqual([
        ["ci", "team-a", 2, 1, 7, 2, false],
        ["idle", "team-b", 0, 0, 0, 0, false],
      ]);
    }
    expect((await get("/api/v1/usage")).json().operations).toBe(4);
    expect((await get("/api/v1/usage", null)).statusCode).toBe(401);
    expect((await get("/api/v1/usage?from=yesterday")).json().error.code).toBe("REQUEST_INVALID");
  });
});
