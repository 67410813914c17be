/** Shared by the registry, API and CLI tests: temp data dirs, a small manifest, a tool call. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import type { ToolCall } from "../../host/boundary/tool.js";

export { fixture } from "../helpers/fixtures.js";

export function tempDir(prefix = "sluice-registry-"): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A manifest for a fixture guest (e.g. continue.wasm) at tool.before, with a config schema. */
export function manifestYaml(overrides: Record<string, unknown> = {}): string {
  return stringify({
    id: "clamp",
    version: "1.0.0",
    abi: "1.0",
    entry: "assembly/index.ts",
    description: "A test plugin.",
    points: { "tool.before": { read: ["/tool_id", "/name", "/arguments"], write: ["/arguments"] } },
    config_schema: { type: "object", additionalProperties: false, required: ["max_limit"], properties: { max_limit: { type: "integer", minimum: 1 } } },
    capabilities: [],
    limits: { memory_mb: 16, timeout_ms: 50, input_kb: 256, output_kb: 64 },
    failure_policy: "fail-closed",
    capability_boundary: "Governs tool arguments (validate, clamp); never generates content.",
    ...overrides,
  });
}

export const toolPayload = {
  tool_id: "orders.search", name: "search", revision: 1, schema: { type: "object" }, arguments: { q: "late", limit: 500 }, call_id: "c1",
};

export function toolCall(limit = 500): ToolCall {
  return { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: { q: "late", limit }, callId: "c1" };
}
