/**
 * Sealing at rest (records/sealed.ts) and the stores that use it: what reaches the file or
 * the table is ciphertext bound to its row, under a key derived from the deployment's
 * secret; another key, a changed byte or a ciphertext moved to another row is
 * RECORD_UNREADABLE naming the row, never its content; rows written before sealing are read.
 */
import Database from "better-sqlite3";
import { statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isSluiceError, SluiceError } from "../../host/errors/sluice-error.js";
import { createSealer, ephemeralSealer } from "../../host/records/sealed.js";
import { openSqlitePayloads, openSqliteRecords } from "../../host/records/sqlite-store.js";
import type { OperationStore, PayloadStore } from "../../host/records/store.js";
import type { OperationRecord, StoredResult } from "../../host/records/types.js";
import { openPostgresStores } from "../../host/registry/postgres-stores.js";
import { filesHolding, secretForms, tablesHolding } from "../helpers/at-rest.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { tempDir } from "../registry/fixtures.js";

const SECRET = "transfer PIN is 4821";
const KEY_A = "a".repeat(64);
const KEY_B = "b".repeat(64);
const place = { column: "operation_results.result", id: "op-1" };

const record = (id: string): OperationRecord => ({
  operationId: id, parentOperationId: null, idempotencyKey: id,
  identity: { operation: "tool", beforePoint: "tool.before", afterPoint: "tool.after", ctx: { spaceId: "s" }, target: { instance: "main", spaceId: "s", toolId: "t" }, callId: "c" },
  point: "tool.after", phase: "after", realStatus: "succeeded", revision: 1, resumedRevision: null, resumes: 0, completed: [],
  finalInputRef: null, realResultRef: null, effectiveOutputRef: null, usage: null, providerRequestId: null, attempts: 1, shortCircuitedBy: null,
  // A tool's own report and an error message can quote content: the record is sealed too.
  artifacts: [{ note: SECRET }], outcome: null, error: { code: "HOOK_FAILED", message: `hook said ${SECRET}` }, createdAt: 1_000, updatedAt: 1_000,
});
const RESULT: StoredResult = { real: { text: SECRET }, afterPayload: { view: SECRET }, before: { ran: false, reached: -1, carries: {} } };

async function refusal(p: Promise<unknown>): Promise<SluiceError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(isSluiceError(err, "RECORD_UNREADABLE")).toBe(true);
  const e = err as SluiceError;
  // Nothing of the content in the message, the details or the cause.
  for (const text of [e.message, JSON.stringify(e.details), String(e.cause ?? "")]) for (const form of secretForms(SECRET)) expect(text).not.toContain(form.toString());
  return e;
}

describe("createSealer", () => {
  const sealer = createSealer(KEY_A);

  it("seals to a versioned, key-named text that opens only at its place", () => {
    const text = sealer.seal({ text: SECRET }, place);
    expect(text).toMatch(new RegExp(`^s1:${sealer.keyId}:[A-Za-z0-9+/]+=*$`));
    expect(sealer.keyId).toMatch(/^[0-9a-f]{8}$/);
    expect(secretForms(SECRET).some((f) => Buffer.from(text).includes(f))).toBe(false);
    expect(sealer.open(text, place)).toEqual({ text: SECRET });
  });

  it("uses a fresh nonce every time: the same value seals differently", () => {
    expect(sealer.seal(SECRET, place)).not.toBe(sealer.seal(SECRET, place));
    // Across several refills of the nonce pool, no nonce comes twice and every value opens.
    const texts = Array.from({ length: 2_000 }, (_, i) => sealer.seal(i, place));
    const nonces = texts.map((t) => Buffer.from(t.split(":")[2]!, "base64").subarray(0, 12).toString("hex"));
    expect(new Set(nonces).size).toBe(texts.length);
    expect(texts.map((t) => sealer.open(t, place))).toEqual(texts.map((_, i) => i));
  });

  it("derives the same key from the same secret (a restart reads what it wrote), and another from another", () => {
    expect(createSealer(KEY_A).open(sealer.seal(1, place), place)).toBe(1);
    expect(createSealer(Buffer.from(KEY_A, "utf8")).keyId).toBe(sealer.keyId);
    expect(createSealer(KEY_B).keyId).not.toBe(sealer.keyId);
  });

  it("refuses another key with RECORD_UNREADABLE naming the row and both key ids", async () => {
    const other = createSealer(KEY_B);
    const e = await refusal(Promise.resolve().then(() => other.open(sealer.seal(RESULT, place), place)));
    expect(e.details).toEqual({ column: "operation_results.result", id: "op-1", keyId: sealer.keyId, hostKeyId: other.keyId });
    expect(e.message).toContain("operation_results.result of op-1");
    expect(e.message).toContain("hosts sharing a database must share the key");
  });

  it("refuses a changed byte, a truncated text and a ciphertext moved to another row or column", async () => {
    const text = sealer.seal(RESULT, place);
    const body = Buffer.from(text.slice(`s1:${sealer.keyId}:`.length), "base64");
    body[20] = body[20]! ^ 1;
    const changed = `s1:${sealer.keyId}:${body.toString("base64")}`;
    const reasons = [
      await refusal(Promise.resolve().then(() => sealer.open(changed, place))),
      await refusal(Promise.resolve().then(() => sealer.open(text.slice(0, 20), place))),
      await refusal(Promise.resolve().then(() => sealer.open(text, { ...place, id: "op-2" }))),
      await refusal(Promise.resolve().then(() => sealer.open(text, { ...place, column: "protected_payloads.body" }))),
    ];
    expect(reasons.map((e) => e.details.id)).toEqual(["op-1", "op-1", "op-2", "op-1"]);
  });

  it("reads a value written before sealing (JSON text)", () => {
    expect(sealer.open(JSON.stringify(RESULT), place)).toEqual(RESULT);
    expect(() => sealer.open("not json", place)).toThrow(expect.objectContaining({ code: "RECORD_UNREADABLE" }));
  });

  it("refuses a secret shorter than 16 bytes", () => {
    expect(() => createSealer("short")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(ephemeralSealer().keyId).not.toBe(ephemeralSealer().keyId);
  });
});

/** One persistent engine: open its stores with a key, read its raw columns, change them. */
interface Engine {
  name: string;
  open(key: string): Promise<{ records: OperationStore; payloads: PayloadStore; close(): Promise<void> }>;
  /** Every cell of the engine's tables that holds the secret in any form. */
  holding(): Promise<string[]>;
  /** Runs SQL on the raw database (`?` placeholders). */
  exec(sql: string, ...args: unknown[]): Promise<unknown[]>;
}

function sqlite(): Engine {
  const dir = tempDir("sluice-sealed-");
  const file = path.join(dir, "records.db");
  return {
    name: "SQLite",
    async open(key) {
      const records = openSqliteRecords(file, { key });
      const payloads = openSqlitePayloads(file.replace("records", "payloads"), { key, retentionMs: 60_000 });
      return { records, payloads, close: async () => { await records.close(); await payloads.close(); } };
    },
    async holding() { return filesHolding(dir, SECRET); },
    async exec(sql, ...args) {
      const db = new Database(/protected_payloads/.test(sql) ? file.replace("records", "payloads") : file);
      try { const st = db.prepare(sql); return st.reader ? st.all(...args) : (st.run(...args), []); } finally { db.close(); }
    },
  };
}

function postgres(url: Promise<string>): Engine {
  return {
    name: "PostgreSQL",
    async open(key) {
      const stores = await openPostgresStores(await url, { max: 2, key, payloadRetentionMs: 60_000 });
      return { records: stores.records, payloads: stores.payloads!, close: () => stores.close() };
    },
    async holding() { return (await tablesHolding(await url, SECRET)).holding; },
    async exec(sql, ...args) {
      const pg = (await import("pg")).default;
      const client = new pg.Client({ connectionString: await url });
      await client.connect();
      let i = 0;
      try { return (await client.query(sql.replace(/\?/g, () => `$${++i}`), args)).rows; } finally { await client.end(); }
    },
  };
}

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });

for (const make of [sqlite, () => postgres(testDatabaseUrl("sealed"))]) {
  describe(`sealed stores: ${make === sqlite ? "SQLite" : "PostgreSQL"}`, () => {
    const setUp = async () => {
      const engine = make();
      const a = await engine.open(KEY_A);
      opened.push(a);
      await a.records.insert(record("op-1"));
      await a.records.update("op-1", { updatedAt: 2_000 }, RESULT);
      await a.payloads.put("ref-1", { tool: SECRET });
      return { engine, a };
    };

    it("writes records, real results and payloads as ciphertext, and reads them back", async () => {
      const { engine, a } = await setUp();
      expect(await engine.holding()).toEqual([]);
      const [row] = await engine.exec("SELECT result FROM operation_results WHERE operation_id = ?", "op-1") as { result: string }[];
      expect(row!.result).toMatch(/^s1:[0-9a-f]{8}:/);
      expect(await a.records.get("op-1")).toMatchObject({ artifacts: [{ note: SECRET }], updatedAt: 2_000 });
      expect(await a.records.list()).toHaveLength(1);
      expect(await a.records.result("op-1")).toEqual(RESULT);
      expect(await a.payloads.get("ref-1")).toEqual({ tool: SECRET });
      // The same key again (a restart, another host of the fleet) reads everything.
      await a.close(); opened.splice(0);
      const again = await engine.open(KEY_A);
      opened.push(again);
      expect(await again.records.result("op-1")).toEqual(RESULT);
      expect(await again.payloads.get("ref-1")).toEqual({ tool: SECRET });
    });

    it("another key: RECORD_UNREADABLE naming the row, for the record, the result and the payload", async () => {
      const { engine, a } = await setUp();
      await a.close(); opened.splice(0);
      const b = await engine.open(KEY_B);
      opened.push(b);
      expect((await refusal(b.records.get("op-1"))).details).toMatchObject({ column: "operation_records.record", id: "op-1" });
      expect((await refusal(b.records.result("op-1"))).details).toMatchObject({ column: "operation_results.result", id: "op-1" });
      expect((await refusal(b.payloads.get("ref-1"))).details).toMatchObject({ column: "protected_payloads.body", id: "ref-1" });
    });

    it("a changed ciphertext, or one moved to another row, is RECORD_UNREADABLE", async () => {
      const { engine, a } = await setUp();
      const [row] = await engine.exec("SELECT result FROM operation_results WHERE operation_id = ?", "op-1") as { result: string }[];
      const text = row!.result;
      const flipped = text.slice(0, -6) + (text.at(-6) === "A" ? "B" : "A") + text.slice(-5);
      await engine.exec("UPDATE operation_results SET result = ? WHERE operation_id = ?", flipped, "op-1");
      expect((await refusal(a.records.result("op-1"))).details).toMatchObject({ id: "op-1" });
      // op-2's result row gets op-1's (intact) ciphertext.
      await a.records.insert(record("op-2"));
      await a.records.update("op-2", {}, { ...RESULT, real: "other" });
      await engine.exec("UPDATE operation_results SET result = ? WHERE operation_id = ?", text, "op-2");
      expect((await refusal(a.records.result("op-2"))).details).toMatchObject({ column: "operation_results.result", id: "op-2" });
    });

    it("reads rows written before sealing, and seals a record when it is next written", async () => {
      const { engine, a } = await setUp();
      await engine.exec("UPDATE operation_results SET result = ? WHERE operation_id = ?", JSON.stringify(RESULT), "op-1");
      await engine.exec("UPDATE operation_records SET record = ? WHERE operation_id = ?", JSON.stringify(record("op-1")), "op-1");
      await engine.exec("UPDATE protected_payloads SET body = ? WHERE ref = ?", JSON.stringify({ tool: SECRET }), "ref-1");
      expect(await a.records.result("op-1")).toEqual(RESULT);
      expect(await a.records.get("op-1")).toMatchObject({ artifacts: [{ note: SECRET }] });
      expect(await a.payloads.get("ref-1")).toEqual({ tool: SECRET });
      await a.records.update("op-1", { phase: "finished" });
      const [row] = await engine.exec("SELECT record FROM operation_records WHERE operation_id = ?", "op-1") as { record: string }[];
      expect(row!.record).toMatch(/^s1:/);
    });
  });
}

describe("the default key of a SQLite store", () => {
  it("is digest.key in the database's folder (0600), created once and reused, as a Registry's", async () => {
    const dir = tempDir("sluice-sealed-");
    const file = path.join(dir, "records.db");
    let records = openSqliteRecords(file);
    await records.insert(record("op-1"));
    await records.update("op-1", {}, RESULT);
    await records.close();
    expect(statSync(path.join(dir, "digest.key")).mode & 0o777).toBe(0o600);
    records = openSqliteRecords(file);
    expect(await records.result("op-1")).toEqual(RESULT);
    await records.close();
    expect(filesHolding(dir, SECRET)).toEqual([]);
  });
});
