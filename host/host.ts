import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { SluiceError, type ErrorData } from "./errors/sluice-error.js";
import { matchBindings, type MatchTarget } from "./pipeline/bindings.js";
import type { GuestPlugin, Grants, InProcessHook, InProcessHookOptions } from "./engine/hooks.js";
import { getPoint, isPointName } from "./pipeline/points.js";
import { resolveRelease, type Release, type ReleaseInput } from "./pipeline/release.js";
import { HookTable } from "./engine/hook-table.js";
import { OperationEngine } from "./engine/operation-engine.js";
import { embeddingIndexSignature } from "./pipeline/signature.js";
import type { Capability } from "./sandbox/capabilities.js";
import type { PluginLimits } from "./sandbox/limits.js";
import { Sandbox, type SandboxOptions } from "./sandbox/main/sandbox.js";
import type { OperationStages, StageRunner } from "./engine/stages.js";
import type { CallContext } from "./engine/call-types.js";
import { instanceOf } from "./boundary/instance.js";
import { chat, type ChatRequest, type ChatResponse } from "./boundary/chat.js";
import { guarded } from "./boundary/guard.js";
import { thrownError } from "./engine/thrown-error.js";
import { optionsProblem, withErrorMode } from "./boundary/error-mode.js";
import { chatStream, type ChatStream } from "./boundary/chat-stream.js";
import type { StreamChunk } from "./boundary/stream.js";
import { argumentsValidator, tool, type ServiceCheck, type ToolCall, type ToolOutput } from "./boundary/tool.js";
import { toolAfter, toolBefore, type ToolBeforeOutput, type ToolEnding } from "./boundary/tool-split.js";
import { embed, type EmbedRequest, type EmbedOutput, type EmbedOptions } from "./boundary/embed.js";
import { lifecycle, type LifecyclePoint } from "./boundary/lifecycle.js";
import type { BoundaryOptions, BoundaryResult, OperationContext } from "./engine/call-types.js";
import type { OperationStore, PayloadStore } from "./records/store.js";
import { createDigester, ephemeralDigester, type Digester } from "./pipeline/digest.js";
import { resumeOperation, type ResumeOptions } from "./engine/resume.js";
import { DEFAULT_OPERATION_LEASE_MS, OwnerLease } from "./records/lease.js";
import type { Checked } from "./pipeline/result.js";
import { PluginQuarantine, type QuarantineControl, type QuarantineEvent, type QuarantineEvents } from "./reliability/plugin-quarantine.js";
import type { QuarantinePolicy } from "./reliability/quarantine.js";
import type { QuarantineStore } from "./reliability/quarantine-store.js";
import { createObserver, type Observer } from "./events/observer.js";
import type { AgentReport } from "./events/agent-report.js";
import { withKeys } from "./objects/with-keys.js";
import { callProblem, checkedCall, contextProblem, refusedCall, toolCallProblem } from "./boundary/call-context.js";

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
   * Operation records and hook audit: persisted before the real call, before the
   * first after hook and at the ending (records/journal.ts), so an operation cut off after
   * its real call can be resumed without calling it again.
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
  private readonly hooks = new HookTable();
  private readonly engine: OperationEngine;
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
    this.engine = new OperationEngine({
      sandbox: this.sandbox, hooks: this.hooks, guard: this.guard, digests: this.digests, current: () => this.current,
      ...(records ? { records: { store: records, payloads, owner: this.id } } : {}),
    });
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
    const existing = this.hooks.plugin(ref);
    if (existing && existing.module.sha256 !== module.sha256) {
      throw new SluiceError("CONFIG_INVALID", `plugin ${ref} is already loaded with different code; versions are immutable`, { ref });
    }
    const plugin: GuestPlugin = { ref, id: input.id, version: input.version, module, grants: input.grants ?? {} };
    this.hooks.addPlugin(plugin);
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
    this.hooks.addInProcess(name, hook, options.streamRewrite ? { streamRewrite: options.streamRewrite } : {});
  }

  /** Atomically switches to a release. Operations already running finish on the one they started with. */
  activate(input: ReleaseInput): Release {
    const release = resolveRelease(input);
    for (const b of release.bindings) this.hooks.resolve(b);
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

  /** The stages of one operation on the current release (or its parent's): what a boundary runs hooks through. */
  begin(ctx: CallContext, target: MatchTarget, callId?: string): OperationStages {
    return this.engine.begin(ctx, target, callId);
  }

  /**
   * The keyed digest this host records for `value` (pipeline/digest.ts): how an auditor
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
        resumeStages: (record, ctx) => this.engine.resumeStages(record, ctx),
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
      return obs.settle(checkedCall(callProblem(ctx, request, "request") ?? optionsProblem(options), this.current.revision, () => obs.within(() => chat(this.engine.runner(obs.wrap), ctx, request, execute, options))));
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
        const stream = chatStream(this.engine.runner(obs.wrap), ctx, request, execute, options);
        const result = guarded(this.revisionNow, () => obs.settle(stream.result));
        return { result, get operationId() { return stream.operationId; }, [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator]() };
      }
    } catch (err) {
      refusal = guarded<ChatResponse>(this.revisionNow, () => { throw err; });
    }
    return { result: guarded(this.revisionNow, () => refusal!), operationId: undefined, async *[Symbol.asyncIterator]() { /* refused: nothing to stream */ } };
  }

  /** Wraps one tool call. `finalCheck` adds the service's authorization and path rules to the schema check. Never throws or rejects (see {@link BoundaryOptions.errorMode}). */
  tool(ctx: CallContext, call: ToolCall, execute: (args: Record<string, unknown>, op: OperationContext) => Promise<unknown>, options?: BoundaryOptions & { finalCheck?: (args: Record<string, unknown>) => Checked | boolean | string }): Promise<BoundaryResult<ToolOutput>> {
    return withErrorMode(options, guarded(this.revisionNow, () => {
      const obs = this.observer.operation({ operation: "tool", ctx, call }, this.id, this.eventDigest);
      return obs.settle(checkedCall(toolCallProblem(ctx, call, argumentsValidator) ?? optionsProblem(options), this.current.revision, () => obs.within(() => tool(this.engine.runner(obs.wrap), ctx, call, execute, options))));
    }));
  }

  /**
   * The first half of a tool call the caller runs itself (a coding agent's tool, whose
   * before and after arrive as two requests): runs tool.before and the final check, and
   * answers the final arguments to run the tool with. The operation then awaits its result
   * in the records store (a host without one answers CONFIG_INVALID); report it with
   * {@link Host.toolAfter}, on this host or any host sharing the store, under
   * `r.facts.operationId`. Never throws or rejects.
   *
   * @example
   * const pre = await host.toolBefore(ctx, { toolId: "shell", name: "Bash", schema, arguments: { command: "ls" }, callId: "toolu_1" });
   * if (pre.ok && pre.output.kind === "awaiting") {
   *   const result = await runItMyself(pre.output.arguments);
   *   const post = await host.toolAfter(pre.facts.operationId, { status: "succeeded", result });
   * }
   */
  toolBefore(ctx: CallContext, call: ToolCall, options?: { finalCheck?: ServiceCheck }): Promise<BoundaryResult<ToolBeforeOutput>> {
    return guarded(this.revisionNow, () => {
      const obs = this.observer.operation({ operation: "tool", ctx, call, awaits: true }, this.id, this.eventDigest);
      return obs.settle(checkedCall(toolCallProblem(ctx, call, argumentsValidator), this.current.revision, () => obs.within(() => toolBefore(this.engine.runner(obs.wrap), ctx, call, options))));
    });
  }

  /**
   * The second half of a tool call the caller ran itself: takes the operation
   * {@link Host.toolBefore} left awaiting (atomically: a result reported twice is refused,
   * OPERATION_NOT_AWAITING), runs tool.after on the result with the before stage's carries,
   * then the error and finally stages, and ends the record. A tool that failed where it ran
   * is `{ status: "failed" }`; one whose result will never come is `{ status: "unknown" }`.
   * Never throws or rejects.
   */
  toolAfter(operationId: string, ending: ToolEnding, options: ResumeOptions = {}): Promise<BoundaryResult<ToolOutput>> {
    return guarded(this.revisionNow, () => {
      const store = this.recordStore;
      if (!store) throw new SluiceError("CONFIG_INVALID", "host.toolAfter needs a records store: createHost({ records: openSqliteRecords(file) })");
      if (typeof operationId !== "string" || operationId === "") throw new SluiceError("PAYLOAD_INVALID", "operationId must be a non-empty string", { field: "operationId" });
      return toolAfter({ owner: this.id, resumeStages: (record, ctx) => this.engine.resumeStages(record, ctx) }, store, operationId, ending, options);
    });
  }

  /** Wraps one embedding call. Never throws or rejects (see {@link BoundaryOptions.errorMode}). */
  embed(ctx: CallContext, request: EmbedRequest, execute: (texts: string[], op: OperationContext) => Promise<{ vectors: number[][] }>, options?: EmbedOptions): Promise<BoundaryResult<EmbedOutput>> {
    return withErrorMode(options, guarded(this.revisionNow, () => {
      const obs = this.observer.operation({ operation: "embedding", ctx, model: modelOf(request) }, this.id, this.eventDigest);
      return obs.settle(checkedCall(callProblem(ctx, request, "request") ?? optionsProblem(options), this.current.revision, () => obs.within(() => embed(withKeys(this.engine.runner(obs.wrap), { embeddingSignature: (c: CallContext, m: string) => this.embeddingSignature(c, m), release: this.current }), ctx, request, execute, options))));
    }));
  }

  private readonly revisionNow = (): number => this.current.revision;

  /** The index signature of the embedding chain that applies to `ctx` and `model` now. */
  embeddingSignature(ctx: CallContext, model: string): string {
    const target: MatchTarget = { purpose: "embedding", modelId: model, instance: instanceOf(ctx), instanceId: ctx.instanceId ?? "main", spaceId: ctx.spaceId };
    const chain = (["model.embedding.before", "model.embedding.after"] as const).flatMap((point) => matchBindings(this.current.byPoint.get(point) ?? [], point, target)).map((b) => {
      const h = this.hooks.resolve(b);
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
      return obs.settleLifecycle(obs.within(() => lifecycle(this.engine.runner(obs.wrap), point, ctx, payload))).catch((err: unknown) => failed(err, false));
    } catch (err) {
      return Promise.resolve(failed(err, true));
    }
  }

  /**
   * Reports what the service's agent does that Sluice cannot see (abi/events/README.md): that it is
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


/** Creates a host with its sandbox (worker pool). Close it when done. */
export function createHost(options: HostOptions = {}): Host {
  return new Host(options);
}
