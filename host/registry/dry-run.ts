/**
 * Trying a plugin version on sample input, as the management flow's "test with sample
 * input" step: the real sandbox and the real pipeline core, one synthetic binding, no
 * release involved. Nothing is stored. Key-value data lives per (space, plugin), so the
 * dry run's guest gets a fresh space of its own every time: it sees an empty, private
 * store, whatever `context.space_id` the sample names (which the hook still sees).
 */
import { levelName } from "../pipeline/guest-logs.js";
import { randomUUID } from "node:crypto";
import type { OutcomeKind } from "../../abi/envelope.js";
import type { ErrorData } from "../errors/sluice-error.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { GuestPlugin } from "../engine/hooks.js";
import { isPointName, type PointName } from "../pipeline/points.js";
import { resolveRelease } from "../pipeline/release.js";
import type { Stop } from "../pipeline/run-steps.js";
import { runStage } from "../engine/stage.js";
import { validatePayload } from "../pipeline/validators.js";
import type { Sandbox } from "../sandbox/main/sandbox.js";
import { checkConfig } from "./config-schema.js";
import type { PluginRecord } from "./records.js";

/** A dry run of one stored plugin: the point, the payload and the config to run it with. */
export interface DryRunInput {
  point: PointName;
  payload: Record<string, unknown>;
  config?: unknown;
  /** Context fields the hook sees; the rest are filled with dry-run values. */
  context?: { space_id?: string; instance_id?: string; purpose?: string; actor_id?: string; run_id?: string; call_id?: string };
}

/** What a dry run returned: the plugin's outcome, logs and timing. */
export interface DryRunResult {
  ref: string;
  point: PointName;
  /** What the hook decided, or `failed` (then `error` says why). */
  outcome: OutcomeKind | "failed" | "skipped";
  /** The payload after the hook's validated patch (the input, unchanged, when it did not patch). */
  payload: Record<string, unknown>;
  changed: boolean;
  /** Set on reject, block and short_circuit. */
  stop?: Stop;
  error?: ErrorData;
  annotations?: Record<string, unknown>;
  /** What the guest logged, its lines in full: the author's own test run, answered and never stored. */
  logs?: { lines: { level: string; message: string }[]; dropped: number };
  /** Time inside the guest call. */
  duration_ms: number;
  /** Fuel the guest call used, and its budget per call (abi/README.md §11). */
  fuel: number;
  fuel_limit: number;
  /** Wall time of the whole dry run, including the thread hop. */
  total_ms: number;
}

/** Checks the sample against the plugin's manifest and the point, then runs it once. */
export async function dryRun(sandbox: Sandbox, record: PluginRecord, plugin: GuestPlugin, input: DryRunInput): Promise<DryRunResult> {
  const ref = `${record.id}@${record.version}`;
  if (!isPointName(input.point) || !(input.point in record.manifest.points)) {
    throw new SluiceError("BINDING_INVALID", `${ref} does not declare the point ${String(input.point)} (it declares ${Object.keys(record.manifest.points).join(", ")})`, { field: "point" });
  }
  const config = input.config ?? {};
  checkConfig(record.manifest.config_schema, config, ref);
  const checked = validatePayload(input.point, input.payload);
  if (!checked.ok) throw new SluiceError(checked.error.code, checked.error.message, checked.error.details ?? {});
  const binding = resolveRelease({
    revision: 0,
    bindings: [{ id: `dry-run-${randomUUID()}`, hookRef: ref, point: input.point, config, failurePolicy: "fail-closed" }],
  }).bindings[0]!;
  const c = input.context ?? {};
  const started = performance.now();
  const result = await runStage(sandbox, {
    point: input.point,
    context: {
      space_id: c.space_id ?? "dry-run", actor_id: c.actor_id ?? null, run_id: c.run_id ?? null, instance_id: c.instance_id ?? "main",
      operation_id: randomUUID(), parent_operation_id: null, call_id: c.call_id ?? null, purpose: c.purpose ?? null,
      published_revision: 0, deadline: null,
    },
    payload: input.payload,
    hooks: [{ kind: "guest", binding, plugin }],
    signal: AbortSignal.timeout(Math.max(1000, plugin.module.limits.timeoutMs * 4)),
    // Never a tenant's data: a dry run with space_id "acme" must not read acme's cache.
    kvSpace: `dry-run\u0000${randomUUID()}`,
  });
  const report = result.reports[0];
  const cause = result.failure?.details?.cause as ErrorData | undefined;
  return {
    ref,
    point: input.point,
    outcome: report?.outcome ?? "skipped",
    payload: result.payload,
    changed: JSON.stringify(result.payload) !== JSON.stringify(input.payload),
    ...(result.stop ? { stop: result.stop } : {}),
    ...(report?.error ?? cause ?? result.failure ? { error: report?.error ?? cause ?? result.failure } : {}),
    ...(report?.annotations ? { annotations: report.annotations } : {}),
    // The author's own test run, answered and not stored: the guest's lines in full.
    ...(report?.logs ? { logs: { lines: report.logs.lines.map((l) => ({ level: levelName(l.level), message: l.message })), dropped: report.logs.dropped } } : {}),
    duration_ms: report?.durationMs ?? 0,
    fuel: report?.fuel ?? 0,
    fuel_limit: plugin.module.limits.fuel,
    total_ms: Math.round((performance.now() - started) * 1000) / 1000,
  };
}
