// Tool schemas of every draft frameworks send:
// the AI SDK, the Agents SDK and MCP mark zod's output draft-07; no $schema means 2020-12.
// A schema the host cannot read is a PAYLOAD_INVALID result, never a throw.
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../host/index.js";

const host = createHost({ workers: 1 });
afterAll(() => host.close());

const call = (schema: Record<string, unknown>, args: Record<string, unknown>) =>
  host.tool({ spaceId: "s" }, { toolId: "t", name: "t", schema, arguments: args, callId: "c" }, async (a) => a);

// What zod-to-json-schema writes for z.object({ q: z.string().email(), limit: z.number().int().max(10).optional() }).
const zodDraft07 = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: { q: { type: "string", format: "email" }, limit: { type: "integer", maximum: 10 } },
  required: ["q"],
  additionalProperties: false,
};

describe("tool schemas", () => {
  it("marked draft-07 are honoured, formats included", async () => {
    expect((await call(zodDraft07, { q: "a@b.co", limit: 3 })).ok).toBe(true);
    const bad = await call(zodDraft07, { q: "not-an-email" });
    expect(!bad.ok && bad.error.code).toBe("FINAL_CHECK_FAILED");
    expect(!bad.ok && bad.error.message).toMatch(/arguments\/q must match format "email"/);
  });

  it("marked 2019-09 use that draft's keywords (unevaluatedProperties)", async () => {
    const schema = { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object", properties: { q: { type: "string" } }, unevaluatedProperties: false };
    expect((await call(schema, { q: "x" })).ok).toBe(true);
    const bad = await call(schema, { q: "x", extra: 1 });
    expect(!bad.ok && bad.error.code).toBe("FINAL_CHECK_FAILED");
  });

  it("without $schema are 2020-12 (prefixItems)", async () => {
    const schema = { type: "object", properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false } } };
    expect((await call(schema, { pair: ["a", 1] })).ok).toBe(true);
    const bad = await call(schema, { pair: ["a", 1, 2] });
    expect(!bad.ok && bad.error.code).toBe("FINAL_CHECK_FAILED");
  });

  it("with an unknown $schema are refused with PAYLOAD_INVALID naming it, and the call does not throw", async () => {
    const r = await call({ $schema: "http://example.com/my-schema", type: "object" }, {});
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("PAYLOAD_INVALID");
      expect(r.error.message).toMatch(/"http:\/\/example\.com\/my-schema" is not a JSON Schema draft the host knows/);
    }
  });
});
