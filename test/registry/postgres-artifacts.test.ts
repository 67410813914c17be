/** Plugin code in the shared database: what one host stores, any host reads, checked against its name. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { openPostgresStores, type PostgresStores } from "../../host/registry/postgres-stores.js";
import { fixture } from "../helpers/fixtures.js";
import { testDatabaseUrl } from "../helpers/postgres.js";

let a: PostgresStores;
let b: PostgresStores;
beforeAll(async () => {
  const url = await testDatabaseUrl("artifacts");
  a = await openPostgresStores(url);
  b = await openPostgresStores(url);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

describe("artifacts in PostgreSQL", () => {
  it("are stored by sha256 on one host and read back byte for byte on another that never saw them", async () => {
    const wasm = fixture("continue");
    const sha = await a.artifacts.put(wasm);
    expect(sha).toBe(createHash("sha256").update(wasm).digest("hex"));
    expect(await b.artifacts.has(sha)).toBe(true);
    expect(Buffer.from(await b.artifacts.get(sha)).equals(Buffer.from(wasm))).toBe(true);
    // The same bytes twice land on the same row.
    expect(await b.artifacts.put(wasm)).toBe(sha);
    const { rows } = await a.db.query<{ n: string }>("SELECT count(*) AS n FROM artifacts WHERE sha256 = $1", [sha]);
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it("refuses to serve bytes that no longer hash to their name (STORE_UNAVAILABLE naming the artifact)", async () => {
    const sha = await a.artifacts.put(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    await a.db.query("UPDATE artifacts SET bytes = '\\x00' WHERE sha256 = $1", [sha]);
    const err = await b.artifacts.get(sha).catch((e: unknown) => e);
    expect(isSluiceError(err, "STORE_UNAVAILABLE")).toBe(true);
    expect((err as Error).message).toContain(sha);
    expect((err as Error).message).toContain("corrupt");
  });

  it("refuses a name that is not a sha256 digest with ID_INVALID, before any query", async () => {
    const err = await a.artifacts.get("../../etc/passwd").catch((e: unknown) => e);
    expect(isSluiceError(err, "ID_INVALID")).toBe(true);
  });

  it("removes an unreferenced artifact, and keeps one a plugin record refers to", async () => {
    const lone = await a.artifacts.put(new Uint8Array([1, 2, 3]));
    await b.artifacts.remove(lone);
    expect(await a.artifacts.has(lone)).toBe(false);
    const used = await a.artifacts.put(new Uint8Array([4, 5, 6]));
    await a.registry.insertPlugin({ id: "p", version: "1.0.0", sha256: used, size: 3, manifest: { id: "p", version: "1.0.0" } as never, created_at: new Date().toISOString() });
    await b.artifacts.remove(used);
    expect(await a.artifacts.has(used)).toBe(true);
  });
});
