/**
 * A guest's prepared bytes without the fuel meter, for the bench's metered-against-unmetered
 * measures: with the reset export the meter would add (fuel/add-reset.ts) when `reset` is
 * given, so the unmetered twin runs on reused instances exactly as its metered one does.
 */
import binaryen from "#binaryen";
import { addReset } from "../../host/sandbox/loader/fuel/add-reset.js";

export function unmetered(prepared: Uint8Array, reset: string | undefined): Uint8Array {
  if (reset === undefined) return prepared;
  const mod = binaryen.readBinaryWithFeatures(prepared, binaryen.Features.All);
  try {
    addReset(mod, reset, (base) => { let n = base; for (let i = 1; mod.getFunction(n) !== 0; i++) n = `${base}_${i}`; return n; });
    return mod.emitBinary();
  } finally {
    mod.dispose();
  }
}
