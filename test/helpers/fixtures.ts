import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Bytes of a guest built by `npm run build` from test/fixtures (WAT or AssemblyScript). */
export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`../../build/fixtures/${name}.wasm`, import.meta.url)));
}

/** Bytes of a reference plugin built from plugins/<name>. */
export function pluginWasm(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`../../build/plugins/${name}.wasm`, import.meta.url)));
}
