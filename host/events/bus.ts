/**
 * Where events leave the host: each is completed with its envelope, validated against its
 * schema, then handed to every listener on a later turn of the event loop, one listener at
 * a time in try/catch, so no listener can delay, break or reorder a boundary call.
 */
import { randomUUID } from "node:crypto";
import { createEventRegistry, eventSchemaId, EVENT_SCHEMA_VERSION, type CustomEvent, type EventFields, type EventOf, type EventRegistry, type EventType, type SchemaNode, type SluiceEvent } from "../../abi/events/index.js";
import { SluiceError } from "../errors/sluice-error.js";
import { fail, OK, type Checked } from "../pipeline/result.js";
import { withKeys } from "../objects/with-keys.js";

/** Receives events; may be async. Its errors and rejections are reported, never propagated. */
export type EventListener = (event: SluiceEvent) => void | Promise<void>;
/** Receives a service's own events (see {@link EventBus.publishCustom}). */
export type CustomEventListener = (event: CustomEvent) => void | Promise<void>;

/**
 * What an invalid event (a host bug) does: `"throw"` raises EVENT_INVALID from the call
 * that built it, so tests fail loudly; `"drop"` reports it, counts it and drops it, so
 * production keeps serving. The default is `"drop"` when NODE_ENV is "production".
 */
export type InvalidEventPolicy = "throw" | "drop";

export interface EventBusOptions {
  invalidEvents?: InvalidEventPolicy;
  /** Told about invalid events (in "drop" mode) and failing listeners. Defaults to console.error. */
  report?: (message: string, cause: unknown) => void;
  /** Counters, so both kinds of trouble show on /metrics. */
  onInvalid?: (type: string) => void;
  onListenerError?: (type: string) => void;
}

type Entry = { custom: boolean; types: ReadonlySet<string> | null; fn: (event: never) => void | Promise<void> };

export class EventBus {
  private readonly listeners = new Set<Entry>();
  private builtInListeners = 0;
  /** {@link wants}' answers until the listeners change. */
  private readonly wanted = new Map<string, boolean>();
  /** Built-in schemas and the service's own: custom events are validated the same way. */
  readonly registry: EventRegistry = createEventRegistry();
  private readonly pending = new Set<Promise<void>>();
  private readonly policy: InvalidEventPolicy;
  private readonly report: (message: string, cause: unknown) => void;

  constructor(private readonly options: EventBusOptions = {}) {
    this.policy = options.invalidEvents ?? (process.env.NODE_ENV === "production" ? "drop" : "throw");
    this.report = options.report ?? ((message, cause) => console.error(`[sluice] ${message}`, cause));
  }

  /** True when someone listens to Sluice's events: the host skips building events nobody would receive. */
  get active(): boolean {
    return this.builtInListeners > 0;
  }

  /** Subscribes to every built-in event, or to the given types. Returns the unsubscribe function. */
  on(listener: EventListener, types?: readonly EventType[]): () => void {
    return this.add({ custom: false, types: types ? new Set<string>(types) : null, fn: listener });
  }

  /** Subscribes to the service's own (registered) events, all or the given types. */
  onCustom(listener: CustomEventListener, types?: readonly string[]): () => void {
    return this.add({ custom: true, types: types ? new Set<string>(types) : null, fn: listener });
  }

  /** Whether an event of `type` would reach a listener: publishers skip building one that would not. */
  wants(type: EventType): boolean {
    if (this.builtInListeners === 0) return false;
    let wanted = this.wanted.get(type);
    if (wanted === undefined) {
      wanted = [...this.listeners].some((l) => !l.custom && (l.types === null || l.types.has(type)));
      this.wanted.set(type, wanted);
    }
    return wanted;
  }

  private add(entry: Entry): () => void {
    this.listeners.add(entry);
    this.wanted.clear();
    if (!entry.custom) this.builtInListeners++;
    return () => { if (this.listeners.delete(entry)) { this.wanted.clear(); if (!entry.custom) this.builtInListeners--; } };
  }

  /**
   * Registers a service's own event schema (rules: EventRegistry.register); a schema that
   * breaks them is refused with EVENT_SCHEMA_INVALID, saying which rule.
   */
  register(schema: SchemaNode): void {
    const check = this.registry.register(schema);
    if (!check.ok) throw new SluiceError("EVENT_SCHEMA_INVALID", `event schema ${String(schema.$id)} refused: ${check.problem}`, { id: typeof schema.$id === "string" ? schema.$id : null });
  }

  /**
   * Completes a service's own event under the schema `schemaId` (its envelope: that
   * schema's newest schema_version, `$schema`, id, time), validates it and dispatches it
   * like the host's own. Invalid fields are the caller's, so they come back as
   * CUSTOM_EVENT_INVALID and nothing is dispatched; they never throw.
   */
  publishCustom(schemaId: string, fields: Record<string, unknown>): Checked & { event?: CustomEvent } {
    const schema = this.registry.schema(schemaId);
    const props = schema?.properties as Record<string, { const?: unknown; enum?: unknown[] }> | undefined;
    if (!schema || this.registry.isBuiltIn(String(props!.type!.const))) return fail("CUSTOM_EVENT_INVALID", `no custom event schema is registered as ${schemaId}`, { schema: schemaId });
    const type = String(props!.type!.const);
    const event = withKeys(fields, { schema_version: props!.schema_version!.enum!.at(-1), type, $schema: schemaId, id: randomUUID(), time: new Date().toISOString() }) as CustomEvent;
    const check = this.registry.validate(event);
    if (!check.ok) {
      this.options.onInvalid?.(type);
      return fail("CUSTOM_EVENT_INVALID", `the ${type} event fails its schema ${schemaId}: ${check.problem}`, { type, schema: schemaId });
    }
    if ([...this.listeners].some((l) => l.custom)) this.dispatch(event, true);
    return withKeys(OK, { event });
  }

  /** Completes, validates and dispatches one event; returns it, or null when dropped or unheard. */
  publish<T extends EventType>(type: T, fields: EventFields<T>): EventOf<T> | null {
    if (!this.wants(type)) return null;
    const event = { schema_version: EVENT_SCHEMA_VERSION, type, $schema: eventSchemaId(type), id: randomUUID(), time: new Date().toISOString(), ...fields } as unknown as EventOf<T>;
    const check = this.registry.validate(event);
    if (!check.ok) {
      this.options.onInvalid?.(type);
      const error = new SluiceError("EVENT_INVALID", `the host built an invalid ${type} event (a bug in Sluice): ${check.problem}`, { type, problem: check.problem });
      if (this.policy === "throw") throw error;
      this.report(error.message, event);
      return null;
    }
    this.dispatch(event as SluiceEvent, false);
    return event;
  }

  /**
   * Resolves when every event published so far has reached its listeners and they have
   * settled, or when `timeoutMs` passes (a hung listener must not hang a shutdown).
   */
  async flush(timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
    const until = performance.now() + timeoutMs;
    while (this.pending.size > 0 && performance.now() < until) {
      const left = until - performance.now();
      const all = Promise.allSettled([...this.pending]);
      if (!Number.isFinite(left)) { await all; continue; }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise((resolve) => { timer = setTimeout(resolve, left); })]);
      clearTimeout(timer);
    }
  }

  private dispatch(event: SluiceEvent | CustomEvent, custom: boolean): void {
    // Frozen, so one listener cannot change what the next one sees.
    deepFreeze(event);
    const targets = [...this.listeners].filter((l) => l.custom === custom && (l.types === null || l.types.has(event.type)));
    if (targets.length === 0) return;
    const done = new Promise<void>((resolve) => setImmediate(() => {
      const runs = targets.map(async (l) => {
        try {
          await (l.fn as (e: typeof event) => void | Promise<void>)(event);
        } catch (err) {
          this.options.onListenerError?.(event.type);
          this.report(`an event listener failed on ${event.type} (ignored)`, err);
        }
      });
      void Promise.all(runs).then(() => resolve());
    }));
    this.pending.add(done);
    void done.then(() => this.pending.delete(done));
  }
}

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}
