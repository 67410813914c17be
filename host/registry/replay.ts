/**
 * Replay: a recorded operation's hook chain run again, stage by stage, on the inputs the
 * payload store kept, with one plugin swapped for another build (a local one, or another
 * stored version), to show what would change (outcomes, patches, the view) before it is
 * released. The real tool or model is never called: each stage starts from its recorded
 * input. Nothing is stored; the guests' key-value data lives in a fresh private space.
 */
import { randomUUID } from "node:crypto";
import type { Host } from "../host.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { GuestPlugin, ResolvedHook } from "../engine/hooks.js";
import { getPoint, type PointName } from "../pipeline/points.js";
import { resolveRelease } from "../pipeline/release.js";
import { runStage } from "../engine/stage.js";
import type { AuditRecord } from "../records/types.js";
import { jsonDiff, type Difference } from "../objects/json-diff.js";
import { toHostBinding } from "./binding-input.js";
import type { ReleaseRecord } from "./records.js";

export interface ReplayedHook {
  binding_id: string;
  hook_ref: string;
  /** This binding ran the replacement plugin. */
  replaced: boolean;
  recorded: { outcome: string; error_code: string | null } | null;
  replayed: { outcome: string; error_code: string | null } | null;
  changed: boolean;
}

export interface ReplayedStage {
  point: PointName;
  hooks: ReplayedHook[];
  /** How the stage's output payload would differ (JSON Pointer paths); empty when it would not. */
  output: Difference[];
  /** The recorded output was not in the payload store: only whether it changed is known. */
  output_unavailable?: boolean;
  stop: { recorded: string | null; replayed: string | null };
  changed: boolean;
}

export interface ReplayResult {
  operation_id: string;
  revision: number;
  /** The plugin put in place of its stored version. */
  replacement: string;
  stages: ReplayedStage[];
  changed: boolean;
}

export interface ReplayDeps {
  host: Host;
  release: (revision: number) => Promise<ReleaseRecord>;
  /** A stored plugin version, loaded. */
  plugin: (hookRef: string) => Promise<GuestPlugin>;
}

/** Consecutive audit rows of one point are one stage run (a mandatory recheck included). */
function stagesOf(rows: readonly AuditRecord[]): AuditRecord[][] {
  const out: AuditRecord[][] = [];
  for (const row of rows) {
    const last = out[out.length - 1];
    if (last && last[0]!.point === row.point) last.push(row);
    else out.push([row]);
  }
  return out;
}

const pluginIdOf = (ref: string): string => ref.split("@")[0]!;

/** Replays operation `operationId` with `replacement` in place of every binding of its plugin id. */
export async function replayOperation(deps: ReplayDeps, operationId: string, replacement: GuestPlugin): Promise<ReplayResult> {
  const { host } = deps;
  const store = host.records;
  const payloads = host.payloads;
  if (!store) throw new SluiceError("CONFIG_INVALID", "this server's host keeps no operation records; start it with a records store");
  const op = await store.get(operationId);
  if (!op) throw new SluiceError("OPERATION_NOT_FOUND", `no operation record ${operationId}`, { operationId });
  if (!payloads) throw new SluiceError("PAYLOADS_UNAVAILABLE", `operation ${operationId} cannot be replayed: this server keeps no payloads; start it with --payload-store (SLUICE_PAYLOAD_STORE=1) and replay an operation recorded after that`, { operationId });
  const rows = await store.audit({ operationId });
  const release = await deps.release(op.revision);
  const byId = new Map(release.bindings.map((b) => [b.id, b]));
  const signal = AbortSignal.timeout(60_000);
  const kvSpace = `replay\u0000${randomUUID()}`;
  const ctx = op.identity.ctx;
  const context = {
    space_id: ctx.spaceId, actor_id: ctx.actorId ?? null, run_id: ctx.runId ?? null, instance_id: ctx.instanceId ?? "main",
    operation_id: op.operationId, parent_operation_id: op.parentOperationId, call_id: op.identity.callId ?? null, purpose: ctx.purpose ?? null,
    published_revision: op.revision, deadline: null,
  };
  const stages: ReplayedStage[] = [];
  let carries: Record<string, unknown> = {};
  for (const group of stagesOf(rows)) {
    const point = group[0]!.point;
    const input = (await payloads.get(group[0]!.inputDigest)) as Record<string, unknown> | undefined;
    if (input === undefined) {
      throw new SluiceError("PAYLOADS_UNAVAILABLE", `operation ${operationId} cannot be replayed: the input of its ${point} stage is not in the payload store (expired, or recorded before the store was enabled)`, { operationId, point });
    }
    const ids = [...new Set(group.map((r) => r.bindingId))];
    const hooks: ResolvedHook[] = [];
    for (const id of ids) {
      const spec = byId.get(id);
      if (!spec) throw new SluiceError("BINDING_NOT_FOUND", `binding ${id} of operation ${operationId} is not in its release ${op.revision}; it cannot be replayed`, { binding: id });
      const swapped = pluginIdOf(spec.hook_ref) === replacement.id;
      const plugin = swapped ? replacement : await deps.plugin(spec.hook_ref);
      const [binding] = resolveRelease({ revision: op.revision, bindings: [{ ...toHostBinding(spec), hookRef: plugin.ref }] }).bindings;
      hooks.push({ kind: "guest", binding: binding!, plugin });
    }
    const stage = getPoint(point).stage;
    const result = await runStage(host.sandbox, { point, context, payload: structuredClone(input), hooks, ...(stage === "after" ? { carries } : {}), signal, kvSpace });
    if (stage === "before") carries = result.carries;
    const replayedHooks: ReplayedHook[] = group.map((row, i) => {
      const report = result.reports[i];
      const recorded = { outcome: row.outcome, error_code: row.errorCode };
      const replayed = report ? { outcome: report.outcome, error_code: report.error?.code ?? null } : null;
      return {
        binding_id: row.bindingId, hook_ref: report?.hookRef ?? row.hookRef, replaced: pluginIdOf(row.hookRef) === replacement.id, recorded, replayed,
        changed: replayed === null || replayed.outcome !== recorded.outcome || replayed.error_code !== recorded.error_code,
      };
    });
    for (const report of result.reports.slice(group.length)) {
      replayedHooks.push({ binding_id: report.bindingId, hook_ref: report.hookRef, replaced: pluginIdOf(report.hookRef) === replacement.id, recorded: null, replayed: { outcome: report.outcome, error_code: report.error?.code ?? null }, changed: true });
    }
    const recordedOutputRef = group[group.length - 1]!.outputDigest;
    const recordedOutput = await payloads.get(recordedOutputRef);
    const outputChanged = host.digestOf(result.payload) !== recordedOutputRef;
    const output = recordedOutput !== undefined ? jsonDiff(recordedOutput, result.payload) : [];
    const recordedStop = group.find((r) => ["reject", "block", "short_circuit", "ask"].includes(r.outcome));
    const stop = { recorded: recordedStop ? `${recordedStop.outcome} by ${recordedStop.bindingId}` : null, replayed: result.stop ? `${result.stop.kind} by ${result.stop.bindingId}` : result.failure ? `failed: ${result.failure.code}` : null };
    stages.push({
      point, hooks: replayedHooks, output, ...(recordedOutput === undefined && outputChanged ? { output_unavailable: true } : {}), stop,
      changed: outputChanged || replayedHooks.some((h) => h.changed) || stop.recorded !== stop.replayed,
    });
  }
  return { operation_id: operationId, revision: op.revision, replacement: replacement.ref, stages, changed: stages.some((s) => s.changed) };
}
