/**
 * The agent's own reports (abi/events/README.md: agent.initialized, agent.thought, agent.decision).
 * Sluice does not see inside the service's agent, so the service tells the host, which
 * checks the report like any other caller input (PAYLOAD_INVALID, naming the field) and
 * turns it into a validated event. Free text (a thought, a decision's reason) becomes a
 * digest unless the observer includes payloads; labels (names, capabilities, options)
 * are restricted to label characters so prose cannot slip through them.
 */
import type { Ajv2020 } from "ajv/dist/2020.js";
import { createRequire } from "node:module";
import type { EventFields } from "../../abi/events/index.js";
import { fail, type Checked } from "../pipeline/result.js";
import type { ContentDigest } from "./json-safe.js";
import { withKeys } from "../objects/with-keys.js";

const label = { type: "string", pattern: "^[A-Za-z0-9_.:@/-]{1,128}$" } as const;
const operationId = { type: "string", minLength: 1 } as const;

/** The JSON Schema of each report the service may send, as data. */
const REPORTS = {
  "agent.initialized": {
    type: "object", additionalProperties: false, required: ["type", "agentName", "capabilities"],
    properties: {
      type: { const: "agent.initialized" }, agentName: label, agentVersion: { type: "string", minLength: 1, maxLength: 64 },
      capabilities: { type: "array", maxItems: 256, uniqueItems: true, items: label },
      status: { enum: ["ready", "failed"] }, errorCode: { type: "string", pattern: "^[A-Z][A-Z0-9_]*$", maxLength: 64 },
    },
    // A failed initialisation says why, as a code.
    if: { required: ["status"], properties: { status: { const: "failed" } } }, then: { required: ["errorCode"] },
  },
  "agent.thought": {
    type: "object", additionalProperties: false, required: ["type", "content"],
    properties: {
      type: { const: "agent.thought" }, content: { type: "string" }, kind: { enum: ["analysis", "planning", "reflection", "completion", "other"] },
      step: { type: "integer", minimum: 0 }, operationId,
    },
  },
  "agent.decision": {
    type: "object", additionalProperties: false, required: ["type", "decision", "alternatives", "reason"],
    properties: {
      type: { const: "agent.decision" }, decision: label, alternatives: { type: "array", maxItems: 64, items: label },
      reason: { type: "string" }, operationId,
    },
  },
} as const;

/**
 * What the service reports about its agent.
 *
 * @example
 * host.report(ctx, { type: "agent.initialized", agentName: "planner", capabilities: ["orders.search", "summarize"] });
 * host.report(ctx, { type: "agent.decision", decision: "orders.search", alternatives: ["ask_user"], reason: "the order number is known" });
 */
export type AgentReport =
  | { type: "agent.initialized"; agentName: string; agentVersion?: string; capabilities: string[]; status?: "ready" | "failed"; errorCode?: string }
  | { type: "agent.thought"; content: string; kind?: "analysis" | "planning" | "reflection" | "completion" | "other"; step?: number; operationId?: string }
  | { type: "agent.decision"; decision: string; alternatives: string[]; reason: string; operationId?: string };

export type AgentReportType = AgentReport["type"];

let ajv: Ajv2020 | undefined;

/** PAYLOAD_INVALID naming the field, or null when the report is sound. */
export function reportProblem(report: unknown): Checked | null {
  const type = typeof report === "object" && report !== null ? (report as { type?: unknown }).type : undefined;
  if (typeof type !== "string" || !Object.hasOwn(REPORTS, type)) {
    return fail("PAYLOAD_INVALID", `report.type must be one of ${Object.keys(REPORTS).join(", ")}, got ${JSON.stringify(type)}`, { field: "report.type" });
  }
  // Required on first use, not imported: `import "sluice"` does not load Ajv.
  ajv ??= new (createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
  const validate = ajv.getSchema(type) ?? (ajv.addSchema(REPORTS[type as AgentReportType], type), ajv.getSchema(type)!);
  if (validate(report)) return null;
  const first = validate.errors![0]!;
  const field = `report${first.instancePath.replaceAll("/", ".")}${first.keyword === "required" ? `.${String(first.params.missingProperty)}` : ""}`;
  return fail("PAYLOAD_INVALID", `${type} report is invalid: ${ajv.errorsText(validate.errors, { dataVar: "report" })}`, { field });
}

type Scope = { host_id: string; space_id: string; run_id: string | null; instance_id: string };

/** The event fields of a checked report. */
export function reportFields(report: AgentReport, scope: Scope, payloads: boolean, digest: ContentDigest):
  | { type: "agent.initialized"; fields: EventFields<"agent.initialized"> }
  | { type: "agent.thought"; fields: EventFields<"agent.thought"> }
  | { type: "agent.decision"; fields: EventFields<"agent.decision"> } {
  switch (report.type) {
    case "agent.initialized": {
      const status = report.status ?? "ready";
      return {
        type: report.type,
        fields: withKeys(scope, { agent_name: report.agentName, agent_version: report.agentVersion ?? null, capabilities: [...report.capabilities], status, error_code: status === "failed" ? report.errorCode! : null }),
      };
    }
    case "agent.thought":
      return {
        type: report.type,
        fields: withKeys(scope, { operation_id: report.operationId ?? null, step: report.step ?? null, kind: report.kind ?? "other",
          content_sha256: digest(report.content), content_length: report.content.length, ...(payloads ? { content: report.content } : {}),
        }),
      };
    case "agent.decision":
      return {
        type: report.type,
        fields: withKeys(scope, { operation_id: report.operationId ?? null, decision: report.decision, alternatives: [...report.alternatives], reason_sha256: digest(report.reason), ...(payloads ? { reason: report.reason } : {}) }),
      };
  }
}
