/**
 * More concurrent streams than the old upstream pool (256 connections): every one reaches
 * the upstream and gets its first text while all are open. A stream holds its upstream
 * connection for its whole length, so with a pool smaller than the server's connection cap
 * the streams beyond it waited for others to end before their upstream was even asked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type GatewayUnderTest } from "./setup.js";

const STREAMS = 300;
let gw: GatewayUnderTest;
// The stub's "[stall]" streams a first piece and goes silent: each stream stays open until the gateway's upstream timeout.
beforeAll(async () => { gw = await startGateway({ timeoutMs: 8_000 }); gw.bind([]); });
afterAll(() => gw.close());

describe("many concurrent streams", () => {
  it(`gives each of ${STREAMS} open streams its first text, every one asked of the upstream at once`, async () => {
    const calls = gw.stub.chatCalls;
    const aborts = Array.from({ length: STREAMS }, () => new AbortController());
    const firsts = aborts.map(async (abort, i) => {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST", signal: abort.signal,
        headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m1", stream: true, messages: [{ role: "user", content: `[stall] stream ${i}` }] }),
      });
      const reader = res.body!.getReader();
      let text = "";
      // Up to the first content delta (the first frame may carry the role alone).
      while (!text.includes("partial")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      return { status: res.status, text };
    });
    try {
      // Well within the upstream timeout: no stream has ended yet.
      const results = await Promise.race([Promise.all(firsts), new Promise<"late">((r) => setTimeout(() => r("late"), 5_000))]);
      expect(gw.stub.chatCalls - calls).toBe(STREAMS);
      expect(results).not.toBe("late");
      for (const r of results as { status: number; text: string }[]) {
        expect(r.status).toBe(200);
        expect(r.text).toContain("partial");
      }
    } finally {
      for (const a of aborts) a.abort();
      await Promise.allSettled(firsts);
    }
  }, 30_000);
});
