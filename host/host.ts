import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { SluiceError, type ErrorData } from "./errors/sluice-error.js";
import { afterOrder, matchBindings, type Binding, type MatchTarget } from "./pipeline/bindings.js";
import type { GuestPlugin, Grants, InProcessHook, InProcessHookOptions, ResolvedHook } from "./pipeline/hooks.js";
import { getPoint, isPointName, type PointName } from "./pipeline/points.js";
import { chunkOrder } from "./pipeline/mandatory.js";
import { resolveRelease, type Release, type ReleaseInput } from "./pipeline/release.js";
import type { StageResult } from "./pipeline/run-steps.js";
import { runChunkStages, runStage } from "./pipeline/stage.js";
import { streamPlan } from "./pipeline/stream-rewrite.js";
import { embeddingIndexSignature } from "./pipeline/signature.js";
import type { Capability } from "./sandbox/capabilities.js";
import type { PluginLimits } from "./sandbox/limits.js";
import { Sandbox, type SandboxOptions } from "./sandbox/sandbox.js";
import type { OperationStages, StageRunner } from "./boundary/stage-runner.js";
import type { CallContext } from "./boundary/types.js";
import { instanceOf } from "./boundary/instance.js";
import { operationSignal } from "./boundary/operation-signal.js";
import { chat, type ChatRequest, type ChatResponse } from "./boundary/chat.js";
import { guarded, thrownError } from "./boundary/guard.js";
import { optionsProblem, withErrorMode } from "./boundary/error-mode.js";
import { chatStream, type ChatStream, type StreamChunk } from "./boundary/stream.js";
import { argumentsValidator, tool, type ToolCall, type ToolOutput } from "./boundary/tool.js";
import { embed, type EmbedRequest, type EmbedOutput, type EmbedOptions } from "./boundary/embed.js";
import { lifecycle, type LifecyclePoint } from "./boundary/lifecycle.js";
import type { BoundaryOptions, BoundaryResult, OperationContext } from "./boundary/types.js";
import type { OperationStore, PayloadStore } from "./records/store.js";
import type { OperationRecord } from "./records/types.js";
import { OperationJournal } from "./records/journal.js";
import { createDigester, ephemeralDigester, keyReports, type Digester } from "./records/digest.js";
import { recordedStages } from "./records/recorded-stages.js";
import { resumeOperation, type ResumeOptions } from "./records/resume.js";
import { DEFAULT_OPERATION_LEASE_MS, OwnerLease } from "./records/lease.js";
import type { Checked } from "./pipeline/result.js";
import { PluginQuarantine, type QuarantineControl, type QuarantineEvent, type QuarantineEvents } from "./reliability/plugin-quarantine.js";
import type { QuarantinePolicy } from "./reliability/quarantine.js";
import type { QuarantineStore } from "./reliability/quarantine-store.js";
import { createObserver, type Observer } from "./events/observer.js";
import type { AgentReport } from "./events/agent-report.js";
import { callProblem, checkedCall, contextProblem, refusedCall, toolCallProblem } from "./boundary/call-context.js";
import { withKeys } from "./objects/with-keys.js";

/** Options of {@link createHost}: the sandbox's, plus the host's identity, records, observer and failure handling. */
export interface HostOptions extends SandboxOptions {
  /**
   * When a plugin that keeps faulting (traps, timeouts, bad output) stops being run.
   * Default: 5 faults within 60 s, until an operator lifts it. `false` turns it off.
   */
  quarantine?: Partial<QuarantinePolicy> | false;
  /** Where quarantine decisions are shared with the other hosts of a fleet (the Registry sets it on a shared database). */
  quarantineStore?: QuarantineStore;
  /** Events, spans and metrics of this host (abi/events/README.md); a fresh one by default. */
  observer?: Observer;
  /** Names this host in its events (`host_id`), so hosts sharing an observer or a database stay apart. A random UUID by default. */
  hostId?: string;
  /**
   * Operation records and hook audit (issue #8): persisted at each phase boundary so an
   * operation cut off after its real call can be resumed without calling it again.
   * Absent: nothing is recorded and calls pay nothing for it.
   */
  records?: OperationStore;
  /** Opt-in: full payloads by digest, kept for the store's retention period. Needs `records`. */
  payloads?: PayloadStore;
  /**
   * How long this host's claim on the operations it runs outlives its last heartbeat
   * (renewed every third of it). A peer sharing the records takes over (resumes, or marks
   * interrupted) an operation of this host only once it is closed or this long silent.
   * Default 15 s. Needs `records`.
   */
  operationLeaseMs?: number;
  /**
   * Key of every digest that can cover user data (records, audit, payload refs, the
   * hooks' patch and output digests): at least 16 bytes, e.g. 32 random ones. Default: a
   * random key per host, so digests compare within this process only; a Registry keeps
   * one in its data folder.
   */
  digestSecret?: Uint8Array | string;
  /**
   * Told of each unfinished operation whose record {@link Host.recover} cannot open (changed
   * or damaged at rest): its id and the RECORD_UNREADABLE error, which names the row and
   * never its content. Recovery goes on with the others; that record is left as it is, and
   * resuming it is refused with the same code. Default: a process warning naming the id.
   */
  onRecordUnreadable?: (event: { operationId: string; error: ErrorData }) => void;
}

/** Events the host emits; see {@link Host.on}. */
export type HostEvents = QuarantineEvents;

/**
 * A guest plugin to load into a host: its id, version, module and what its manifest grants (see `pluginInput` in `sluice/registry` to derive it from a hook.yaml).
 */
export interface PluginInput {
  id: string;
  version: string;
  /** The module's bytes: read, never changed or detached (the host copies what it sends to its threads). */
  wasm: Uint8Array | ArrayBuffer;
  grants?: Grants;
  capabilities?: readonly Capability[];
  limits?: Partial<PluginLimits>;
}

/** Targets whose matched hooks are kept per release before the cache starts over. */
const MATCH_CACHE_SIZE = 4096;

/**
 * The host a Node service wraps its model, tool and embedding calls with.
 *
 * @example
 * const host = createHost();
 * await host.loadPlugin({ id: "order-search-limit", version: "1.0.0", wasm });
 * host.activate({ revision: 1, bindings: [{ id: "b1", hookRef: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 100 } }] });
 * const r = await host.tool({ spaceId: "s1" }, { toolId: "orders.search", name: "search", schema, arguments: { limit: 500 }, callId: "c1" }, (args) => search(args));
 * if (r.ok) console.log(r.output.view);
 */
export class Host implements StageRunner {
  readonly sandbox: Sandbox;
  private readonly plugins = new Map<string, GuestPlugin>();
  private readonly inProcess = new Map<string, { hook: InProcessHook; options: InProcessHookOptions }>();
  private matched = new WeakMap<Release, Map<string, ResolvedHook[]>>();
  private current: Release = resolveRelease({ revision: 0, bindings: [] });
  private currentSince: number | null = null;
  private readonly events = new EventEmitter();
  private readonly guard: PluginQuarantine;
  /** Validated events (`host.observer.on(...)`), spans and metrics (`host.observer.registry`). */
  readonly observer: Observer;
  /** The `host_id` of this host's events. */
  readonly id: string;
  private readonly detachPool: () => void;
  private readonly recordStore: OperationStore | undefined;
  private readonly onRecordUnreadable: NonNullable<HostOptions["onRecordUnreadable"]>;
  private readonly payloadStore: PayloadStore | undefined;
  private readonly lease: OwnerLease | undefined;
  /** The release of each operation in flight, so its children run on it. */
  private readonly inFlight = new Map<string, Release>();
  private readonly digests: Digester;
  /** Events digest payload values with the deployment's key, as records do. */
  private readonly eventDigest = (value: unknown): string => this.digests.of(value);

  constructor(options: HostOptions = {}) {
    const { quarantine, quarantineStore, observer, records, payloads, hostId, digestSecret, operationLeaseMs, onRecordUnreadable, ...sandboxOptions } = options;
    if (hostId !== undefined && (typeof hostId !== "string" || hostId === "")) throw new SluiceError("CONFIG_INVALID", "the hostId option must be a non-empty string");
    this.id = hostId ?? randomUUID();
    this.digests = digestSecret !== undefined ? createDigester(digestSecret) : ephemeralDigester();
    if (payloads && !records) throw new SluiceError("CONFIG_INVALID", "the payloads option needs the records option: payloads are kept for the operations the records store describes");
    if (operationLeaseMs !== undefined && !(Number.isFinite(operationLeaseMs) && operationLeaseMs > 0)) throw new SluiceError("CONFIG_INVALID", `operationLeaseMs must be a positive number of milliseconds, got ${String(operationLeaseMs)}`);
    this.recordStore = records;
    this.onRecordUnreadable = onRecordUnreadable ?? ((e) => process.emitWarning(`${e.error.code}: ${e.error.message}; left as it is, never resumed until an operator repairs or deletes it`, { code: e.error.code, detail: `operation ${e.operationId}` }));
    this.payloadStore = payloads;
    this.lease = records && new OwnerLease(records, this.id, operationLeaseMs ?? DEFAULT_OPERATION_LEASE_MS);
    this.sandbox = new Sandbox(sandboxOptions);
    this.observer = observer ?? createObserver();
    this.detachPool = this.observer.attachPool(this.sandbox);
    this.guard = new PluginQuarantine(quarantine ?? {}, (e) => this.emit(e), Date.now, quarantineStore);
  }

  /**
   * Quarantined plugins, for operators: list them, lift one.
   *
   * @example
   * for (const q of host.quarantine.list()) console.log(q.ref, q.lastError.code);
   * host.quarantine.lift("order-search-limit@1.0.0");
   */
  get quarantine(): QuarantineControl {
    return this.guard;
  }

  /**
   * Subscribes to a host event; returns the unsubscribe function. A listener that throws
   * never fails a call: its error becomes a process warning.
   *
   * @example
   * host.on("plugin.quarantined", (q) => alert(`${q.ref} quarantined: ${q.lastError.code}`));
   */
  on<K extends keyof HostEvents>(event: K, listener: (data: HostEvents[K]) => void): () => void {
    this.events.on(event, listener);
    return () => this.events.off(event, listener);
  }

  private emit(event: QuarantineEvent): void {
    this.observer.quarantine(event, this.current.bindings, this.id);
    for (const listener of this.events.listeners(event.type)) {
      try { (listener as (data: unknown) => void)(event.data); } catch (err) { process.emitWarning(`a ${event.type} listener threw: ${(err as Error)?.message ?? String(err)}`); }
    }
  }

  /** Validates, caps and compiles a guest plugin and makes it available as `id@version`. */
  async loadPlugin(input: PluginInput): Promise<GuestPlugin> {
    const ref = `${input.id}@${input.version}`;
    const module = await this.sandbox.load(input.wasm, { capabilities: input.capabilities ?? [], ...(input.limits ? { limits: input.limits } : {}) });
    const existing = this.plugins.get(ref);
    if (existing && existing.module.sha256 !== module.sha256) {
      throw new SluiceError("CONFIG_INVALID", `plugin ${ref} is already loaded with different code; versions are immutable`, { ref });
    }
    const plugin: GuestPlugin = { ref, id: input.id, version: input.version, module, grants: input.grants ?? {} };
    this.plugins.set(ref, plugin);
    this.matched = new WeakMap();
    return plugin;
  }

  /**
   * Registers a trusted in-process TypeScript hook, referred to by `name` in bindings.
   * `options.streamRewrite: "chunk"` declares what a guest declares in hook.yaml: its chunk
   * hook is its stream rewrite, so on a stream its model.chat.after hook judges read-only.
   *
   * @example host.registerHook("redact", redactHook, { streamRewrite: "chunk" });
   */
  registerHook(name: string, hook: InProcessHook, options: InProcessHookOptions = {}): void {
    if (name.includes("@")) throw new SluiceError("CONFIG_INVALID", `in-process hook names cannot contain "@" (reserved for plugin refs): ${name}`);
    if (options.streamRewrite !== undefined && options.streamRewrite !== "chunk") throw new SluiceError("CONFIG_INVALID", `registerHook ${name}: streamRewrite must be "chunk" when given, got ${JSON.stringify(options.streamRewrite)}`, { field: "streamRewrite" });
    this.inProcess.set(name, { hook, options: options.streamRewrite ? { streamRewrite: options.streamRewrite } : {} });
    this.matched = new WeakMap();
  }

  /** Atomically switches to a release. Operations already running finish on the one they started with. */
  activate(input: ReleaseInput): Release {
    const release = resolveRelease(input);
    for (const b of release.bindings) this.resolve(b);
    this.current = release;
    this.currentSince = Date.now();
    this.observer.releaseActivated(release, this.id);
    return release;
  }

  get release(): Release {
    return this.current;
  }

  /** When this host switched to {@link release} (epoch ms); null before its first activation. */
  get releaseSince(): number | null {
    return this.currentSince;
  }

  private resolve(binding: Binding): ResolvedHook {
    const plugin = this.plugins.get(binding.hookRef);
    if (plugin) return { kind: "guest", binding, plugin };
    const registered = this.inProcess.get(binding.hookRef);
    if (registered) return { kind: "in-process", binding, hook: registered.hook, options: registered.options };
    throw new SluiceError("CONFIG_INVALID", `binding ${binding.id} refers to "${binding.hookRef}", which is neither a loaded plugin (id@version) nor a registered in-process hook`, { binding: binding.id });
  }

  /**
   * The hooks a release runs at `point` for `target`. A release never changes, so the match
   * is kept per release (and dropped when a plugin or hook is registered); the arrays are
   * shared and never modified.
   */
  private hooksFor(release: Release, point: PointName, target: MatchTarget): ResolvedHook[] {
    let byTarget = this.matched.get(release);
    if (!byTarget) this.matched.set(release, (byTarget = new Map()));
    const key = `${point}\u0000${target.purpose ?? ""}\u0000${target.toolId ?? ""}\u0000${target.modelId ?? ""}\u0000${target.instance}\u0000${this.byInstanceId(release, point) ? target.instanceId ?? "" : ""}\u0000${target.spaceId}`;
    let hooks = byTarget.get(key);
    if (!hooks) {
      if (byTarget.size >= MATCH_CACHE_SIZE) byTarget.clear();
      hooks = matchBindings(release.byPoint.get(point) ?? [], point, target).map((b) => this.resolve(b));
      byTarget.set(key, hooks);
    }
    return hooks;
  }

  /** Whether a binding at `point` filters by instance id: only then does the instance id take part in the match cache's key (child ids are many). */
  private byInstanceId(release: Release, point: PointName): boolean {
    return (release.byPoint.get(point) ?? []).some((b) => b.match.instanceIds !== undefined);
  }

  begin(ctx: CallContext, target: MatchTarget, callId?: string): OperationStages {
    return this.stagesFor(ctx, target, callId);
  }

  /** `resuming`: the stored operation a resume continues (same id), on the current release. */
  private stagesFor(ctx: CallContext, matchTarget: MatchTarget, callId: string | undefined, resuming?: OperationRecord): OperationStages {
    // A child's operations run on the release of the parent operation in flight: a child's chain never differs from what its parent's release allows.
    const release = (!resuming && ctx.parentOperationId !== undefined ? this.inFlight.get(ctx.parentOperationId) : undefined) ?? this.current;
    const target: MatchTarget = withKeys(matchTarget, { instanceId: matchTarget.instanceId ?? ctx.instanceId ?? "main" });
    const operationId = resuming?.operationId ?? randomUUID();
    this.inFlight.set(operationId, release);
    const { signal, release: releaseSignal } = operationSignal(ctx.signal, ctx.deadline);
    const context = {
      space_id: ctx.spaceId, actor_id: ctx.actorId ?? null, run_id: ctx.runId ?? null, instance_id: ctx.instanceId ?? "main",
      operation_id: operationId, parent_operation_id: ctx.parentOperationId ?? null, call_id: callId ?? null,
      purpose: target.purpose ?? null, published_revision: release.revision, deadline: ctx.deadline ?? null,
    };
    const at = (point: PointName): readonly Binding[] => release.byPoint.get(point) ?? [];
    const hooksAt = (point: PointName): ResolvedHook[] => this.hooksFor(release, point, target);
    type Extra = { carries?: Record<string, unknown>; holds?: readonly string[]; readOnly?: ReadonlySet<string>; progress?: (bindingId: string) => void };
    const run = (point: PointName, payload: Record<string, unknown>, hooks: ResolvedHook[], extra: Extra = {}): Promise<StageResult> =>
      hooks.length === 0
        ? Promise.resolve({ payload, reports: [], reached: -1, carries: {}, ...(extra.holds ? { holds: [...extra.holds] } : {}) })
        : runStage(this.sandbox, { point, context, payload, hooks, signal, guard: this.guard, ...extra }).then((r) => keyReports(r, this.digests));
    // The hooks of a stage that pairs with the before stage (after, chunk): ordered by the release's mode, unwinding a short-circuit.
    const paired = (point: PointName, before: StageResult): ResolvedHook[] => {
      const beforeHooks = before.reports.length > 0 || before.stop ? matchBindings(at(beforePointOf(point)), beforePointOf(point), target) : [];
      const unwind = before.stop?.kind === "short_circuit" ? { before: beforeHooks, reached: before.reached + 1 } : undefined;
      const order = afterOrder(matchBindings(at(point), point, target), release.orderMode, unwind);
      return (point === "model.chat.chunk" ? chunkOrder(order) : order).map((b) => this.resolve(b));
    };
    // Chunk stages pair with the before stage this operation ran (its carries, its short-circuit).
    let lastBefore: StageResult | undefined;
    let chunkHooks: ResolvedHook[] | undefined;
    const chunkStage = () => (chunkHooks ??= paired("model.chat.chunk", lastBefore ?? { payload: {}, reports: [], reached: -1, carries: {} }));
    let afterProgress: ((point: PointName, bindingId: string) => void) | undefined;
    const stages: OperationStages = {
      operationId,
      revision: release.revision,
      signal,
      run: (point, payload) => run(point, payload, hooksAt(point)).then((r) => { if (getPoint(point).stage === "before") { lastBefore = r; chunkHooks = undefined; } return r; }),
      runAfter: (point, payload, before, readOnly) => run(point, payload, paired(point, before), {
        carries: before.carries,
        ...(readOnly && readOnly.size > 0 ? { readOnly } : {}),
        ...(afterProgress ? { progress: (bindingId: string) => afterProgress!(point, bindingId) } : {}),
      }),
      // A fresh signal: cleanup hooks must run even when the operation was cancelled.
      diagnostic: (point, payload) => {
        const hooks = hooksAt(point);
        return hooks.length === 0 ? run(point, payload, []) : runStage(this.sandbox, { point, context, payload, hooks, signal: AbortSignal.timeout(10_000), guard: this.guard }).then((r) => keyReports(r, this.digests));
      },
      outputMayChange: (point) => hooksAt(point).some((h) => !h.binding.observeOnly),
      streamPlan: (before) => streamPlan(paired("model.chat.chunk", before), paired("model.chat.after", before)),
      chunk: (payload, holds) => run("model.chat.chunk", payload, chunkStage(), { holds, carries: lastBefore?.carries ?? {} }),
      chunks: (payloads, holds) => {
        const hooks = chunkStage();
        if (hooks.length === 0) return Promise.resolve(payloads.map((payload) => ({ payload, reports: [], reached: -1, carries: {}, holds: [...holds] })));
        return runChunkStages(this.sandbox, { point: "model.chat.chunk", context, payloads, hooks, signal, guard: this.guard, holds, carries: lastBefore?.carries ?? {} });
      },
      end: () => { releaseSignal(); this.inFlight.delete(operationId); },
    };
    if (!this.recordStore) return stages;
    const { signal: _signal, deadline: _deadline, ...identityCtx } = ctx;
    const journal = new OperationJournal({
      store: this.recordStore, payloads: this.payloadStore, digests: this.digests, operationId, owner: this.id, revision: release.revision,
      identity: { ctx: identityCtx, target, ...(callId !== undefined ? { callId } : {}) },
      codeOf: (bindingId) => {
        const binding = release.bindings.find((b) => b.id === bindingId);
        const h = binding && this.resolve(binding);
        return { hookRef: binding?.hookRef ?? "", codeSha256: h?.kind === "guest" ? h.plugin.module.sha256 : "in-process" };
      },
      ...(resuming ? { resuming } : {}),
    });
    // The checkpoint names the binding in progress while an after hook runs (seed 000); the after stage then runs hook by hook.
    afterProgress = (point, bindingId) => journal.inProgress(point, bindingId);
    return recordedStages(stages, journal);
  }

  /**
   * The keyed digest this host records for `value` (records/digest.ts): how an auditor
   * holding a payload checks it against `realResultRef`, an audit row's digests, and so on.
   */
  digestOf(value: unknown): string {
    return this.digests.of(value);
  }

  /** The records store given in the options (query operations and audit through it), if any. */
  get records(): OperationStore | undefined {
    return this.recordStore;
  }

  /** The opt-in payload store given in the options (what replay reads stage inputs from), if any. */
  get payloads(): PayloadStore | undefined {
    return this.payloadStore;
  }

  /**
   * Continues an operation whose real execution finished but whose after processing did
   * not (a fail-closed after hook failed, the call was cancelled, the process died): runs
   * the after stage of the CURRENT release on the stored real result and returns what an
   * uninterrupted run returns. The tool or model is never called again. Operations whose
   * real status is unknown are refused (OPERATION_NOT_RESUMABLE): the service decides.
   * The host first claims the operation in the records: while another live host (or this
   * one) runs it, the answer is OPERATION_BUSY, so two hosts never resume the same one.
   *
   * @example
   * const records = openSqliteRecords("data/sluice.db");
   * const host = createHost({ records });
   * await host.recover();                    // "running" records of a dead process become "unknown"
   * host.activate(fixedRelease);             // e.g. a corrected after hook
   * for (const op of await records.list({ phase: "after" })) {
   *   const r = await host.resume(op.operationId, { signal: AbortSignal.timeout(30_000) });
   *   if (r.ok) deliver(r.output);
   * }
   */
  resume(operationId: string, options: ResumeOptions = {}): Promise<BoundaryResult<unknown>> {
    return guarded(this.revisionNow, () => {
      const store = this.recordStore;
      if (!store) throw new SluiceError("CONFIG_INVALID", "host.resume needs a records store: createHost({ records: openSqliteRecords(file) })");
      if (typeof operationId !== "string" || operationId === "") throw new SluiceError("PAYLOAD_INVALID", "operationId must be a non-empty string", { field: "operationId" });
      return resumeOperation({
        owner: this.id,
        resumeStages: (record, ctx) => this.stagesFor(ctx, record.identity.target, record.identity.callId, record),
        embeddingSignature: (ctx, model) => this.embeddingSignature(ctx, model),
      }, store, operationId, (typeof options === "object" && options !== null ? options : {}) as ResumeOptions);
    });
  }

  /**
   * Run once at start-up: marks "unknown" every operation still "running" whose host is
   * gone (this host's own earlier run, or a peer whose lease ended; whether the call took
   * effect is unknown, so it is never retried automatically), and lets go of the
   * unfinished operations such hosts held. Operations of live peers are left alone.
   * Returns the ids that became unknown. A record it cannot open stops nothing: it goes to
   * `onRecordUnreadable` (see {@link HostOptions}) and the others are recovered.
   */
  async recover(): Promise<string[]> {
    if (!this.recordStore) return [];
    await this.lease!.renew();
    return this.recordStore.markInterrupted(this.id, Date.now(), (operationId, error) => {
      try { this.onRecordUnreadable({ operationId, error: error.toData() }); } catch (err) { process.emitWarning(`an onRecordUnreadable listener threw: ${(err as Error)?.message ?? String(err)}`); }
    });
  }

  /**
   * Wraps one chat model call. Never throws or rejects: every failure is a result with a
   * catalogue code, unless `options.errorMode` is `"original"` (see {@link BoundaryOptions}).
   */
  chat(ctx: CallContext, request: ChatRequest, execute: (request: ChatRequest, op: OperationContext) => Promise<ChatResponse>, options?: BoundaryOptions): Promise<BoundaryResult<ChatResponse>> {
    return withErrorMode(options, guarded(this.revisionNow, () => {
      const obs = this.observer.operation({ operation: "chat", ctx, model: modelOf(request) }, this.id, this.eventDigest);
      return obs.settle(checkedCall(callProblem(ctx, request, "request") ?? optionsProblem(options), this.current.revision, () => obs.within(() => chat(obs.runner(this), ctx, request, execute, options))));
    }));
  }

  /**
   * Wraps one streamed chat model call: iterate the returned stream for the effective
   * chunks. The call never throws and `result` never rejects; iterating throws the error
   * that ended the stream (the wrapped source's own error with `errorMode: "original"`).
   */
  chatStream(ctx: CallContext, request: ChatRequest, execute: (request: ChatRequest, op: OperationContext) => AsyncIterable<StreamChunk>, options?: Pick<BoundaryOptions, "errorMode">): ChatStream {
    let refusal: Promise<BoundaryResult<ChatResponse>> | undefined;
    try {
      const obs = this.observer.operation({ operation: "chat", ctx, model: modelOf(request), streamed: true }, this.id, this.eventDigest);
      const refused = callProblem(ctx, request, "request") ?? optionsProblem(options);
      if (refused) refusal = obs.settle(Promise.resolve(refusedCall<ChatResponse>(refused, this.current.revision)));
      else {
        const stream = chatStream(obs.runner(this), ctx, request, execute, options);
        return { ...stream, result: guarded(this.revisionNow, () => obs.settle(stream.result)) };
      }
    } catch (err) {
      refusal = guarded<ChatResponse>(this.revisionNow, () => { throw err; });
    }
    return { result: guarded(this.revisionNow, () => refusal!), async *[Symbol.asyncIterator]() { /* refused: nothing to stream */ } };
  }

  /** Wraps one tool call. `finalCheck` adds the service's authorization and path rules to the schema check. Never throws or rejects (see {@link BoundaryOptions.errorMode}). */
  tool(ctx: CallContext, call: ToolCall, execute: (args: Record<string, unknown>, op: OperationContext) => Promise<unknown>, options?: BoundaryOptions & { finalCheck?: (args: Record<string, unknown>) => Checked | boolean | string }): Promise<BoundaryResult<ToolOutput>> {
    return withErrorMode(options, guarded(this.revisionNow, () => {
      const obs = this.observer.operation({ operation: "tool", ctx, call }, this.id, this.eventDigest);
      return obs.settle(checkedCall(toolCallProblem(ctx, call, argumentsValidator) ?? optionsProblem(options), this.current.revision, () => obs.within(() => tool(obs.runner(this), ctx, call, execute, options))));
    }));
  }

  /** Wraps one embedding call. Never throws or rejects (see {@link BoundaryOptions.errorMode}). */
  embed(ctx: CallContext, request: EmbedRequest, execute: (texts: string[], op: OperationContext) => Promise<{ vectors: number[][] }>, options?: EmbedOptions): Promise<BoundaryResult<EmbedOutput>> {
    return withErrorMode(options, guarded(this.revisionNow, () => {
      const obs = this.observer.operation({ operation: "embedding", ctx, model: modelOf(request) }, this.id, this.eventDigest);
      return obs.settle(checkedCall(callProblem(ctx, request, "request") ?? optionsProblem(options), this.current.revision, () => obs.within(() => embed(obs.runner(this), ctx, request, execute, options))));
    }));
  }

  private readonly revisionNow = (): number => this.current.revision;

  /** The index signature of the embedding chain that applies to `ctx` and `model` now. */
  embeddingSignature(ctx: CallContext, model: string): string {
    const target: MatchTarget = { purpose: "embedding", modelId: model, instance: instanceOf(ctx), instanceId: ctx.instanceId ?? "main", spaceId: ctx.spaceId };
    const chain = (["model.embedding.before", "model.embedding.after"] as const).flatMap((point) => matchBindings(this.current.byPoint.get(point) ?? [], point, target)).map((b) => {
      const h = this.resolve(b);
      return h.kind === "guest"
        ? { pluginId: h.plugin.id, version: h.plugin.version, codeSha256: h.plugin.module.sha256, config: b.config }
        : { pluginId: b.hookRef, version: "in-process", codeSha256: "in-process", config: b.config };
    });
    return embeddingIndexSignature(chain, { model });
  }

  /** Runs a lifecycle point (run.start, run.end, subtask.start, subtask.end). */
  lifecycle(point: LifecyclePoint, ctx: CallContext, payload: Record<string, unknown>): ReturnType<typeof lifecycle> {
    const failed = (err: unknown, reading: boolean) => ({ ok: false as const, error: thrownError(err, reading), hooks: [] });
    try {
      if (!isPointName(point) || getPoint(point).stage !== "lifecycle") return Promise.resolve(failed(new SluiceError("PAYLOAD_INVALID", `point must be one of run.start, run.end, subtask.start, subtask.end`, { field: "point" }), true));
      const obs = this.observer.operation({ operation: point.startsWith("run.") ? "run" : "subtask", ctx, point, payload }, this.id, this.eventDigest);
      const refused = callProblem(ctx, payload, "payload");
      if (refused) return obs.settleLifecycle(Promise.resolve({ ok: false, error: SluiceError.fromData(refused.error), hooks: [] }));
      return obs.settleLifecycle(obs.within(() => lifecycle(obs.runner(this), point, ctx, payload))).catch((err: unknown) => failed(err, false));
    } catch (err) {
      return Promise.resolve(failed(err, true));
    }
  }

  /**
   * Reports what the service's agent does that Sluice cannot see (seed 003): that it is
   * initialised and what it can do, a reasoning step, a decision with its alternatives.
   * Emitted as `agent.initialized` / `agent.thought` / `agent.decision`; texts are digests
   * unless the observer includes payloads. A wrong context or report is PAYLOAD_INVALID.
   *
   * @example
   * host.report(ctx, { type: "agent.thought", kind: "planning", step: 1, content: "look the order up first" });
   */
  report(ctx: CallContext, report: AgentReport): Checked {
    try {
      return contextProblem(ctx) ?? this.observer.report(ctx, report, this.id, this.eventDigest);
    } catch (err) {
      const error = thrownError(err, true);
      return { ok: false, error: error.toData() };
    }
  }

  /** Flushes event listeners and stops the workers. */
  async close(): Promise<void> {
    this.detachPool();
    await this.lease?.end();
    // Listeners get what was emitted before the close, unless one of them hangs.
    await this.observer.flush(1_000);
    await this.sandbox.close();
  }
}

/** The model name for the call's observation, read without trusting the request's shape (the entry checks refuse it properly). */
function modelOf(request: unknown): string {
  // As it came (the observation reports a wrong one as such); only a request that is not an object has none.
  return (typeof request === "object" && request !== null ? (request as { model?: unknown }).model : undefined) as string;
}

function beforePointOf(after: PointName): PointName {
  return after === "model.chat.after" || after === "model.chat.chunk" ? "model.chat.before" : after === "tool.after" ? "tool.before" : after === "model.embedding.after" ? "model.embedding.before" : after;
}

/** Creates a host with its sandbox (worker pool). Close it when done. */
export function createHost(options: HostOptions = {}): Host {
  return new Host(options);
}
