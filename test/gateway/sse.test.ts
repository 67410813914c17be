import { describe, expect, it } from "vitest";
import { sseData } from "../../host/gateway/sse.js";

async function events(pieces: (string | Uint8Array)[]): Promise<string[]> {
  const enc = new TextEncoder();
  const out: string[] = [];
  for await (const d of sseData((async function* () { for (const p of pieces) yield typeof p === "string" ? enc.encode(p) : p; })())) out.push(d);
  return out;
}

describe("the SSE reader", () => {
  it("yields each event's data however the bytes are split, including a CRLF and a UTF-8 character cut in two", async () => {
    const euro = new TextEncoder().encode("data: 5€\r\n\r\n");
    const cut = euro.indexOf(0xe2) + 1;
    expect(await events(["data: {\"a\"", ":1}\r", "\n\r\n: comment\n", "event: x\ndata: two\ndata: lines\n\n", euro.slice(0, cut), euro.slice(cut), "data: [DONE]"])).toEqual([
      "{\"a\":1}", "two\nlines", "5€", "[DONE]",
    ]);
  });
});
