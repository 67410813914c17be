import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../host/index.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { composeStages } from "../../host/engine/compose.js";
import type { OperationStages } from "../../host/engine/stages.js";

const host = createHost();
afterAll(() => host.close());
host.registerHook("upper", () => ({ kind: "continue" as const }));
host.activate({ revision: 1, bindings: [{ id: "b1", hookRef: "upper", point: "model.chat.before", config: {} }] });

const request = (model: unknown) => ({ model, messages: [{ role: "user", content: "hi" }] });
const models = [Object.create(null), { toString: null }, { toString: () => { throw new Error("no"); } }, Symbol("m")];

describe("the operation engine", () => {
  it("refuses a model that cannot be read as text with PAYLOAD_INVALID, streamed or not, and never throws", async () => {
    for (const model of models) {
      const r = await host.chat({ spaceId: "s" }, request(model) as never, async () => ({ content: "x" }) as never);
      expect(r.ok).toBe(false);
      expect(r.ok ? "" : r.error.code).toBe("PAYLOAD_INVALID");
      const stream = host.chatStream({ spaceId: "s" }, request(model) as never, async function* () { yield { delta: "x" } as never; });
      let thrown: unknown;
      try { for await (const _ of stream) { /* drain */ } } catch (err) { thrown = err; }
      expect(isSluiceError(thrown)).toBe(true);
      expect((thrown as { code: string }).code).toBe("PAYLOAD_INVALID");
      const result = await stream.result;
      expect(result.ok ? "" : result.error.code).toBe("PAYLOAD_INVALID");
    }
  });

  it("takes a deadline beyond a timer's reach (about 24.8 days) as no deadline, instead of one that fires at once", async () => {
    for (const deadline of [Date.now() + 2 ** 31, 18446744073709552000]) {
      const r = await host.chat({ spaceId: "s", deadline }, request("m") as never, async () => { await new Promise((ok) => setTimeout(ok, 20)); return { content: "x" } as never; });
      expect(r.ok ? "ok" : r.error.code).toBe("ok");
    }
  });

  it("composes wrappers inside out: the first is closest to the hooks, the last is what the boundary sees", async () => {
    const seen: string[] = [];
    const base = host.begin({ spaceId: "s" }, { instance: "main", spaceId: "s" });
    const tag = (name: string) => (s: OperationStages): OperationStages => ({ ...s, run: (point, payload) => { seen.push(`${name} in`); return s.run(point, payload).then((r) => { seen.push(`${name} out`); return r; }); } });
    const stages = composeStages(base, [tag("inner"), undefined, tag("outer")]);
    await stages.run("model.chat.before", request("m"));
    stages.end();
    expect(seen).toEqual(["outer in", "inner in", "inner out", "outer out"]);
  });
});
