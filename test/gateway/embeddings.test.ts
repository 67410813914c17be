/** Embeddings through the gateway: hooks see texts, clients get floats or base64 as they ask. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type GatewayUnderTest } from "./setup.js";

let gw: GatewayUnderTest;
beforeAll(async () => { gw = await startGateway(); });
afterAll(() => gw.close());

describe("gateway embeddings", () => {
  it("embeds through the embedding hooks, asking the upstream for floats and answering the client's base64 default", async () => {
    gw.bind([{ id: "trim", point: "model.embedding.before", config: { mode: "texts" } }]);
    const r = await gw.client.embeddings.create({ model: "e5", input: [" banana ", "a"] });
    expect(gw.stub.bodies.at(-1)).toMatchObject({ model: "e5", input: ["banana", "a"], encoding_format: "float" });
    expect(r.data.map((d) => d.embedding)).toEqual([[6, 3, 0.5], [1, 1, 0.5]]);
    expect(r.data.map((d) => d.index)).toEqual([0, 1]);
    expect(r).toMatchObject({ object: "list", model: "e5", usage: { prompt_tokens: 7, total_tokens: 7 } });
  });

  it("answers floats when asked for floats, and takes a single string", async () => {
    gw.bind([]);
    const r = await gw.client.embeddings.create({ model: "e5", input: "aaa", encoding_format: "float" });
    expect(r.data).toEqual([{ object: "embedding", index: 0, embedding: [3, 3, 0.5] }]);
  });

  it("refuses a rejected embedding call with the hook's code, without calling the upstream", async () => {
    gw.bind([{ id: "no", point: "model.embedding.before", config: { mode: "reject", code: "embedding.denied", reason: "not today" } }]);
    const calls = gw.stub.embeddingCalls;
    const err = await gw.client.embeddings.create({ model: "e5", input: "x" }).then(() => null, (e) => e);
    expect(err).toMatchObject({ status: 403, code: "embedding.denied", error: { message: "not today" } });
    expect(gw.stub.embeddingCalls).toBe(calls);
  });

  it("refuses token-array input, which hooks could not read as text", async () => {
    gw.bind([]);
    const err = await gw.client.embeddings.create({ model: "e5", input: [[1, 2, 3]] }).then(() => null, (e) => e);
    expect(err).toMatchObject({ status: 400, code: "REQUEST_INVALID", param: "input" });
  });
});
