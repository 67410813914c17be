/**
 * Scenario 20: the same hook (order-search-limit, its first sample) written in
 * AssemblyScript, Rust and C, side by side: fuel per call, module size, and the p50 of a
 * call through a worker. A language whose toolchain is missing is left out with a printed
 * reason (the toolchains are optional: test/setup/toolchains.ts installs them for tests).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { encode } from "../../abi/codec.js";
import { createSandbox } from "../../host/sandbox/index.js";
import { findC } from "../../host/toolchain/c.js";
import { findRust } from "../../host/toolchain/rust.js";
import { nativePluginWasm } from "../helpers/native-guests.js";
import { interleave, type Stats } from "./measure.js";
import { built, repoRoot } from "./systems.js";

export interface GuestLanguagesResult { latency: Record<string, Stats>; values: Record<string, number | string> }

export async function runGuestLanguages(c: { warmup: number; samples: number }): Promise<GuestLanguagesResult> {
  const sample = JSON.parse(readFileSync(join(repoRoot(), "plugins/order-search-limit/samples/01-clamps-a-limit-above-the-maximum.json"), "utf8")) as { point: string; config: unknown; payload: unknown };
  const request = encode({ abi: "1.1", point: sample.point, context: {}, payload: sample.payload, config: sample.config });
  const values: Record<string, number | string> = {};
  const modules: [string, Uint8Array][] = [["assemblyscript", built("plugins/order-search-limit.wasm")]];
  if (await findRust()) modules.push(["rust", await nativePluginWasm("order-search-limit-rust", "rust", "src/lib.rs")]);
  else { values["rust.skipped"] = "no cargo with the wasm32-unknown-unknown target (apt-get install -y rustc cargo libstd-rust-dev-wasm32)"; console.log(`scenario 20: Rust left out: ${values["rust.skipped"]}`); }
  if (await findC()) modules.push(["c", await nativePluginWasm("order-search-limit-c", "c", "hook.c")]);
  else { values["c.skipped"] = "no clang with wasm-ld (apt-get install -y clang lld)"; console.log(`scenario 20: C left out: ${values["c.skipped"]}`); }
  const sandbox = createSandbox({ workers: 1 });
  try {
    const contenders = [];
    for (const [name, wasm] of modules) {
      const mod = await sandbox.load(wasm, { capabilities: [], limits: {} });
      const first = await sandbox.invokeBytes(mod, request, {});
      if (!first.ok) throw new Error(`scenario 20: ${name} failed: ${first.error.code} ${first.error.message}`);
      if (first.outcome.kind !== "patch_input") throw new Error(`scenario 20: ${name} answered ${first.outcome.kind}, not patch_input`);
      values[`${name}.fuel`] = first.fuel;
      values[`${name}.bytes`] = wasm.byteLength;
      contenders.push({ name, call: async () => { await sandbox.invokeBytes(mod, request, {}); } });
    }
    const latency = await interleave(contenders, { warmup: c.warmup, samples: c.samples, rotate: true });
    return { latency, values };
  } finally {
    await sandbox.close();
  }
}
