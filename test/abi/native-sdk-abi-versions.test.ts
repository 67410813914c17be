/**
 * A Rust or C hook can be built for an older ABI minor, as an AssemblyScript one chooses
 * `exports` (1.0) or `exports_v1_1`: `export_hook!(hook, v1_0)` and
 * `SLUICE_EXPORT_HOOK_ABI(hook, 1, 0)`. The host then shows it 1.0 payloads (each chat text
 * as a string, abi/README.md §4.4), accepts its replies, and refuses an ask from it.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../../host/index.js";
import type { ChatResponse } from "../../host/boundary/chat.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import type { GuestPlugin } from "../../host/engine/hooks.js";
import { repoRoot } from "../helpers/fixtures.js";
import { cGuest, rustGuest } from "../helpers/native-guests.js";

const host = createHost({ workers: 1, quarantine: false });
afterAll(() => host.close());
const guests: Record<string, GuestPlugin> = {};
beforeAll(async () => {
  const wasm = {
    rust: await rustGuest(path.join(repoRoot, "test/fixtures/rust/abi-v1_0"), path.join(repoRoot, "build/fixtures/rust-abi-v1_0.wasm")),
    c: await cGuest(path.join(repoRoot, "test/fixtures/c/abi-v1_0.c"), path.join(repoRoot, "build/fixtures/c-abi-v1_0.wasm")),
  };
  for (const [sdk, bytes] of Object.entries(wasm)) {
    guests[sdk] = await host.loadPlugin({ id: `old-${sdk}`, version: "1.0.0", wasm: new Uint8Array(bytes), grants: { "model.chat.after": { read: ["/content"], write: ["/content"] } } });
  }
}, 180_000);

let revision = 0;
const bind = (point: string, hookRef: string) =>
  host.activate({ revision: ++revision, bindings: [{ id: "b0", point, hookRef, timeoutMs: 5_000, failurePolicy: "fail-closed", config: {} }] } as never);
const answer: ChatResponse = {
  content: [{ type: "text", text: "hello" }, { type: "image_url", image_url: { url: "https://example.com/x.png" } }, { type: "text", text: "world" }],
  tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 1 },
};
const call: ToolCall = { toolId: "shell", name: "Bash", schema: { type: "object" }, arguments: { command: "git push" }, callId: "c1" };

for (const sdk of ["rust", "c"]) {
  describe(`a ${sdk} hook built for ABI 1.0`, () => {
    it("exports the 1.0 marker, so the host loads it as a 1.0 guest", () => {
      expect(guests[sdk]!.module.abi).toEqual({ major: 1, minor: 0 });
    });

    it("is shown each text part of an answer as a string content, and its redaction of each is written back to that part", async () => {
      bind("model.chat.after", `old-${sdk}@1.0.0`);
      const r = await host.chat({ spaceId: "s" }, { model: "m", messages: [{ role: "user", content: "hi" }], purpose: "action" } as never, async () => structuredClone(answer));
      expect(r.ok, JSON.stringify(!r.ok && r.error)).toBe(true);
      expect(r.ok && r.output.content).toEqual([{ type: "text", text: "HELLO" }, answer.content![1], { type: "text", text: "WORLD" }]);
    });

    it("cannot ask: its reply says 1.0, so the host refuses it and the fail-closed call never runs", async () => {
      bind("tool.before", `old-${sdk}@1.0.0`);
      let ran = false;
      const r = await host.tool({ spaceId: "s" }, call, async () => { ran = true; return "pushed"; });
      expect(ran).toBe(false);
      expect(!r.ok && r.error.code).toBe("HOOK_FAILED");
      expect(JSON.stringify(!r.ok && r.error.details)).toContain("OUTPUT_INVALID");
    });
  });
}
