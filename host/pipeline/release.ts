import { SluiceError } from "../errors/sluice-error.js";
import type { AfterOrderMode, Binding, BindingMatch } from "./bindings.js";
import { pairIds } from "./pairs.js";
import { isPointName, type PointName } from "./points.js";

/** A binding as a service or the registry writes it; defaults are filled in by {@link resolveRelease}. */
export interface BindingInput {
  id: string;
  hookRef: string;
  point: PointName;
  match?: BindingMatch;
  priority?: number;
  timeoutMs?: number;
  failurePolicy?: "fail-closed" | "fail-open";
  observeOnly?: boolean;
  config?: unknown;
  enabled?: boolean;
  mandatory?: boolean;
  /** Extension id: bindings at a before point and its after (and chunk) point that share it form one pre/post pair. */
  extension?: string;
}

/** A release to activate in a host: a revision number and its bindings, in order. */
export interface ReleaseInput {
  revision: number;
  orderMode?: AfterOrderMode;
  bindings: readonly BindingInput[];
}

/** An immutable published revision: operations capture it when they start and finish on it. */
export interface Release {
  readonly revision: number;
  readonly orderMode: AfterOrderMode;
  readonly bindings: readonly Binding[];
  /** The bindings of each point, in release order: a boundary call looks only at its point's. */
  readonly byPoint: ReadonlyMap<PointName, readonly Binding[]>;
}

export const BINDING_DEFAULTS = { priority: 100, timeoutMs: 1000, failurePolicy: "fail-closed", observeOnly: false, enabled: true, mandatory: false } as const;

/** Fills defaults and checks what can be checked without the plugins; the host checks hook refs. */
export function resolveRelease(input: ReleaseInput): Release {
  if (!Number.isInteger(input.revision) || input.revision < 0) throw new SluiceError("CONFIG_INVALID", `release revision must be a non-negative integer, got ${input.revision}`);
  const orderMode = input.orderMode ?? "staged";
  if (orderMode !== "staged" && orderMode !== "symmetric") throw new SluiceError("CONFIG_INVALID", `orderMode must be "staged" or "symmetric", got "${String(orderMode)}"`);
  const ids = new Set<string>();
  const pairs = pairIds(input.bindings);
  const bindings = input.bindings.map((b, order): Binding => {
    if (!b.id || ids.has(b.id)) throw new SluiceError("CONFIG_INVALID", `binding ids must be unique and non-empty (got "${b.id}")`, { binding: b.id });
    ids.add(b.id);
    if (!isPointName(b.point)) throw new SluiceError("CONFIG_INVALID", `binding ${b.id}: unknown point "${String(b.point)}"`, { binding: b.id });
    const timeoutMs = b.timeoutMs ?? BINDING_DEFAULTS.timeoutMs;
    if (b.extension !== undefined && (typeof b.extension !== "string" || b.extension === "")) throw new SluiceError("CONFIG_INVALID", `binding ${b.id}: extension must be a non-empty string`, { binding: b.id });
    if (!(timeoutMs > 0)) throw new SluiceError("CONFIG_INVALID", `binding ${b.id}: timeoutMs must be positive`, { binding: b.id });
    return Object.freeze({
      id: b.id,
      hookRef: b.hookRef,
      point: b.point,
      match: b.match ?? {},
      priority: b.priority ?? BINDING_DEFAULTS.priority,
      order,
      timeoutMs,
      failurePolicy: b.failurePolicy ?? BINDING_DEFAULTS.failurePolicy,
      observeOnly: b.observeOnly ?? BINDING_DEFAULTS.observeOnly,
      config: b.config ?? {},
      enabled: b.enabled ?? BINDING_DEFAULTS.enabled,
      mandatory: b.mandatory ?? BINDING_DEFAULTS.mandatory,
      pair: pairs.get(b.id)!,
    });
  });
  const byPoint = new Map<PointName, Binding[]>();
  for (const b of bindings) {
    const list = byPoint.get(b.point);
    if (list) list.push(b);
    else byPoint.set(b.point, [b]);
  }
  return Object.freeze({ revision: input.revision, orderMode, bindings: Object.freeze(bindings), byPoint });
}
