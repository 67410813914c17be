/**
 * What the registry stores, as plain data in the management API's own (snake_case)
 * vocabulary: the store, the HTTP API and the CLI all speak these types.
 */
import type { Instance } from "../pipeline/bindings.js";
import type { AfterOrderMode } from "../pipeline/bindings.js";
import type { PointName, Purpose } from "../pipeline/points.js";
import type { FailurePolicy, Manifest } from "./manifest.js";

/** One immutable plugin version. */
export interface PluginRecord {
  id: string;
  version: string;
  /** sha256 of the module bytes: the artifact's name. */
  sha256: string;
  size: number;
  manifest: Manifest;
  created_at: string;
  /** Where the version was built from, when it was imported from Git (`sluice deploy --git`). */
  source?: PluginSource;
}

/** A Git checkout a plugin version was built from. */
export interface PluginSource {
  /** The repository as it was given: a URL or a local path. */
  repository: string;
  /** The full commit id the ref resolved to. */
  commit: string;
  /** The ref asked for (a branch, tag or commit), when one was. */
  ref?: string;
  /** The package's folder inside the repository, when not its root. */
  path?: string;
}

/** Which calls a binding applies to (purposes, models, tools, ...); absent fields match everything. */
export interface MatchSpec {
  purposes?: Purpose[];
  tool_ids?: string[];
  model_ids?: string[];
  instances?: Instance[];
  /** Particular instances by id, `*` matching any run of characters. */
  instance_ids?: string[];
  spaces?: string[];
}

/** A binding as written by a client; every field but id, hook_ref and point has a default. */
export interface BindingSpec {
  id: string;
  /** `plugin-id@version`. */
  hook_ref: string;
  point: PointName;
  match: MatchSpec;
  priority: number;
  timeout_ms: number;
  failure_policy: FailurePolicy;
  observe_only: boolean;
  config: unknown;
  enabled: boolean;
  mandatory: boolean;
  /** Extension id: bindings at a before point and its after/chunk points that share it are one pre/post pair. */
  extension?: string;
}

/** A binding of the draft pipeline (what the next publish freezes). */
export interface BindingRecord extends BindingSpec {
  /** Place in the pipeline order; ties in priority run in this order. */
  position: number;
  registered_at: string;
  updated_at: string;
}

/** A binding frozen into a release, with the exact code it runs. */
export interface ReleaseBinding extends BindingSpec {
  position: number;
  registered_at: string;
  code_sha256: string;
}

/** An immutable numbered revision of the pipeline. */
export interface ReleaseRecord {
  revision: number;
  order_mode: AfterOrderMode;
  bindings: ReleaseBinding[];
  /** The revision this one was derived from, when made by enable/disable/reorder on the active one. */
  based_on: number | null;
  note: string;
  created_at: string;
}

/** Why a release became active. */
export type ActivationReason = "activate" | "rollback" | "enable" | "disable" | "reorder";

/** One switch of the active revision, in order: rollback walks this history. */
export interface ActivationRecord {
  seq: number;
  revision: number;
  reason: ActivationReason;
  activated_at: string;
}
