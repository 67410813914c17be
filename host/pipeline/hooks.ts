import type { Outcome, RequestEnvelope } from "../../abi/envelope.js";
import type { LoadedModule } from "../sandbox/load-module.js";
import type { Binding } from "./bindings.js";
import type { PointName } from "./points.js";

/**
 * A trusted hook written in TypeScript and run on the main thread. It gets the same
 * request a guest gets (a copy: changing it changes nothing) and returns the same
 * outcomes, under the same rules.
 */
export type InProcessHook = (request: RequestEnvelope, options: { signal: AbortSignal }) => Outcome | Promise<Outcome>;

/** What a plugin was granted per point: payload fields it may read and write (JSON Pointer prefixes). */
export type Grants = Partial<Record<PointName, { read?: readonly string[]; write?: readonly string[] }>>;

/** A loaded guest plugin, as a release refers to it (`id@version`). */
export interface GuestPlugin {
  ref: string;
  id: string;
  version: string;
  module: LoadedModule;
  grants: Grants;
}

export type ResolvedHook =
  | { kind: "guest"; binding: Binding; plugin: GuestPlugin }
  | { kind: "in-process"; binding: Binding; hook: InProcessHook };
