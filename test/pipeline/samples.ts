import type { Payload, PointName } from "../../host/pipeline/points.js";

/** One valid payload per point, typed by the table, shared by the pipeline tests. */
export const SAMPLES: { [P in PointName]: Payload<P> } = {
  "model.chat.before": {
    model: "gpt-x",
    messages: [
      { role: "system", content: "You are terse." },
      { role: "user", content: "Find orders" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: "{\"q\":\"o\"}" } }] },
      { role: "tool", content: "[]", tool_call_id: "c1" },
    ],
    tools: [{ name: "search", description: "search orders", parameters: { type: "object" } }],
    params: { temperature: 0.2, max_tokens: 256 },
    purpose: "action",
  },
  "model.chat.after": {
    model: "gpt-x",
    content: "Here are your orders",
    tool_calls: [{ id: "c2", type: "function", function: { name: "search", arguments: "{}" } }],
    finish_reason: "tool_calls",
    usage: { input_tokens: 12, output_tokens: 5 },
    provider_request_id: "req-1",
  },
  "model.chat.chunk": { request_id: "r1", chunk_index: 0, is_last: false, delta: "Hel", model: "gpt-x" },
  "model.embedding.before": { model: "e5", texts: ["alpha", "beta", "gamma"] },
  "model.embedding.after": { model: "e5", vectors: [[0.1, 0.2], [0.3, 0.4]], dimension: 2 },
  "tool.before": { tool_id: "t-search", name: "search", revision: 3, schema: { type: "object" }, arguments: { q: "orders", limit: 500 }, call_id: "c1" },
  "tool.after": { tool_id: "t-search", name: "search", call_id: "c1", status: "succeeded", result: { rows: [1, 2] }, artifacts: [], duration_ms: 12, view: "2 rows: alice@example.com" },
  "operation.error": { operation: "tool", phase: "operation", error: { code: "TIMEOUT", message: "slow" }, real_status: "unknown", reached_binding: null },
  "operation.finally": { operation: "chat", real_status: "succeeded", outcome: "succeeded" },
  "run.start": { run_id: "run1", instance_id: "main", task: "triage" },
  "run.end": { run_id: "run1", instance_id: "main", status: "succeeded" },
  "subtask.start": { run_id: "run1", instance_id: "child-1", parent_instance_id: "main" },
  "subtask.end": { run_id: "run1", instance_id: "child-1", parent_instance_id: "main", status: "failed" },
};

/** A deep copy the test may freely change. */
export function sample<P extends PointName>(point: P): Record<string, unknown> {
  return structuredClone(SAMPLES[point]) as Record<string, unknown>;
}
