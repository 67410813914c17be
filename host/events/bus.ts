/**
 * Where events leave the host: each is completed with its envelope, validated against its
 * schema, then handed to every listener on a later turn of the event loop, one listener at
 * a time in try/catch, so no listener can delay, break or reorder a boundary call.
 */
import { randomUUID } from "node:crypto";
import { EVENT_SCHEMA_VERSION, validateEvent, type EventFields, type EventOf, type EventType, type SluiceEvent } from "../../abi/events/index.js";
import { SluiceError } from "../errors/sluice-error.js";

/** Receives events; may be async. Its errors and rejections are reported, never propagated. */
export type EventListener = (event: SluiceEvent) => void | Promise<void>;

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

export class EventBus {
  private readonly listeners = new Set<{ types: ReadonlySet<string> | null; fn: EventListener }>();
  private readonly pending = new Set<Promise<void>>();
  private readonly policy: InvalidEventPolicy;
  private readonly report: (message: string, cause: unknown) => void;

  constructor(private readonly options: EventBusOptions = {}) {
    this.policy = options.invalidEvents ?? (process.env.NODE_ENV === "production" ? "drop" : "throw");
    this.report = options.report ?? ((message, cause) => console.error(`[sluice] ${message}`, cause));
  }

  /** True when someone listens: the host skips building events nobody would receive. */
  get active(): boolean {
    return this.listeners.size > 0;
  }

  /** Subscribes to every event, or to the given types. Returns the unsubscribe function. */
  on(listener: EventListener, types?: readonly EventType[]): () => void {
    const entry = { types: types ? new Set<string>(types) : null, fn: listener };
    this.listeners.add(entry);
    return () => { this.listeners.delete(entry); };
  }

  /** Completes, validates and dispatches one event; returns it, or null when dropped or unheard. */
  publish<T extends EventType>(type: T, fields: EventFields<T>): EventOf<T> | null {
    if (!this.active) return null;
    const event = { schema_version: EVENT_SCHEMA_VERSION, type, id: randomUUID(), time: new Date().toISOString(), ...fields } as unknown as EventOf<T>;
    const check = validateEvent(event);
    if (!check.ok) {
      this.options.onInvalid?.(type);
      const error = new SluiceError("EVENT_INVALID", `the host built an invalid ${type} event (a bug in Sluice): ${check.problem}`, { type, problem: check.problem });
      if (this.policy === "throw") throw error;
      this.report(error.message, event);
      return null;
    }
    this.dispatch(event as SluiceEvent);
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

  private dispatch(event: SluiceEvent): void {
    // Frozen, so one listener cannot change what the next one sees.
    deepFreeze(event);
    const targets = [...this.listeners].filter((l) => l.types === null || l.types.has(event.type));
    if (targets.length === 0) return;
    const done = new Promise<void>((resolve) => setImmediate(() => {
      const runs = targets.map(async (l) => {
        try {
          await l.fn(event);
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
