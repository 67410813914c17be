/**
 * Plugin samples: example inputs with the outcome a plugin must produce, kept in
 * `plugins/<name>/samples/*.json` and run through the real sandbox and the real pipeline
 * rules (`runStage`), exactly as a bound hook runs. Used by the tests and by `sluice test`.
 *
 * Three forms (see plugins/README.md):
 * - one stage: `{ name, point, config, payload, expect: { outcome, payload?, code?, reason?, annotations?, result?, carry? } }`
 * - a stream: `{ name, point: "model.chat.chunk", config, chunks: ["..", ".."], expect: { emitted?, blocked?: { code }, annotations?, outcomes? } }`,
 *   each chunk one chunk stage, the binding's held tail carried from one to the next;
 * - a sequence: `{ name, config, sequence: [step, ...] }`, each step a one-stage or stream
 *   sample of its own (point, payload or chunks, expect); all steps run in one space (so
 *   they share the plugin's key-value store) unless a step names another `space` label,
 *   and a before step's `carry` is handed to the next step when it is the paired after point.
 */
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { manifestGrants, manifestLimits, parseManifest, type FailurePolicy, type Manifest } from "../registry/manifest.js";
import type { HookContext, OutcomeKind } from "../../abi/envelope.js";
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import type { Binding } from "../pipeline/bindings.js";
import type { GuestPlugin, Grants, ResolvedHook } from "../engine/hooks.js";
import { getPoint, pairedBefore, type PointName } from "../pipeline/points.js";
import type { StageResult } from "../pipeline/run-steps.js";
import { joinLogs, type GuestLogs } from "../pipeline/guest-logs.js";
import { runStage } from "../engine/stage.js";
import { schemaProblem } from "../pipeline/validators.js";
import type { PluginLimits } from "../sandbox/limits.js";
import type { Sandbox } from "../sandbox/main/sandbox.js";
import { loadCompiler } from "./load-compiler.js";
import { jsonErrorPosition } from "./text-position.js";
import { diffLines } from "../objects/json-diff.js";
import { sampleProblems } from "./sample-checks.js";

// ---------------------------------------------------------------------------------------
// Manifest

/**
 * Reads `<pluginDir>/hook.yaml` with the registry's reader (registry/manifest.ts), the one
 * an upload uses: `sluice test` sees the manifest, its grants and its limits exactly as the
 * host will. MANIFEST_INVALID names the file.
 */
export async function readManifest(pluginDir: string): Promise<Manifest> {
  const file = path.join(pluginDir, "hook.yaml");
  const text = await readFile(file, "utf8");
  try {
    return parseManifest(text);
  } catch (err) {
    if (err instanceof SluiceError) throw new SluiceError(err.code, `${file}: ${err.message.replace(/^hook\.yaml: /, "")}`, err.details);
    throw err;
  }
}

export interface LoadedPlugin {
  dir: string;
  manifest: Manifest;
  plugin: GuestPlugin;
}

/**
 * Loads a plugin folder into the sandbox: its manifest, and its module with the
 * manifest's capabilities and limits. `wasm` is the built module; without it the entry is
 * compiled from source. `options.limits` overrides the manifest's (e.g. a looser time limit
 * for a test run on a busy machine).
 */
export async function loadPlugin(sandbox: Sandbox, pluginDir: string, wasm?: Uint8Array, options: { limits?: Partial<PluginLimits> } = {}): Promise<LoadedPlugin> {
  const manifest = await readManifest(pluginDir);
  // Loaded only when no module is given, from Sluice's install or the plugin's folder.
  const bytes = wasm ?? await (await loadCompiler(pluginDir)).compileAssemblyScript({ entry: path.resolve(pluginDir, manifest.entry) });
  const module = await sandbox.load(bytes, { capabilities: manifest.capabilities, limits: { ...manifestLimits(manifest), ...options.limits } });
  return {
    dir: pluginDir,
    manifest,
    plugin: { ref: `${manifest.id}@${manifest.version}`, id: manifest.id, version: manifest.version, module, grants: manifestGrants(manifest) },
  };
}

// ---------------------------------------------------------------------------------------
// Samples

export interface Expectation {
  /** The hook's outcome, or "failed" when the hook failed (its error is in `error`). */
  outcome?: OutcomeKind | "failed";
  /** The payload after the outcome was applied (whole, compared deeply). */
  payload?: Record<string, unknown>;
  /** reject / block code. */
  code?: string;
  /** A substring of the reject / block reason. */
  reason?: string;
  /** Annotations the hook must have set (only these keys are compared). */
  annotations?: Record<string, unknown>;
  /** short_circuit result. */
  result?: unknown;
  /** The carry handed to the paired after hook. */
  carry?: unknown;
  /** Error code when the hook or stage failed (e.g. HOOK_FAILED, GUEST_TIMEOUT). */
  error?: string;
  /** Streams: all the text emitted, chunk after chunk. */
  emitted?: string;
  /** Streams: the stream was blocked with this code. */
  blocked?: { code: string };
  /** Streams: the outcome at each chunk. */
  outcomes?: (OutcomeKind | "failed")[];
}

/** What a sample and a step of a sequence both give the stage. */
interface SampleInput {
  /** A step defaults to the sample's config. */
  config?: unknown;
  context?: Partial<HookContext>;
  payload?: Record<string, unknown>;
  chunks?: string[];
  /** Streams: `model` and `request_id` of the chunk payloads. */
  model?: string;
  request_id?: string;
}

export interface SampleStep extends SampleInput {
  name?: string;
  point: PointName;
  /** Runs this step under another binding id: any label. */
  binding?: string;
  /** Runs this step in another space (its own key-value store): any label. */
  space?: string;
  expect: Expectation;
}

export interface Sample extends SampleInput {
  name: string;
  /** The file it was read from. */
  file?: string;
  point?: PointName;
  expect?: Expectation;
  sequence?: SampleStep[];
}

/** Every `samples/*.json` of a plugin folder, in file-name order. */
export async function loadSamples(pluginDir: string): Promise<Sample[]> {
  const dir = path.join(pluginDir, "samples");
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(".json")).sort();
  const out: Sample[] = [];
  for (const f of files) {
    const file = path.join(dir, f);
    let sample: Sample;
    const text = await readFile(file, "utf8");
    try {
      sample = JSON.parse(text) as Sample;
    } catch (err) {
      const at = jsonErrorPosition(text, (err as Error).message);
      const message = (err as Error).message.replace(/ in JSON at position \d+.*$/, "");
      throw new SluiceError("SAMPLE_INVALID", `${file}${at ? `:${at.line}:${at.column}` : ""} is not valid JSON: ${message}${at ? ` (line ${at.line}, column ${at.column})` : ""}`, { file, ...(at ?? {}) });
    }
    if (typeof sample.name !== "string") throw new SluiceError("SAMPLE_INVALID", `${file}: "name" must be a string`, { file });
    out.push({ ...sample, file });
  }
  return out;
}

/** What one stage or stream actually did. */
export interface Actual {
  outcome?: OutcomeKind | "failed";
  payload?: Record<string, unknown>;
  code?: string;
  reason?: string;
  annotations?: Record<string, unknown>;
  result?: unknown;
  carry?: unknown;
  error?: ErrorData;
  /** Streams. */
  emitted?: string;
  /** Streams: what each chunk emitted, in order. */
  chunks?: string[];
  outcomes?: (OutcomeKind | "failed")[];
  blocked?: { code: string; reason: string; chunk: number };
  /** What the guest logged (a stream: every chunk's lines, in order). */
  logs?: GuestLogs;
}

export interface StepResult {
  name: string;
  pass: boolean;
  mismatches: string[];
  actual: Actual;
  expected: Expectation;
  durationMs: number;
  /** The most fuel one call of the hook used in this step (a stream: the costliest chunk). */
  fuel: number;
}

export interface SampleResult {
  name: string;
  file?: string;
  pass: boolean;
  /** What differs from the expectation, one line each (all steps). */
  mismatches: string[];
  actual: Actual;
  expected: Expectation;
  durationMs: number;
  /** The most fuel one call of the hook used in this sample, against `fuelLimit`, its budget per call (absent when the sample was refused before it ran). */
  fuel?: number;
  fuelLimit?: number;
  /** Set when the sample used more than half its fuel budget: it passes, but is close to failing with GUEST_FUEL_EXHAUSTED. */
  warning?: string;
  /** Sequences: every step's result. */
  steps?: StepResult[];
  /** What the guest logged in this sample (a sequence: every step's lines, in order); absent when nothing. */
  logs?: GuestLogs;
}

/** A sample that uses more than this share of its budget gets a warning (as Shopify's tooling shows instruction counts). */
export const FUEL_WARNING_SHARE = 0.5;

/** The warning for a sample that used more than half its budget, if it did. */
export function fuelWarning(fuel: number, fuelLimit: number): string | undefined {
  return fuel > fuelLimit * FUEL_WARNING_SHARE
    ? `uses ${fuel} fuel, more than half its budget of ${fuelLimit} per call (hook.yaml limits.fuel): a larger input may fail with GUEST_FUEL_EXHAUSTED`
    : undefined;
}

function withFuel<R extends { name: string }>(result: R, fuel: number, fuelLimit: number): R & { fuel: number; fuelLimit: number; warning?: string } {
  const warning = fuelWarning(fuel, fuelLimit);
  return { ...result, fuel, fuelLimit, ...(warning ? { warning } : {}) };
}

export interface RunSampleOptions {
  /** The binding's failure policy; default the manifest's, else fail-closed. */
  failurePolicy?: FailurePolicy;
  observeOnly?: boolean;
  /** The binding's time limit; default the module's. */
  timeoutMs?: number;
  /**
   * Space and binding ids. Defaults are fresh for every run (`sample-space-<random>`,
   * `sample-<plugin>-<random>`), so runs never see each other's key-value data, whichever
   * way the host scopes the store.
   */
  spaceId?: string;
  bindingId?: string;
  signal?: AbortSignal;
}

/**
 * Runs one sample through the real sandbox and pipeline: one guest hook bound alone at
 * the sample's point, with `grants` (normally the manifest's) deciding what it reads and
 * may write. Never throws for a hook's behaviour: a mismatch is a failed result.
 */
export async function runSample(sandbox: Sandbox, plugin: GuestPlugin, grants: Grants, sample: Sample, options: RunSampleOptions = {}): Promise<SampleResult> {
  const t0 = performance.now();
  const token = randomUUID().slice(0, 8);
  const bindingBase = options.bindingId ?? `sample-${plugin.id}-${token}`;
  const spaceBase = options.spaceId ?? `sample-space-${token}`;
  const withGrants: GuestPlugin = { ...plugin, grants };
  const base = { ...options, bindingId: bindingBase, spaceId: spaceBase };

  if (sample.sequence) {
    const steps: StepResult[] = [];
    let carries: Record<string, unknown> = {};
    for (const [i, step] of sample.sequence.entries()) {
      const full: SampleStep = { ...step, config: step.config ?? sample.config, context: { ...sample.context, ...step.context } };
      const bindingId = step.binding ? `${bindingBase}-${step.binding}` : bindingBase;
      const spaceId = step.space ? `${spaceBase}-${step.space}` : spaceBase;
      const r = await runStep(sandbox, withGrants, full, { ...base, bindingId, spaceId }, isAfterOf(sample.sequence[i - 1], step.point) ? carries : {});
      steps.push({ ...r, name: step.name ?? `step ${i + 1} (${step.point})` });
      carries = r.carries;
    }
    const mismatches = steps.flatMap((s) => s.mismatches.map((m) => `${s.name}: ${m}`));
    const last = steps[steps.length - 1];
    const logs = steps.reduce<GuestLogs | undefined>((all, s) => joinLogs(all, s.actual.logs), undefined);
    return withFuel({
      name: sample.name, ...(sample.file ? { file: sample.file } : {}),
      pass: mismatches.length === 0, mismatches,
      actual: last?.actual ?? {}, expected: last?.expected ?? {},
      durationMs: performance.now() - t0, steps, ...(logs ? { logs } : {}),
    }, Math.max(0, ...steps.map((s) => s.fuel)), plugin.module.limits.fuel);
  }

  if (!sample.point) throw new Error(`sample "${sample.name}": "point" is required (or a "sequence")`);
  const step: SampleStep = {
    point: sample.point, config: sample.config, context: sample.context ?? {}, expect: sample.expect ?? {},
    ...(sample.payload ? { payload: sample.payload } : {}), ...(sample.chunks ? { chunks: sample.chunks } : {}),
    ...(sample.model ? { model: sample.model } : {}), ...(sample.request_id ? { request_id: sample.request_id } : {}),
  };
  const r = await runStep(sandbox, withGrants, step, base, {});
  return withFuel({
    name: sample.name, ...(sample.file ? { file: sample.file } : {}),
    pass: r.pass, mismatches: r.mismatches, actual: r.actual, expected: r.expected, durationMs: performance.now() - t0,
    ...(r.actual.logs ? { logs: r.actual.logs } : {}),
  }, r.fuel, plugin.module.limits.fuel);
}

function isAfterOf(previous: SampleStep | undefined, point: PointName): boolean {
  return previous !== undefined && getPoint(point).stage === "after" && pairedBefore(point) === previous.point;
}

function contextFor(point: PointName, payload: Record<string, unknown> | undefined, over: Partial<HookContext> | undefined, spaceId: string): Omit<HookContext, "binding_id" | "point"> {
  const operation = getPoint(point).operation;
  const purpose = operation === "embedding" ? "embedding" : operation === "chat" ? (typeof payload?.purpose === "string" ? payload.purpose : "action") : null;
  const { binding_id: _b, point: _p, ...rest } = over ?? {};
  return {
    space_id: spaceId, actor_id: "sample-actor", run_id: "sample-run", instance_id: "main",
    operation_id: "sample-op", parent_operation_id: null, call_id: "sample-call",
    purpose, published_revision: 1, deadline: null,
    ...rest,
  };
}

interface StepRun extends Omit<StepResult, "name"> { carries: Record<string, unknown> }

async function runStep(sandbox: Sandbox, plugin: GuestPlugin, step: SampleStep, options: RunSampleOptions & { bindingId: string; spaceId: string }, carries: Record<string, unknown>): Promise<StepRun> {
  const t0 = performance.now();
  const binding: Binding = {
    id: options.bindingId, hookRef: plugin.ref, point: step.point, match: {}, priority: 100, order: 0,
    timeoutMs: options.timeoutMs ?? plugin.module.limits.timeoutMs,
    failurePolicy: options.failurePolicy ?? "fail-closed",
    observeOnly: options.observeOnly ?? false,
    config: step.config ?? {}, enabled: true, mandatory: false, pair: `ref:${plugin.ref}`,
  };
  const hooks: ResolvedHook[] = [{ kind: "guest", binding, plugin }];
  const signal = options.signal ?? new AbortController().signal;
  const spaceId = step.context?.space_id ?? options.spaceId;
  const expected = step.expect ?? {};
  let fuel = 0;
  const done = (actual: Actual, extra: string[] = [], next: Record<string, unknown> = {}): StepRun => {
    const mismatches = [...extra, ...compare(expected, actual)];
    return { pass: mismatches.length === 0, mismatches, actual, expected, durationMs: performance.now() - t0, fuel, carries: next };
  };

  if (step.chunks) {
    if (step.point !== "model.chat.chunk") return done({}, [`"chunks" is only for model.chat.chunk, not ${step.point}`]);
    const context = contextFor(step.point, undefined, step.context, spaceId);
    const actual: Actual = { emitted: "", chunks: [], outcomes: [] };
    let holds: readonly string[] = [""];
    for (const [i, delta] of step.chunks.entries()) {
      const payload = { request_id: step.request_id ?? "sample-request", chunk_index: i, is_last: i === step.chunks.length - 1, delta, model: step.model ?? "sample-model" };
      const r = await runStage(sandbox, { point: step.point, context, payload, hooks, holds, signal });
      const report = r.reports[0];
      fuel = Math.max(fuel, report?.fuel ?? 0);
      actual.outcomes!.push(report?.outcome === "skipped" || report === undefined ? "failed" : report.outcome);
      if (report?.annotations) actual.annotations = { ...actual.annotations, ...report.annotations };
      const logs = joinLogs(actual.logs, report?.logs);
      if (logs) actual.logs = logs;
      if (r.failure || report?.error) actual.error = r.failure ?? report!.error;
      if (r.failure) break;
      if (r.stop?.kind === "block") { actual.blocked = { code: r.stop.code, reason: r.stop.reason, chunk: i }; break; }
      const emitted = String(r.payload.delta ?? "");
      actual.chunks!.push(emitted);
      actual.emitted += emitted;
      holds = r.holds ?? [""];
    }
    return done(actual);
  }

  if (!step.payload) return done({}, ["the sample has neither \"payload\" nor \"chunks\""]);
  const invalid = schemaProblem(step.point, step.payload);
  if (invalid !== null) return done({}, [`the sample's payload is not a valid ${step.point} payload: ${invalid}`]);
  const context = contextFor(step.point, step.payload, step.context, spaceId);
  const r: StageResult = await runStage(sandbox, { point: step.point, context, payload: structuredClone(step.payload), hooks, carries, signal });
  const report = r.reports[0];
  fuel = report?.fuel ?? 0;
  const actual: Actual = {
    outcome: report === undefined || report.outcome === "skipped" ? "failed" : report.outcome,
    payload: r.payload,
    ...(report?.annotations ? { annotations: report.annotations } : {}),
    ...(r.failure ? { error: r.failure } : report?.error ? { error: report.error } : {}),
    ...(binding.pair in r.carries ? { carry: r.carries[binding.pair] } : {}),
    ...(report?.logs ? { logs: report.logs } : {}),
  };
  if (r.stop?.kind === "short_circuit") actual.result = r.stop.result;
  else if (r.stop) { actual.code = r.stop.code; actual.reason = r.stop.reason; }
  return done(actual, [], r.carries);
}

/** One line per difference between what was expected and what happened. */
export function compare(expected: Expectation, actual: Actual): string[] {
  const out: string[] = [];
  const show = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x));
  const errorCode = actual.error ? `${actual.error.code}${(actual.error.details as { cause?: ErrorData } | undefined)?.cause ? ` (${(actual.error.details as { cause: ErrorData }).cause.code}: ${(actual.error.details as { cause: ErrorData }).cause.message})` : `: ${actual.error.message}`}` : undefined;
  if (expected.outcome !== undefined && expected.outcome !== actual.outcome) {
    out.push(`outcome: expected ${expected.outcome}, got ${actual.outcome}${errorCode ? ` (${errorCode})` : ""}`);
  }
  if (expected.error !== undefined && expected.error !== actual.error?.code) out.push(`error: expected ${expected.error}, got ${errorCode ?? "none"}`);
  if (expected.error === undefined && expected.outcome !== "failed" && actual.error) out.push(`unexpected error: ${errorCode}`);
  if (expected.payload !== undefined && !isDeepStrictEqual(expected.payload, actual.payload)) {
    out.push(...diffLines("payload", expected.payload, actual.payload));
  }
  if (expected.code !== undefined && expected.code !== actual.code) out.push(`code: expected ${expected.code}, got ${actual.code ?? "none"}`);
  if (expected.reason !== undefined && !(actual.reason ?? "").includes(expected.reason)) out.push(`reason: expected it to contain ${show(expected.reason)}, got ${show(actual.reason)}`);
  for (const [key, value] of Object.entries(expected.annotations ?? {})) {
    if (!isDeepStrictEqual(actual.annotations?.[key], value)) out.push(`annotation ${key}: expected ${show(value)}, got ${show(actual.annotations?.[key])}`);
  }
  if ("result" in expected) out.push(...diffLines("result", expected.result, actual.result));
  if ("carry" in expected) out.push(...diffLines("carry", expected.carry, actual.carry));
  if (expected.emitted !== undefined && expected.emitted !== actual.emitted) out.push(`emitted: expected ${show(expected.emitted)}, got ${show(actual.emitted)}`);
  if (expected.blocked !== undefined && expected.blocked.code !== actual.blocked?.code) out.push(`blocked: expected code ${expected.blocked.code}, got ${actual.blocked ? actual.blocked.code : "not blocked"}`);
  if (expected.blocked === undefined && actual.blocked) out.push(`unexpected block at chunk ${actual.blocked.chunk}: ${actual.blocked.code} ${actual.blocked.reason}`);
  if (expected.outcomes !== undefined && !isDeepStrictEqual(expected.outcomes, actual.outcomes)) out.push(`outcomes: expected ${show(expected.outcomes)}, got ${show(actual.outcomes)}`);
  return out;
}

/** Runs every sample of a loaded plugin with the binding's default failure policy from its manifest. */
export async function runPluginSamples(sandbox: Sandbox, loaded: LoadedPlugin, options: RunSampleOptions = {}): Promise<SampleResult[]> {
  const samples = await loadSamples(loaded.dir);
  const out: SampleResult[] = [];
  for (const s of samples) {
    // Refused before it runs, as the server would refuse the binding.
    const problems = sampleProblems(s, loaded.manifest);
    if (problems.length > 0) {
      out.push({ name: s.name, ...(s.file ? { file: s.file } : {}), pass: false, mismatches: problems, actual: {}, expected: s.expect ?? {}, durationMs: 0 });
      continue;
    }
    out.push(await runSample(sandbox, loaded.plugin, loaded.plugin.grants, s, { failurePolicy: loaded.manifest.failure_policy, ...options }));
  }
  return out;
}
