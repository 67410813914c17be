/**
 * The caller's context, checked at the entry of every boundary call before anything is
 * built from it (hook contexts, events, records): a wrong context is the caller's
 * mistake, so it comes back as PAYLOAD_INVALID naming the field, never as a host bug.
 */
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import { fail } from "../pipeline/result.js";
import { PURPOSES } from "../pipeline/points.js";
import type { BoundaryResult } from "../engine/call-types.js";

const OPTIONAL_TEXT = ["actorId", "runId", "instanceId", "parentOperationId"] as const;

/** PAYLOAD_INVALID naming the first wrong field of `ctx`, or null when it is sound. */
export function contextProblem(ctx: unknown): Refused | null {
  if (typeof ctx !== "object" || ctx === null || Array.isArray(ctx)) return refuse("ctx", "must be an object (a CallContext)");
  const c = ctx as Record<string, unknown>;
  if (typeof c.spaceId !== "string" || c.spaceId === "") return refuse("ctx.spaceId", `must be a non-empty string, got ${shown(c.spaceId)}`);
  for (const key of OPTIONAL_TEXT) if (c[key] !== undefined && typeof c[key] !== "string") return refuse(`ctx.${key}`, `must be a string when given, got ${shown(c[key])}`);
  if (c.purpose !== undefined && !(PURPOSES as readonly unknown[]).includes(c.purpose)) return refuse("ctx.purpose", `must be one of ${PURPOSES.join(", ")}, got ${shown(c.purpose)}`);
  if (c.deadline !== undefined && (typeof c.deadline !== "number" || !Number.isFinite(c.deadline))) return refuse("ctx.deadline", `must be epoch milliseconds when given, got ${shown(c.deadline)}`);
  if (c.signal !== undefined && !isSignal(c.signal)) return refuse("ctx.signal", "must be an AbortSignal when given");
  return null;
}

/** The result of a call refused at the entry: nothing began, nothing was called. */
export function refusedCall<T>(refused: Refused, revision: number): BoundaryResult<T> {
  return {
    ok: false, error: SluiceError.fromData(refused.error), hooks: [], annotations: {},
    facts: { operationId: "", revision, called: false, realStatus: "not_started", attempts: 0, idempotencyKey: "", durationMs: 0 },
  };
}

/** The context, then that the call's input (`name`: "call", "request") is an object at all; its fields are the point schema's business. */
export function callProblem(ctx: unknown, input: unknown, name: string): Refused | null {
  return contextProblem(ctx) ?? (typeof input === "object" && input !== null && !Array.isArray(input) ? null : refuse(name, `must be an object, got ${input === null ? "null" : Array.isArray(input) ? "an array" : typeof input}`));
}

/**
 * A tool call's entry: {@link callProblem}, then that its schema compiles at all (with
 * the boundary's own `compile`, passed down, so the compiled schema is the one reused
 * later). What the schema says of the arguments is checked after the hooks, as before.
 */
export function toolCallProblem(ctx: unknown, call: unknown, compile: (schema: Record<string, unknown>) => unknown): Refused | null {
  const refused = callProblem(ctx, call, "call");
  if (refused) return refused;
  const schema = (call as { schema?: unknown }).schema;
  // Not an object: the point's schema names it (PAYLOAD_INVALID, /schema).
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return null;
  try {
    compile(schema as Record<string, unknown>);
    return null;
  } catch (err) {
    return refuse("call.schema", `is not a JSON Schema the host can compile: ${String((err as Error)?.message ?? err).slice(0, 300)}`);
  }
}

/** Runs a checked call; a refused one (`refused` from the checks above) returns without running anything. */
export function checkedCall<T>(refused: Refused | null, revision: number, run: () => Promise<BoundaryResult<T>>): Promise<BoundaryResult<T>> {
  return refused ? Promise.resolve(refusedCall<T>(refused, revision)) : run();
}

type Refused = { ok: false; error: ErrorData };

function refuse(field: string, why: string): Refused {
  return fail("PAYLOAD_INVALID", `${field} ${why}`, { field });
}

// Duck-typed: a signal from another realm or an AbortController polyfill is still a signal.
function isSignal(v: unknown): boolean {
  return typeof v === "object" && v !== null && typeof (v as AbortSignal).aborted === "boolean" && typeof (v as AbortSignal).addEventListener === "function";
}

function shown(v: unknown): string {
  return v === undefined ? "undefined" : typeof v === "string" ? JSON.stringify(v.slice(0, 40)) : typeof v;
}
