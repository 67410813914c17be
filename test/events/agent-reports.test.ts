/**
 * The agent's own reports (abi/events/README.md: agent.initialized with capabilities, agent.thought,
 * agent.decision with alternatives and reason), through host.report: checked like any
 * caller input, texts as digests unless payloads are switched on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, createObserver, type Host, type Observer } from "../../host/index.js";
import { validateEvent, type SluiceEvent } from "../../abi/events/index.js";
import type { AgentReport } from "../../host/events/agent-report.js";
import type { CallContext } from "../../host/engine/call-types.js";

const ctx: CallContext = { spaceId: "space-a", runId: "r1", instanceId: "child-1" };
const setups: { host: Host; observer: Observer; events: SluiceEvent[] }[] = [];
beforeAll(() => {
  for (const payloads of [false, true]) {
    const observer = createObserver({ payloads });
    const host = createHost({ workers: 1, observer, hostId: payloads ? "loud" : "quiet" });
    const events: SluiceEvent[] = [];
    observer.on((e) => { events.push(e); });
    setups.push({ host, observer, events });
  }
});
afterAll(async () => { for (const s of setups) await s.host.close(); });

async function reported(s: (typeof setups)[number], reports: AgentReport[]): Promise<SluiceEvent[]> {
  s.events.length = 0;
  for (const r of reports) expect(s.host.report(ctx, r)).toEqual({ ok: true });
  await s.observer.flush();
  for (const e of s.events) expect(validateEvent(e)).toEqual({ ok: true });
  return s.events;
}

const reports: AgentReport[] = [
  { type: "agent.initialized", agentName: "planner", agentVersion: "3.1.0", capabilities: ["orders.search", "summarize"] },
  { type: "agent.initialized", agentName: "researcher", capabilities: [], status: "failed", errorCode: "UPSTREAM_TIMEOUT" },
  { type: "agent.thought", kind: "planning", step: 1, content: "look the order up for jane@example.com first" },
  { type: "agent.decision", decision: "orders.search", alternatives: ["ask_user", "answer_directly"], reason: "the order number is known", operationId: "op-1" },
];

describe("host.report", () => {
  it("emits agent.initialized, agent.thought and agent.decision with the context's identity and digests of the texts", async () => {
    const [ready, failed, thought, decision] = await reported(setups[0]!, reports);
    const scope = { host_id: "quiet", space_id: "space-a", run_id: "r1", instance_id: "child-1" };
    expect(ready).toMatchObject({ type: "agent.initialized", ...scope, agent_name: "planner", agent_version: "3.1.0", capabilities: ["orders.search", "summarize"], status: "ready", error_code: null });
    expect(failed).toMatchObject({ type: "agent.initialized", agent_name: "researcher", agent_version: null, status: "failed", error_code: "UPSTREAM_TIMEOUT" });
    expect(thought).toMatchObject({ type: "agent.thought", ...scope, operation_id: null, step: 1, kind: "planning", content_sha256: setups[0]!.host.digestOf(reports[2]!.type === "agent.thought" ? reports[2]!.content : ""), content_length: 44 });
    expect(thought).not.toHaveProperty("content");
    expect(decision).toMatchObject({ type: "agent.decision", ...scope, operation_id: "op-1", decision: "orders.search", alternatives: ["ask_user", "answer_directly"], reason_sha256: setups[0]!.host.digestOf("the order number is known") });
    expect(decision).not.toHaveProperty("reason");
    expect(JSON.stringify(setups[0]!.events)).not.toContain("jane@example.com");
  });

  it("carries the thought's text and the decision's reason when the observer includes payloads", async () => {
    const [, , thought, decision] = await reported(setups[1]!, reports);
    expect(thought).toMatchObject({ content: "look the order up for jane@example.com first" });
    expect(decision).toMatchObject({ reason: "the order number is known" });
  });

  it("refuses a wrong report or context with PAYLOAD_INVALID naming the field, and emits nothing", async () => {
    const s = setups[0]!;
    s.events.length = 0;
    const refused = (c: CallContext, r: unknown) => {
      const check = s.host.report(c, r as AgentReport);
      return check.ok ? null : [check.error.code, check.error.details?.field];
    };
    expect(refused(ctx, { type: "agent.daydream" })).toEqual(["PAYLOAD_INVALID", "report.type"]);
    expect(refused(ctx, { type: "agent.thought" })).toEqual(["PAYLOAD_INVALID", "report.content"]);
    expect(refused(ctx, { type: "agent.decision", decision: "search because the user asked", alternatives: [], reason: "" })).toEqual(["PAYLOAD_INVALID", "report.decision"]);
    expect(refused(ctx, { type: "agent.decision", decision: "search", alternatives: ["ok", "not a label"], reason: "" })).toEqual(["PAYLOAD_INVALID", "report.alternatives.1"]);
    expect(refused(ctx, { type: "agent.initialized", agentName: "p", capabilities: [], status: "failed" })).toEqual(["PAYLOAD_INVALID", "report.errorCode"]);
    expect(refused(ctx, { type: "agent.thought", content: "x", extra: 1 })).toEqual(["PAYLOAD_INVALID", "report"]);
    expect(refused({ spaceId: "" }, reports[0])).toEqual(["PAYLOAD_INVALID", "ctx.spaceId"]);
    await s.observer.flush();
    expect(s.events).toEqual([]);
  });
});
