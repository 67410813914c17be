import { describe, expect, it } from "vitest";
import type { PatchOp } from "../../abi/envelope.js";
import { applyPatch, applyRedaction } from "../../host/pipeline/patch.js";
import type { PointName } from "../../host/pipeline/points.js";
import { sample } from "./samples.js";

const replace = (path: string, value: unknown): PatchOp => ({ op: "replace", path, value });
const add = (path: string, value: unknown): PatchOp => ({ op: "add", path, value });
const remove = (path: string): PatchOp => ({ op: "remove", path });

function refused(point: PointName, ops: PatchOp[], grant?: { write?: string[] }) {
  const result = applyPatch(point, sample(point), ops, grant);
  if (result.ok) throw new Error(`expected ${point} to refuse ${JSON.stringify(ops)}`);
  return result.error;
}

describe("applyPatch: fields a point does not allow", () => {
  it.each([
    ["model.chat.before", replace("/model", "gpt-cheap")],
    ["model.chat.before", add("/tools/-", { name: "rm", parameters: {} })],
    ["model.chat.before", replace("/tools/0/parameters", {})],
    ["model.chat.before", replace("/purpose", "completion")],
    ["model.chat.after", replace("/tool_calls/0/function/arguments", "{\"all\":true}")],
    ["model.chat.after", replace("/usage/output_tokens", 0)],
    ["model.chat.after", replace("/finish_reason", "stop")],
    ["model.chat.chunk", replace("/delta", "x")],
    ["model.embedding.before", replace("/model", "other")],
    ["model.embedding.after", replace("/vectors/0/0", 1)],
    ["tool.before", replace("/schema", {})],
    ["tool.before", replace("/call_id", "c9")],
    ["tool.after", replace("/status", "failed")],
    ["tool.after", replace("/result", null)],
    ["tool.after", add("/artifacts/-", {})],
    ["operation.error", replace("/error/message", "fine")],
  ] as const)("%s refuses %j with PATCH_FORBIDDEN", (point, op) => {
    const error = refused(point, [op]);
    expect(error.code).toBe("PATCH_FORBIDDEN");
    expect(error.message).toContain(op.path);
  });

  it("names the allowed prefixes in the message", () => {
    expect(refused("model.chat.after", [replace("/usage/input_tokens", 1)]).message).toMatch(/patchable fields: \/content, \/refusal, \/reasoning_content, \/annotations/);
    expect(refused("operation.finally", [replace("/outcome", "failed")]).message).toMatch(/nothing is patchable/);
  });

  it("refuses a path that only shares a string prefix with a patchable field", () => {
    expect(refused("tool.before", [add("/argumentsX", {})]).code).toBe("PATCH_FORBIDDEN");
  });

  it("refuses the whole payload as a target", () => {
    expect(refused("tool.before", [replace("", {})]).code).toBe("PATCH_FORBIDDEN");
  });

  it.each(["__proto__", "constructor", "prototype"])("refuses a %s segment even under a patchable field", (segment) => {
    const error = refused("tool.before", [add(`/arguments/${segment}`, { polluted: true })]);
    expect(error.code).toBe("PATCH_FORBIDDEN");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses everything before applying anything when one op is forbidden", () => {
    expect(refused("tool.before", [replace("/arguments/limit", 1), replace("/tool_id", "x")]).details).toMatchObject({ index: 1 });
  });
});

describe("applyPatch: grants", () => {
  it("refuses a patchable field the plugin was not granted, naming the grant", () => {
    const error = refused("model.chat.before", [replace("/params/temperature", 1)], { write: ["/messages"] });
    expect(error.code).toBe("PATCH_FORBIDDEN");
    expect(error.message).toContain("granted write fields: /messages");
  });

  it("allows a field granted and patchable", () => {
    const result = applyPatch("model.chat.before", sample("model.chat.before"), [replace("/params/temperature", 1)], { write: ["/params/temperature"] });
    expect(result.ok).toBe(true);
  });

  it("does not let a grant widen what the point allows", () => {
    expect(refused("model.chat.before", [replace("/model", "m")], { write: ["/model"] }).code).toBe("PATCH_FORBIDDEN");
  });

  it("treats an empty grant as no write access", () => {
    expect(refused("tool.before", [replace("/arguments/limit", 1)], { write: [] }).message).toContain("granted no write fields");
  });
});

describe("applyPatch: applying", () => {
  it("changes tool arguments and leaves the input payload and ops untouched", () => {
    const payload = sample("tool.before");
    const before = structuredClone(payload);
    const value = { nested: [1] };
    const ops = [replace("/arguments/limit", 100), add("/arguments/extra", value)];
    const result = applyPatch("tool.before", payload, ops);
    expect(result).toMatchObject({ ok: true, payload: { arguments: { q: "orders", limit: 100, extra: { nested: [1] } } } });
    expect(payload).toEqual(before);
    if (result.ok) (result.payload.arguments as { extra: { nested: number[] } }).extra.nested.push(2);
    expect(value).toEqual({ nested: [1] });
  });

  it("allows replacing a patchable field wholesale", () => {
    const result = applyPatch("tool.before", sample("tool.before"), [replace("/arguments", { q: "x" })]);
    expect(result).toMatchObject({ ok: true, payload: { arguments: { q: "x" } } });
  });

  it("applies ops in order, each seeing the previous one", () => {
    const result = applyPatch("model.embedding.before", sample("model.embedding.before"), [
      replace("/texts/0", "A"), replace("/texts/0", "AA"), replace("/texts/2", "~"),
    ]);
    expect(result).toMatchObject({ ok: true, payload: { texts: ["AA", "beta", "~"] } });
  });

  it("unescapes ~0 and ~1 in keys", () => {
    const result = applyPatch("tool.before", sample("tool.before"), [add("/arguments/a~1b~0c", 1)]);
    expect(result.ok && result.payload.arguments).toMatchObject({ "a/b~c": 1 });
  });

  it("appends a message and changes an existing message's content", () => {
    const result = applyPatch("model.chat.before", sample("model.chat.before"), [
      replace("/messages/1/content", "Find [redacted]"),
      add("/messages/-", { role: "user", content: "Answer in French" }),
    ]);
    expect(result.ok).toBe(true);
    if (result.ok) {
      const messages = result.payload.messages as { content: string }[];
      expect(messages).toHaveLength(5);
      expect(messages[1]!.content).toBe("Find [redacted]");
    }
  });

  it("sets sampling params, and may remove them", () => {
    expect(applyPatch("model.chat.before", sample("model.chat.before"), [add("/params/top_p", 0.9)]).ok).toBe(true);
    expect(applyPatch("model.chat.before", sample("model.chat.before"), [remove("/params")]).ok).toBe(true);
  });

  it.each([
    [replace("/arguments/missing", 1), /"missing" does not exist/],
    [remove("/arguments/missing"), /does not exist/],
    [add("/arguments/a/b", 1), /path does not exist/],
    [{ op: "move", path: "/arguments/q", from: "/arguments/limit" } as unknown as PatchOp, /must be add, replace or remove/],
    [{ op: "add", path: "/arguments/x" } as unknown as PatchOp, /needs a value/],
    [add("arguments", 1), /not a JSON Pointer/],
    [add("/arguments/~2", 1), /not a JSON Pointer/],
  ] as const)("refuses %j with PATCH_INVALID", (op, message) => {
    const error = refused("tool.before", [op]);
    expect(error.code).toBe("PATCH_INVALID");
    expect(error.message).toMatch(message);
  });

  it("refuses array indexes past the end or not canonical", () => {
    expect(refused("model.embedding.before", [add("/texts/9", "x")]).message).toMatch(/past the end/);
    expect(refused("model.embedding.before", [replace("/texts/01", "x")]).message).toMatch(/not an array index/);
  });
});

describe("applyPatch: re-validation", () => {
  it("refuses a result that fails the schema, with ajv's explanation", () => {
    const error = refused("model.chat.before", [replace("/params/temperature", "hot")]);
    expect(error.code).toBe("PATCH_INVALID");
    expect(error.message).toMatch(/payload\/params\/temperature must be number/);
  });

  it("refuses undeclared fields under a closed patchable object with PATCH_FORBIDDEN naming the path", () => {
    for (const path of ["/params/api_key", "/messages/0/secret", "/messages/0/content/0/image_url/extra"]) {
      const error = refused("model.chat.before", [add(path, "sk")]);
      expect(error.code).toBe("PATCH_FORBIDDEN");
      expect(error.message).toContain(`${path} names a field model.chat.before does not declare`);
      expect(error.details).toMatchObject({ path, undeclared: true });
    }
  });

  it("lets declared fields inside open values and content parts be patched", () => {
    const payload = { model: "m", purpose: "action", messages: [{ role: "user", content: [{ type: "text", text: "a" }, { type: "image_url", image_url: { url: "u" } }] }], params: { response_format: { type: "json_schema", json_schema: { name: "x" } } } };
    const r = applyPatch("model.chat.before", payload, [replace("/messages/0/content/0/text", "b"), add("/params/response_format/json_schema/strict", true), add("/params/seed", 7)]);
    expect(r.ok && r.payload).toMatchObject({ messages: [{ content: [{ type: "text", text: "b" }, { type: "image_url" }] }], params: { seed: 7, response_format: { json_schema: { strict: true } } } });
  });

  it("refuses removing a required field through its own prefix", () => {
    expect(refused("tool.before", [remove("/arguments")]).code).toBe("PATCH_INVALID");
  });

  it("keeps the count of embedding texts", () => {
    expect(refused("model.embedding.before", [remove("/texts/0")]).message).toMatch(/must keep its count \(3 before, 2 after\)/);
    expect(refused("model.embedding.before", [add("/texts/-", "delta")]).code).toBe("PATCH_INVALID");
    expect(refused("model.embedding.before", [replace("/texts", ["one"])]).code).toBe("PATCH_INVALID");
    expect(applyPatch("model.embedding.before", sample("model.embedding.before"), [replace("/texts", ["a", "b", "c"])]).ok).toBe(true);
  });

  it("keeps existing messages in place: no removal, reorder, role or tool-call change", () => {
    expect(refused("model.chat.before", [remove("/messages/0")]).message).toMatch(/cannot be removed/);
    expect(refused("model.chat.before", [replace("/messages/0/role", "user")]).message).toMatch(/messages\/0\/role cannot change/);
    expect(refused("model.chat.before", [replace("/messages/1/role", "system")]).code).toBe("PATCH_INVALID");
    expect(refused("model.chat.before", [replace("/messages/3/tool_call_id", "c7")]).code).toBe("PATCH_INVALID");
    expect(refused("model.chat.before", [add("/messages/0", { role: "system", content: "obey" })]).code).toBe("PATCH_INVALID");
  });
});

describe("applyRedaction", () => {
  it("replaces the answer text at model.chat.after and the view at tool.after", () => {
    expect(applyRedaction("model.chat.after", sample("model.chat.after"), "[redacted]")).toMatchObject({ ok: true, payload: { content: "[redacted]", usage: { input_tokens: 12 } } });
    expect(applyRedaction("tool.after", sample("tool.after"), "2 rows")).toMatchObject({ ok: true, payload: { view: "2 rows", result: { rows: [1, 2] } } });
  });

  it("is refused where there is no redactable field", () => {
    expect(applyRedaction("tool.before", sample("tool.before"), "x")).toMatchObject({ ok: false, error: { code: "OUTCOME_NOT_ALLOWED" } });
  });

  it("needs the same write grant as a patch", () => {
    expect(applyRedaction("tool.after", sample("tool.after"), "x", { write: [] })).toMatchObject({ ok: false, error: { code: "PATCH_FORBIDDEN" } });
  });
});
