import type { Outcome, RequestEnvelope } from "../../abi/envelope.js";
import type { LoadedModule } from "../sandbox/main/load-module.js";
import type { Binding } from "../pipeline/bindings.js";
import type { PointName } from "../pipeline/points.js";

/**
 * A trusted hook written in TypeScript and run on the main thread. It gets the same
 * request a guest gets (a copy: changing it changes nothing) and returns the same
 * outcomes, under the same rules.
 */
export type InProcessHook = (request: RequestEnvelope, options: { signal: AbortSignal }) => Outcome | Promise<Outcome>;

/**
 * What a plugin was granted per point: payload fields it may read and write (JSON Pointer
 * prefixes). `streamRewrite: "chunk"` (at model.chat.after only) is the manifest's
 * declaration that the plugin's chunk hook is its stream rewrite: on a stream its after
 * hook judges the answer read-only instead of holding the text back (stream-rewrite.ts).
 */
export type Grants = Partial<Record<PointName, { read?: readonly string[]; write?: readonly string[]; streamRewrite?: StreamRewrite }>>;

/** Which hook of an extension rewrites a stream; only `chunk` exists. */
export type StreamRewrite = "chunk";

/** What an in-process hook declares when it is registered (a guest declares it in hook.yaml). */
export interface InProcessHookOptions {
  /** Its chunk hook is its stream rewrite: see {@link Grants}. */
  streamRewrite?: StreamRewrite;
}

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
  | { kind: "in-process"; binding: Binding; hook: InProcessHook; options?: InProcessHookOptions };
