/**
 * The extension list (docs/api-and-gateway.md): the pipeline as the platform team manages it, one item per
 * binding, with the interface version the plugins are written against.
 */
import { ABI_VERSION } from "../../abi/version.js";
import type { AfterOrderMode } from "../pipeline/bindings.js";
import { pairings } from "../pipeline/pairs.js";
import { toHostBinding } from "./binding-input.js";
import { getPoint, type PointName } from "../pipeline/points.js";
import type { BindingRecord, MatchSpec, PluginRecord, ReleaseBinding } from "./records.js";

/** The semantic version of the guest interface (ABI and SDK contract), apart from each plugin's own version. */
export const SDK_INTERFACE_VERSION = `${ABI_VERSION.major}.${ABI_VERSION.minor}.0`;

export interface Deprecation {
  field: string;
  since: string;
  removed_in: string;
}

/** Interface fields on their way out; empty while ABI 1.0 is the only one. */
export const DEPRECATIONS: readonly Deprecation[] = [];

/** One binding of a release as the extensions list shows it. */
export interface ExtensionItem {
  /** The binding's id (one item per binding). */
  extension_id: string;
  /** The pre/post pair the binding belongs to (pipeline/pairs.ts): carries and symmetric unwinding follow it. */
  pair_id: string;
  /** The bindings it pairs with: its pair's bindings at the other points of its operation that can run in one call with it (its scope's counterparts). */
  pairs_with: string[];
  /** Bindings of the same plugin at the same point that can run in one call with it, without extension ids: why it is its own pair. */
  ambiguous_with: string[];
  /** Which calls it runs for (spaces, purposes, tools, ...); absent fields match everything. */
  match: MatchSpec;
  hook_ref: string;
  /** The hook point. */
  node_id: PointName;
  /** `pre` before the operation, `post` after it or on its chunks, otherwise the point's stage. */
  hook_type: string;
  enabled: boolean;
  mandatory: boolean;
  /** Position in the pipeline order (ties in priority run in this order). */
  order: number;
  priority: number;
  failure_policy: string;
  capability_boundary: string;
  /**
   * At model.chat.after, when the plugin's manifest declares it: `chunk`, its chunk hook is
   * its stream rewrite, so on a stream this hook judges the answer read-only and the text is
   * not held back (abi/README.md §4.3).
   */
  stream_rewrite?: "chunk";
  registered_at: string;
  code_sha256?: string;
}

/** The bindings of the active (or draft) release, for clients that list what runs. */
export interface ExtensionList {
  sdk_interface_version: string;
  deprecations: readonly Deprecation[];
  /** `active`: the running release; `draft`: what the next publish freezes. */
  view: "active" | "draft";
  revision: number;
  order_mode: AfterOrderMode;
  items: ExtensionItem[];
}

function hookType(point: PointName): string {
  const stage = getPoint(point).stage;
  return stage === "before" ? "pre" : stage === "after" || stage === "chunk" ? "post" : stage;
}

/** Builds the list from bindings in order; `plugin` finds each binding's manifest. */
export function extensionList(
  view: "active" | "draft",
  revision: number,
  orderMode: AfterOrderMode,
  bindings: readonly (BindingRecord | ReleaseBinding)[],
  plugin: (ref: string) => PluginRecord | undefined,
): ExtensionList {
  const sorted = [...bindings].sort((a, b) => a.position - b.position);
  const pairs = pairings(sorted.map(toHostBinding));
  const streamRewrite = (b: BindingRecord | ReleaseBinding) => b.point === "model.chat.after" ? plugin(b.hook_ref)?.manifest.points["model.chat.after"]?.stream_rewrite : undefined;
  const items = sorted.map((b, order): ExtensionItem => ({
    extension_id: b.id,
    pair_id: pairs.get(b.id)!.pair,
    pairs_with: pairs.get(b.id)!.pairsWith,
    ambiguous_with: pairs.get(b.id)!.ambiguousWith,
    match: b.match,
    hook_ref: b.hook_ref,
    node_id: b.point,
    hook_type: hookType(b.point),
    enabled: b.enabled,
    mandatory: b.mandatory,
    order,
    priority: b.priority,
    failure_policy: b.failure_policy,
    capability_boundary: plugin(b.hook_ref)?.manifest.capability_boundary ?? "",
    ...(streamRewrite(b) ? { stream_rewrite: streamRewrite(b)! } : {}),
    registered_at: b.registered_at,
    ...("code_sha256" in b ? { code_sha256: b.code_sha256 } : {}),
  }));
  return { sdk_interface_version: SDK_INTERFACE_VERSION, deprecations: DEPRECATIONS, view, revision, order_mode: orderMode, items };
}
