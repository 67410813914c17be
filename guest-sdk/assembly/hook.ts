import { fatal } from "./abort";
import { Outcome } from "./outcome";
import { Request } from "./request";

/** A hook: one request in, one decision out. A plain function: AssemblyScript has no closures. */
export type Hook = (req: Request) => Outcome;

let current: Hook | null = null;

/**
 * Registers the module's hook. Call it once, at the top level of the entry file: the
 * top level runs when the host instantiates the module, before every invocation.
 *
 * ```ts
 * import { registerHook, Outcome } from "@sluice/guest-sdk";
 * export * from "@sluice/guest-sdk/exports";
 * registerHook((req) => Outcome.continue());
 * ```
 */
export function registerHook(fn: Hook): void {
  if (current != null) fatal("sluice: registerHook was called twice; a module has exactly one hook");
  current = fn;
}

/** @internal The hook, or an abort that tells the author what is missing. */
export function registeredHook(): Hook {
  if (current == null) fatal("sluice: no hook registered; call registerHook(fn) at the top level of the entry file");
  return current!;
}
