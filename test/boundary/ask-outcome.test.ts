// The ask outcome (ABI 1.2) end to end through the host, from real guests: accepted only at
// tool.before and only from a 1.2 module; the tool does not run, the operation ends
// HOOK_ASKED with outcome "asked" in its record and its events; anywhere else, or from an
// older module, it is a guest failure, so a fail-closed guard that asks never lets the call through.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SluiceEvent } from "../../abi/events/index.js";
import { createHost, createMemoryRecords, type Host, type OperationStore } from "../../host/index.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import type { GuestPlugin } from "../../host/engine/hooks.js";
import { guestFixture } from "../abi/guest-fixtures.js";
import { createMemoryPayloads } from "../../host/records/memory-store.js";
import { replayOperation } from "../../host/registry/replay.js";
import type { ReleaseRecord } from "../../host/registry/records.js";

let host: Host;
let records: OperationStore;
let asker: GuestPlugin;
const events: SluiceEvent[] = [];
beforeAll(async () => {
  records = createMemoryRecords();
  host = createHost({ workers: 1, records, payloads: createMemoryPayloads({ retentionMs: 60_000 }), quarantine: false });
  asker = await host.loadPlugin({ id: "asker", version: "1.2.0", wasm: await guestFixture("asker-v1_2") });
  await host.loadPlugin({ id: "old-asker", version: "1.1.0", wasm: await guestFixture("asker-v1_1") });
  host.observer.on((e) => { events.push(e); });
});
afterAll(() => host.close());

let revision = 0;
const bind = (...bindings: { point: string; hookRef: string; config?: unknown; failurePolicy?: "fail-open" | "fail-closed" }[]) =>
  host.activate({ revision: ++revision, bindings: bindings.map((b, i) => ({ id: `b${i}`, timeoutMs: 2_000, failurePolicy: "fail-closed", config: {}, ...b })) } as never);

const call: ToolCall = { toolId: "shell", name: "Bash", schema: { type: "object" }, arguments: { command: "git push" }, callId: "c1" };

describe("a hook that asks for approval", () => {
  it("is a guest built for ABI 1.2", () => {
    expect(asker.module.abi).toEqual({ major: 1, minor: 2 });
  });

  it("at tool.before: the tool does not run, the operation ends HOOK_ASKED with the hook's reason, recorded and published as asked", async () => {
    bind({ point: "tool.before", hookRef: "asker@1.2.0", config: { reason: "git push needs a reviewer's approval" } });
    let ran = false;
    const r = await host.tool({ spaceId: "space-a" }, call, async () => { ran = true; return "pushed"; });
    expect(ran).toBe(false);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("HOOK_ASKED");
    expect(r.error.details).toMatchObject({ bindingId: "b0", reason: "git push needs a reviewer's approval" });
    expect(r.hooks.map((h) => [h.bindingId, h.outcome])).toEqual([["b0", "ask"]]);

    const record = await records.get(r.facts.operationId);
    expect(record).toMatchObject({ outcome: "asked" });
    await host.observer.flush();
    const failed = events.find((e) => e.type === "tool.invocation.failed" && (e as { operation_id?: string }).operation_id === r.facts.operationId);
    expect(failed).toMatchObject({ outcome: "asked", called: false, error_code: "HOOK_ASKED", error_type: "policy" });
  });

  it("replays as the same ask: an asked operation's replay with the same plugin changes nothing", async () => {
    const config = { reason: "git push needs a reviewer's approval" };
    bind({ point: "tool.before", hookRef: "asker@1.2.0", config });
    const r = await host.tool({ spaceId: "space-a" }, call, async () => "pushed");
    expect(!r.ok && r.error.code).toBe("HOOK_ASKED");
    const release: ReleaseRecord = {
      revision, order_mode: "staged", based_on: null, note: "", created_at: "",
      bindings: [{ id: "b0", hook_ref: "asker@1.2.0", point: "tool.before", match: {}, priority: 100, timeout_ms: 2_000, failure_policy: "fail-closed", observe_only: false, config, enabled: true, mandatory: false, position: 0, registered_at: "", code_sha256: "" }],
    };
    const replayed = await replayOperation({ host, release: async () => release, plugin: async () => asker }, r.facts.operationId, asker);
    expect(replayed.stages).toMatchObject([{ point: "tool.before", stop: { recorded: "ask by b0", replayed: "ask by b0" }, changed: false }]);
    expect(replayed.changed).toBe(false);
  });

  it("at tool.after: ask is not allowed there, so the fail-closed binding fails the call instead of letting its output through", async () => {
    bind({ point: "tool.after", hookRef: "asker@1.2.0" });
    const r = await host.tool({ spaceId: "space-a" }, call, async () => "pushed");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("HOOK_FAILED");
    expect(JSON.stringify(r.error.details)).toContain("OUTCOME_NOT_ALLOWED");
  });

  it("from a module whose marker is 1.1: the reply is refused (OUTPUT_INVALID) and the fail-closed call never runs", async () => {
    bind({ point: "tool.before", hookRef: "old-asker@1.1.0" });
    let ran = false;
    const r = await host.tool({ spaceId: "space-a" }, call, async () => { ran = true; return "pushed"; });
    expect(ran).toBe(false);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("HOOK_FAILED");
    expect(JSON.stringify(r.error.details)).toContain("OUTPUT_INVALID");
  });

  it("fail-open, refused where it is not allowed: the failure is the policy's, never an allow the hook gave", async () => {
    bind({ point: "model.chat.before", hookRef: "asker@1.2.0", failurePolicy: "fail-open" });
    const r = await host.chat({ spaceId: "space-a" }, { model: "m", messages: [{ role: "user", content: "hi" }] } as never, async () => ({ content: "ok", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 1 } }));
    expect(r.hooks.map((h) => [h.bindingId, h.outcome, h.error?.code])).toEqual([["b0", "failed", "OUTCOME_NOT_ALLOWED"]]);
  });
});
