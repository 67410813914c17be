/**
 * One host for the adapter suites: the reference plugins that clamp (order-search-limit),
 * redact (pii-redact) and reject (prompt-guard), and the contract twin in-process (reject
 * and short-circuit by config). `bind` activates a fresh release of the given bindings.
 */
import { createHost, type Host } from "../../host/index.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import { twin } from "../contract/twin.js";
import { pluginWasm } from "../helpers/fixtures.js";

export interface AdapterHost {
  host: Host;
  bind(bindings: (Omit<BindingInput, "hookRef" | "id"> & { hookRef?: string; id?: string })[]): void;
  close(): Promise<void>;
}

/** The e-mail address every redaction test feeds in; no piece of it may reach a consumer. */
export const EMAIL = "alice.smith@example.com";

/** True when `text` holds the e-mail or a telling piece of it (a redactor that leaks half still fails). */
export function leaks(text: string): boolean {
  return /alice|smith|@example|example\.com/.test(text);
}

export async function adapterHost(): Promise<AdapterHost> {
  const host = createHost({ workers: 1 });
  for (const id of ["order-search-limit", "pii-redact", "prompt-guard"]) await host.loadPlugin({ id, version: "1.0.0", wasm: pluginWasm(id) });
  host.registerHook("twin", twin);
  let revision = 0;
  return {
    host,
    bind: (bindings) => {
      host.activate({ revision: ++revision, bindings: bindings.map((b, i) => ({ id: `b${i}`, hookRef: "twin", timeoutMs: 5_000, ...b })) });
    },
    close: () => host.close(),
  };
}
