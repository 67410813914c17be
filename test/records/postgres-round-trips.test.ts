/**
 * Records on PostgreSQL: each phase boundary is one round trip, not a transaction of four
 * to six statements (BEGIN, SELECT … FOR UPDATE, UPDATE, the result, COMMIT), each a round
 * trip to the database, which cost 3.6 ms per boundary call.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openPostgresStores, type PostgresStores } from "../../host/registry/postgres-stores.js";
import { postgresRecords } from "../../host/records/postgres-store.js";
import { ephemeralSealer } from "../../host/records/sealed.js";
import type { PostgresEngine } from "../../host/storage/postgres.js";
import type { OperationRecord } from "../../host/index.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { operationRecord, STORED_RESULT } from "../helpers/operation-record.js";

const opened: PostgresStores[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });

/** The engine with every statement sent through it counted (a transaction's statements too). */
function counted(db: PostgresEngine): { db: PostgresEngine; statements: string[]; names: (string | undefined)[] } {
  const statements: string[] = [];
  const names: (string | undefined)[] = [];
  const wrapped: PostgresEngine = Object.assign(Object.create(db) as PostgresEngine, {
    query: ((text: string, values?: unknown[], name?: string) => { statements.push(text); names.push(name); return db.query(text, values as never, name); }) as PostgresEngine["query"],
    transaction: ((fn, isolation) => db.transaction((sql) => {
      statements.push("BEGIN");
      return fn({ query: ((text: string, values?: unknown[]) => { statements.push(text); return sql.query(text, values as never); }) as typeof sql.query }).finally(() => statements.push("COMMIT"));
    }, isolation)) as PostgresEngine["transaction"],
  });
  return { db: wrapped, statements, names };
}

const record = operationRecord;
const RESULT = STORED_RESULT;

describe("records on PostgreSQL", () => {
  it("writes each phase boundary in one statement: running, the real result, the ending", async () => {
    const stores = await openPostgresStores(await testDatabaseUrl("round-trips"), { max: 2 });
    opened.push(stores);
    const { db, statements } = counted(stores.db);
    const s = postgresRecords(db);
    await s.insert(record("op-rt"));
    expect(statements).toHaveLength(1);
    statements.length = 0;
    await s.update("op-rt", { phase: "operation", realStatus: "running", finalInputRef: "in", updatedAt: 2 });
    expect(statements).toHaveLength(1);
    statements.length = 0;
    await s.update("op-rt", { phase: "after", realStatus: "succeeded", realResultRef: "r", updatedAt: 3 }, RESULT);
    expect(statements).toHaveLength(1);
    expect(await s.result("op-rt")).toEqual(RESULT);
    statements.length = 0;
    await s.update("op-rt", { phase: "finished", owner: null, outcome: "succeeded", updatedAt: 4 });
    expect(statements).toHaveLength(1);
    expect(await s.result("op-rt")).toBeUndefined();
    expect(await s.get("op-rt")).toMatchObject({ phase: "finished", realStatus: "succeeded", realResultRef: "r", finalInputRef: "in", outcome: "succeeded", updatedAt: 4 });
    await s.close();
  });

  it("commits an operation's writes without waiting for the WAL flush by default (NORMAL), and with the server's own setting under FULL", async () => {
    const stores = await openPostgresStores(await testDatabaseUrl("round-trips"), { max: 2 });
    opened.push(stores);
    const sealer = ephemeralSealer();
    const asynchronous = /set_config\('synchronous_commit', 'off', true\)/;
    for (const synchronous of ["NORMAL", "FULL", undefined] as const) {
      const { db, statements } = counted(stores.db);
      const s = postgresRecords(db, synchronous ? { synchronous, sealer } : { sealer });
      const id = `op-sync-${synchronous ?? "default"}`;
      await s.insert(record(id));
      await s.update(id, { phase: "finished", owner: null, outcome: "succeeded", updatedAt: 2 });
      expect(statements).toHaveLength(2);
      for (const text of statements) expect(asynchronous.test(text)).toBe(synchronous !== "FULL");
      // Committed either way: another connection of the pool reads it.
      expect(await postgresRecords(stores.db, { sealer }).get(id)).toMatchObject({ phase: "finished", outcome: "succeeded" });
      await s.close();
    }
    expect(() => postgresRecords(stores.db, { synchronous: "OFF" as never })).toThrow(/synchronous must be/);
  });

  it("sends an operation's writes as prepared statements, one name per text, so the server plans each once per connection", async () => {
    const stores = await openPostgresStores(await testDatabaseUrl("round-trips"), { max: 2 });
    opened.push(stores);
    const { db, statements, names } = counted(stores.db);
    const s = postgresRecords(db);
    const audit = (id: string, bindingId: string) => ({ operationId: id, bindingId, hookRef: "p@1.0.0", codeSha256: "ab".repeat(32), point: "tool.before" as const, phase: "before", revision: 1, outcome: "continue", inputDigest: "1".repeat(64), outputDigest: "1".repeat(64), patchDigest: null, durationMs: 0.5, fuel: 10, errorCode: null, at: 1 });
    for (const id of ["op-p1", "op-p2"]) {
      await s.insert(record(id), [audit(id, "b1")]);
      await s.update(id, { phase: "finished", owner: null, updatedAt: 2 }, undefined, [audit(id, "b2"), audit(id, "b3")]);
    }
    expect(names.every((n) => typeof n === "string")).toBe(true);
    // One text per name: the same write shape reuses its statement.
    const textOf = new Map<string, string>();
    names.forEach((n, i) => { expect(textOf.get(n!) ?? statements[i]).toBe(statements[i]); textOf.set(n!, statements[i]!); });
    expect(textOf.size).toBe(2);
    expect((await s.audit({ operationId: "op-p2" })).map((a) => a.bindingId)).toEqual(["b1", "b2", "b3"]);
    await s.close();
  });

  it("applies concurrent updates of one operation in turn: none is lost", async () => {
    const stores = await openPostgresStores(await testDatabaseUrl("round-trips"), { max: 4 });
    opened.push(stores);
    const s = postgresRecords(stores.db);
    await s.insert(record("op-race"));
    // Each update sets a key of its own; a read-modify-write without the row lock would drop some.
    await Promise.all(Array.from({ length: 8 }, (_, i) => s.update("op-race", { completed: [], [`k${i}`]: i } as Partial<OperationRecord>)));
    const got = (await s.get("op-race")) as unknown as Record<string, unknown>;
    for (let i = 0; i < 8; i++) expect(got[`k${i}`]).toBe(i);
    await s.close();
  });
});
