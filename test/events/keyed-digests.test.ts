/**
 * The digests events carry (`parameters_sha256`, `result_sha256`, `content_sha256`) are the
 * host's keyed digests, as records' are: a 4-digit PIN in a tool's arguments
 * cannot be found by hashing every candidate, and an auditor with the key can check one.
 */
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../host/pipeline/canonical-json.js";
import { createHost, createObserver } from "../../host/index.js";
import type { EventOf, SluiceEvent } from "../../abi/events/index.js";

const observer = createObserver();
const host = createHost({ workers: 1, observer, digestSecret: "k".repeat(32) });
const events: SluiceEvent[] = [];
observer.on((e) => { events.push(e); });
afterAll(() => host.close());

const plain = (v: unknown): string => createHash("sha256").update(canonicalJson(v)).digest("hex");

describe("digests in events", () => {
  it("are keyed: no PIN of 0000-9999 hashes to a tool call's parameters_sha256, and host.digestOf matches it", async () => {
    const args = { pin: "4821" };
    const call = { toolId: "bank.verify", name: "verify", schema: { type: "object" }, arguments: args, callId: "c1" };
    await host.tool({ spaceId: "s" }, call, async () => ({ verified: true }));
    await observer.flush();
    const requested = events.find((e): e is EventOf<"tool.invocation.requested"> => e.type === "tool.invocation.requested")!;
    const completed = events.find((e): e is EventOf<"tool.invocation.completed"> => e.type === "tool.invocation.completed")!;
    expect(requested.parameters_sha256).toBe(host.digestOf(args));
    const tried = new Set(Array.from({ length: 10_000 }, (_, i) => plain({ pin: String(i).padStart(4, "0") })));
    expect(tried.has(requested.parameters_sha256)).toBe(false);
    expect(completed.result_sha256).toBe(host.digestOf({ verified: true }));
    expect(completed.result_sha256).not.toBe(plain({ verified: true }));
  });
});
