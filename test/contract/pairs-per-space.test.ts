/**
 * Implicit pairs are decided among the bindings that can meet in one operation (abi §4.3):
 * the same three plugins, each bound once per point in each of three spaces (tenants), pair
 * in every space, streamed or not: each post hook gets its own pre hook's carry, and after
 * a short-circuit only the pre hooks that ran get their post and chunk hooks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import type { BoundaryResult } from "../../host/engine/call-types.js";
import type { ChatRequest, ChatResponse } from "../../host/boundary/chat.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";

const SPACES = ["order", "sc", "ops"] as const;
const PROBES = ["a", "b", "c"] as const;
const POINTS = { before: "model.chat.before", after: "model.chat.after", chunk: "model.chat.chunk" } as const;

let host: Host;
beforeAll(async () => {
  host = createHost({ workers: 2 });
  for (const p of PROBES) await host.loadPlugin({ id: `probe-${p}`, version: "1.0.0", wasm: fixture("contract-hook"), limits: { fuel: BACKSTOP_FUEL } });
  // In space "sc", probe-b answers from its "cache": probe-c's pre hook never runs.
  const bindings: BindingInput[] = SPACES.flatMap((space) => PROBES.flatMap((p, i) => (Object.keys(POINTS) as (keyof typeof POINTS)[]).map((at): BindingInput => ({
    id: `${space}-${p}-${at}`, hookRef: `probe-${p}@1.0.0`, point: POINTS[at], priority: i, timeoutMs: 2_000, match: { spaces: [space] },
    config: space === "sc" && p === "b" && at === "before" ? { mode: "short_circuit", result: { content: "cached" } } : { mode: "carry", tag: `${space}-${p}${at === "before" ? "" : `-${at}`}` },
  }))));
  host.activate({ revision: 1, orderMode: "symmetric", bindings });
});
afterAll(() => host.close());

const request: ChatRequest = { model: "m1", messages: [{ role: "user", content: "hi" }] };
const answer: ChatResponse = { content: "hello", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 1 } };

async function call(space: string, streamed: boolean): Promise<BoundaryResult<ChatResponse>> {
  if (!streamed) return host.chat({ spaceId: space }, request, async () => answer);
  const stream = host.chatStream({ spaceId: space }, request, async function* () { yield { delta: "hel" }; yield { delta: "lo", finish_reason: "stop" }; });
  for await (const _ of stream) { /* drained */ }
  return stream.result;
}

const ran = (r: BoundaryResult<ChatResponse>, point: string): string[] => r.hooks.filter((h) => h.point === point).map((h) => h.bindingId);

for (const streamed of [false, true]) {
  describe(`implicit pairs per space (${streamed ? "streamed" : "not streamed"})`, () => {
    for (const space of ["order", "ops"]) {
      it(`hands each pre hook's carry to its own post${streamed ? " and chunk" : ""} hooks in space ${space}, unwinding in reverse`, async () => {
        const r = await call(space, streamed);
        expect(r.ok).toBe(true);
        expect(ran(r, POINTS.before)).toEqual(PROBES.map((p) => `${space}-${p}-before`));
        expect(ran(r, POINTS.after)).toEqual([...PROBES].reverse().map((p) => `${space}-${p}-after`));
        for (const p of PROBES) expect(r.annotations[`carry_${space}-${p}-after`]).toBe(`${space}-${p}`);
        if (streamed) {
          expect(new Set(ran(r, POINTS.chunk))).toEqual(new Set(PROBES.map((p) => `${space}-${p}-chunk`)));
          for (const p of PROBES) expect(r.annotations[`carry_${space}-${p}-chunk`]).toBe(`${space}-${p}`);
        }
      });
    }

    it("after a short-circuit in space sc runs only the post and chunk hooks of the pre hooks that ran", async () => {
      const r = await call("sc", streamed);
      expect(r.ok && r.output.content).toBe("cached");
      expect(r.ok && r.facts).toMatchObject({ called: false, shortCircuitedBy: "sc-b-before" });
      expect(ran(r, POINTS.before)).toEqual(["sc-a-before", "sc-b-before"]);
      expect(ran(r, POINTS.after)).toEqual(["sc-b-after", "sc-a-after"]);
      expect(r.annotations["carry_sc-a-after"]).toBe("sc-a");
      expect(ran(r, POINTS.chunk)).not.toContain("sc-c-chunk");
      if (streamed) expect(r.annotations["carry_sc-a-chunk"]).toBe("sc-a");
      expect(r.hooks.map((h) => h.bindingId).filter((id) => !id.startsWith("sc-"))).toEqual([]);
    });
  });
}
