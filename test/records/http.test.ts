/** The records routes, mounted on a bare Fastify app with the API's error handler. */
import Fastify from "fastify";
import { afterAll, expect, it } from "vitest";
import { installErrorHandlers } from "../../host/api/errors.js";
import { createHost, createMemoryRecords } from "../../host/index.js";
import { recordRoutes } from "../../host/api/routes/records.js";
import { addShapes } from "../../host/api/shapes/components.js";
import { call, ctx, TOOL_RESULT } from "./scenarios.js";

const host = createHost({ workers: 1, records: createMemoryRecords() });
afterAll(() => host.close());

it("serves operation records, audit queries and resume, with catalogue error codes", async () => {
  let fail = true;
  host.registerHook("throws", () => { if (fail) throw new Error("broken"); return { kind: "continue" }; });
  host.activate({ revision: 1, bindings: [{ id: "t", hookRef: "throws", point: "tool.after" }] });
  const r = await host.tool(ctx, call, async () => TOOL_RESULT);
  const id = r.facts.operationId;
  const app = Fastify();
  installErrorHandlers(app);
  addShapes(app);
  recordRoutes(app, host);

  const list = await app.inject({ url: "/api/v1/operations?phase=after" });
  expect(list.json().items.map((o: { operationId: string }) => o.operationId)).toEqual([id]);
  expect((await app.inject({ url: `/api/v1/operations/${id}` })).json().operation).toMatchObject({ phase: "after", realStatus: "succeeded" });
  expect((await app.inject({ url: "/api/v1/operations/nope" })).json().error.code).toBe("OPERATION_NOT_FOUND");
  const audit = await app.inject({ url: `/api/v1/audit?operation_id=${id}&from=${new Date(Date.now() - 60_000).toISOString()}` });
  expect(audit.json().items).toMatchObject([{ bindingId: "t", errorCode: "HOOK_EXCEPTION" }]);
  expect((await app.inject({ url: "/api/v1/audit?from=yesterday" })).json().error.code).toBe("REQUEST_INVALID");

  fail = false;
  const resumed = await app.inject({ method: "POST", url: `/api/v1/operations/${id}/resume` });
  expect(resumed.statusCode).toBe(200);
  expect(resumed.json()).toMatchObject({ ok: true, output: { view: TOOL_RESULT }, facts: { operationId: id } });
  const again = await app.inject({ method: "POST", url: `/api/v1/operations/${id}/resume` });
  expect([again.statusCode, again.json().error.code]).toEqual([409, "OPERATION_NOT_RESUMABLE"]);
  await app.close();
});
