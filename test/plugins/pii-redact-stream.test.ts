/**
 * The reference redaction bindings on a stream: pii-redact bound at
 * model.chat.chunk and model.chat.after, loaded from its hook.yaml (which declares
 * `stream_rewrite: chunk`), streams as it comes, and no byte of an address leaves.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import { pluginInput } from "../../host/registry/plugin-input.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import type { ChatRequest } from "../../host/boundary/chat.js";
import { gatedChunks, gatedSource } from "../helpers/gated-source.js";
import { pluginWasm, repoRoot } from "../helpers/fixtures.js";

let host: Host;
let revision = 0;
beforeAll(async () => {
  host = createHost({ workers: 2 });
  for (const id of ["pii-redact", "answer-normalize"]) {
    await host.loadPlugin(pluginInput(readFileSync(`${repoRoot}plugins/${id}/hook.yaml`, "utf8"), pluginWasm(id)));
  }
});
afterAll(() => host.close());

const ctx = { spaceId: "space-s" };
const request: ChatRequest = { model: "m1", messages: [{ role: "user", content: "where do I write?" }] };
// As the demo release binds them (host/demo/release.ts).
const REDACTION: BindingInput[] = [
  { id: "redact-answer", hookRef: "pii-redact@1.0.0", point: "model.chat.after", priority: 40, timeoutMs: 2_000 },
  { id: "redact-stream", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk", priority: 10, timeoutMs: 2_000 },
];
const bind = (bindings: BindingInput[]) => host.activate({ revision: ++revision, bindings });
const RAW = ["alice", "smith", "example", "bob", "mail.", "@"];

describe("pii-redact at model.chat.chunk and model.chat.after on a stream", () => {
  it("delivers its first chunk before the upstream sends its last, and the after hook judges the answer read-only", async () => {
    bind(REDACTION);
    const gate = gatedSource();
    const stream = host.chatStream(ctx, request, gatedChunks(gate, "Hello there. Write to alice.smith@exa", ["mple.com today."]));
    const chunks: string[] = [];
    for await (const c of stream) { chunks.push(c.delta); gate.read(c.delta); }
    expect(gate.order).toEqual(["consumer read", "source sent the rest"]);
    expect(chunks[0]).toBe("Hello there. Write to ");
    expect(chunks.join("")).toBe("Hello there. Write to [email] today.");
    const r = await stream.result;
    expect(r.ok && r.output.content).toBe("Hello there. Write to [email] today.");
    expect(r.hooks.find((h) => h.bindingId === "redact-answer")).toMatchObject({ point: "model.chat.after", outcome: "continue" });
  });

  it("emits no raw address across 56 split positions", async () => {
    bind(REDACTION);
    const text = "Write to alice.smith@example.com or bob@mail.example.org.";
    const positions = Array.from({ length: text.length - 1 }, (_, i) => i + 1);
    expect(positions).toHaveLength(56);
    for (const k of positions) {
      const stream = host.chatStream(ctx, request, async function* () { yield { delta: text.slice(0, k) }; yield { delta: text.slice(k) }; });
      const chunks: string[] = [];
      for await (const c of stream) chunks.push(c.delta);
      expect(chunks.join(""), `split at ${k}`).toBe("Write to [email] or [email].");
      for (const c of chunks) for (const raw of RAW) expect(c, `split at ${k}`).not.toContain(raw);
      const r = await stream.result;
      expect(r.ok && r.hooks.find((h) => h.bindingId === "redact-answer")?.outcome, `split at ${k}`).toBe("continue");
    }
  });

  it("with answer-normalize at model.chat.after too (it may rewrite and has no chunk twin), the stream holds its text back as before", async () => {
    bind([...REDACTION, { id: "normalize-answer", hookRef: "answer-normalize@1.0.0", point: "model.chat.after", priority: 30, timeoutMs: 2_000 }]);
    const gate = gatedSource(300);
    const stream = host.chatStream(ctx, request, gatedChunks(gate, "Write to alice.smith@exa", ["mple.com today.  "]));
    const chunks: string[] = [];
    for await (const c of stream) { chunks.push(c.delta); gate.read(c.delta); }
    expect(gate.order).toEqual(["source gave up waiting", "source sent the rest", "consumer read"]);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).not.toContain("alice");
  });

  it("a call that is not streamed is unchanged: the after hook redacts the answer", async () => {
    bind(REDACTION);
    const r = await host.chat(ctx, request, async () => ({ content: "mail alice.smith@example.com", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 1 } }));
    expect(r.ok && r.output.content).toBe("mail [email]");
    expect(r.hooks.find((h) => h.bindingId === "redact-answer")?.outcome).toBe("redact");
  });
});
