/**
 * Registry rows as both engines return them (plain columns, JSON in text) turned into
 * records: one mapping, so SQLite and PostgreSQL cannot drift apart.
 */
import type { AfterOrderMode } from "../pipeline/bindings.js";
import type { BindingRecord, BindingSpec, PluginRecord, ReleaseRecord } from "./records.js";

/** One row of a registry table, as the driver returns it. */
export type Row = Record<string, unknown>;

export function pluginOf(r: Row): PluginRecord {
  return { id: r.id as string, version: r.version as string, sha256: r.sha256 as string, size: r.size as number, manifest: JSON.parse(r.manifest as string), created_at: r.created_at as string, ...(typeof r.source === "string" ? { source: JSON.parse(r.source) } : {}) };
}

export function bindingOf(r: Row): BindingRecord {
  return { ...(JSON.parse(r.spec as string) as BindingSpec), position: r.position as number, registered_at: r.registered_at as string, updated_at: r.updated_at as string };
}

export function releaseOf(r: Row): ReleaseRecord {
  return { revision: r.revision as number, order_mode: r.order_mode as AfterOrderMode, bindings: JSON.parse(r.bindings as string), based_on: (r.based_on as number | null) ?? null, note: r.note as string, created_at: r.created_at as string };
}
