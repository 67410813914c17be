/**
 * One damaged record does not take the operations list down: `GET
 * /api/v1/operations` answers every record that opens and names the damaged one under
 * `unreadable` by its id and code, never its content; reading that one alone is a clear
 * RECORD_UNREADABLE naming it.
 */
import Fastify from "fastify";
import { afterAll, expect, it } from "vitest";
import { installErrorHandlers } from "../../host/api/errors.js";
import { recordRoutes } from "../../host/api/routes/records.js";
import { addShapes } from "../../host/api/shapes/components.js";
import { createHost } from "../../host/index.js";
import { operationRecord } from "../helpers/operation-record.js";
import { recordDamager, sqliteEngine } from "../helpers/store-engines.js";

const SECRET = "transfer PIN is 4821";
const records = await sqliteEngine.records!();
const host = createHost({ workers: 1, spareWorkers: 0, records });
const app = Fastify();
installErrorHandlers(app);
addShapes(app);
recordRoutes(app, host);
afterAll(async () => { await app.close(); await host.close(); await records.close(); });

it("lists every readable record and reports the damaged one by id and code only; GET of it is RECORD_UNREADABLE naming it", async () => {
  await records.insert(operationRecord("op-old", { createdAt: 1 }));
  await records.insert(operationRecord("op-damaged", { createdAt: 2, artifacts: [{ note: SECRET }] }));
  await records.insert(operationRecord("op-new", { createdAt: 3, phase: "after", realStatus: "succeeded" }));
  await recordDamager(records)!("op-damaged");

  const list = await app.inject({ url: "/api/v1/operations" });
  expect(list.statusCode).toBe(200);
  expect(list.json()).toEqual({
    items: [await records.get("op-new"), await records.get("op-old")],
    unreadable: [{ operation_id: "op-damaged", code: "RECORD_UNREADABLE" }],
  });
  expect(list.body).not.toContain(SECRET);
  // A filter that leaves the damaged row out reports nothing unreadable.
  expect((await app.inject({ url: "/api/v1/operations?phase=after" })).json()).toEqual({ items: [await records.get("op-new")], unreadable: [] });

  const one = await app.inject({ url: "/api/v1/operations/op-damaged" });
  expect(one.statusCode).toBe(500);
  expect(one.json().error).toMatchObject({ code: "RECORD_UNREADABLE", details: { id: "op-damaged" } });
  expect(one.json().error.message).toContain("op-damaged");
  expect(one.body).not.toContain(SECRET);
});
