/**
 * The `sluice:hook` WIT world (abi/wit/sluice-hook.wit) as the host sees it: the interface
 * names a component may import or must export, and which capability each import needs.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Capability } from "../../capabilities.js";

/** WIT package version; `1.<minor>.0` is ABI 1.<minor>. */
export const WIT_VERSION = "1.0.0";
export const HOST_INTERFACE = `sluice:hook/host@${WIT_VERSION}`;
export const KV_INTERFACE = `sluice:hook/kv@${WIT_VERSION}`;
export const HANDLER_INTERFACE = `sluice:hook/handler@${WIT_VERSION}`;

/**
 * Importable interfaces, by the unversioned specifier jco's glue asks for, with their
 * functions and the capability each needs (null: always).
 */
export const WIT_IMPORTS: Readonly<Record<string, { versioned: string; functions: readonly string[]; capability: Capability | null }>> = {
  "sluice:hook/host": { versioned: HOST_INTERFACE, functions: ["log", "abort"], capability: null },
  "sluice:hook/kv": { versioned: KV_INTERFACE, functions: ["kv-get", "kv-set", "kv-delete"], capability: "kv" },
};

let wit: string | undefined;
/** The WIT source, for jco's tools, which run without filesystem access and take it inline. */
export function hookWit(): string {
  return (wit ??= witFile());
}

function witFile(): string {
  // abi/wit/ from host/sandbox/loader/component/ (source) or dist/host/sandbox/loader/component/ (compiled).
  for (const rel of ["../../../../abi/wit/sluice-hook.wit", "../../../../../abi/wit/sluice-hook.wit"]) {
    try { return readFileSync(fileURLToPath(new URL(rel, import.meta.url)), "utf8"); } catch { /* try the next */ }
  }
  throw new Error("abi/wit/sluice-hook.wit not found");
}
