// The cost model (abi/README.md §11) is part of the contract: these figures change only with it.
import { describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { meter } from "../../host/sandbox/fuel/meter.js";

async function metered(wat: string): Promise<(budget: number, ...args: number[]) => number> {
  const wabt = await wabtInit();
  const bytes = new Uint8Array(wabt.parseWat("t.wat", wat).toBinary({}).buffer);
  const module = new WebAssembly.Module(meter(bytes) as Uint8Array<ArrayBuffer>);
  return (budget, ...args) => {
    const remaining = new WebAssembly.Global({ value: "i64", mutable: true }, BigInt(budget));
    const run = new WebAssembly.Instance(module, { sluice_fuel: { remaining } }).exports.run as (...a: number[]) => unknown;
    run(...args);
    return budget - Number(remaining.value);
  };
}

describe("the cost model", () => {
  it("a while loop pays its condition and body at the header, and its last test pays the body once more", async () => {
    const run = await metered(`(module (func (export "run") (param $n i32) (local $i i32)
      (loop $l
        (if (i32.lt_u (local.get $i) (local.get $n))
          (then (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $l))))))`);
    // The function's region: the loop (1). Each entry to the header: the condition (3), the
    // if (1) and its arm (5); n iterations enter it n + 1 times.
    for (const n of [0, 1, 10, 1000]) expect(run(1e9, n)).toBe(1 + 9 * (n + 1));
  });

  it("an if pays its cheaper arm with the code around it, and the costlier arm the difference when it is more than 32", async () => {
    const long = Array.from({ length: 20 }, () => "(local.set $x (i32.add (local.get $x) (i32.const 1)))").join(" ");
    const run = await metered(`(module (func (export "run") (param $c i32) (local $x i32)
      (if (local.get $c) (then ${long}) (else (local.set $x (i32.const 7))))))`);
    // Around the if: its condition (1), the if (1) and the else arm (2). The then arm costs 80,
    // 78 more than the else arm, charged where it starts.
    expect(run(1e9, 0)).toBe(4);
    expect(run(1e9, 1)).toBe(4 + 78);
  });
});
