import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { HOST_MAX_LIMITS } from "../../host/sandbox/limits.js";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Bytes of a guest built by `npm run build` from test/fixtures (WAT or AssemblyScript). */
export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`../../build/fixtures/${name}.wasm`, import.meta.url)));
}

/** Bytes of a reference plugin built from plugins/<name>. */
export function pluginWasm(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`../../build/plugins/${name}.wasm`, import.meta.url)));
}

/**
 * The host's largest fuel budget: more than a looping test guest spends before its time limit
 * (a tight loop spends about 2 units per nanosecond here). For the tests of the wall-clock
 * backstop, which stops what fuel cannot see; a loop under the default budget stops itself.
 */
export const BACKSTOP_FUEL = HOST_MAX_LIMITS.fuel;

/**
 * The budget the JavaScript (SpiderMonkey) component runs on: its memory is 9 MiB from the
 * start (145 pages), so each of its loads pays the 16 MiB price (cost-model.ts, LOAD_PRICES)
 * and one call uses 236-286 million units, past the default 50 million
 * (plugins/order-search-limit-js/README.md).
 */
export const JS_COMPONENT_FUEL = 1_000_000_000;

/**
 * What one call of the `continue` fixture costs (abi/README.md §11): sluice_alloc's 7
 * instructions and sluice_handle's 5. Part of the contract: it changes only with the cost model.
 */
export const CONTINUE_FUEL = 12;
