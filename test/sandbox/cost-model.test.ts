// The cost model (abi/README.md §11) is part of the contract: these figures change only with it.
import { describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { meter } from "../../host/sandbox/loader/fuel/meter.js";
import { BULK_OP_COST, CALL_INDIRECT_COST, MEMORY_GROW_COST, RETURN_CALL_COST, TABLE_ENTRY_COST, TABLE_OP_COST, THROW_COST } from "../../host/sandbox/loader/fuel/cost-model.js";

async function metered(wat: string): Promise<(budget: number, ...args: number[]) => number> {
  const wabt = await wabtInit();
  const bytes = new Uint8Array(wabt.parseWat("t.wat", wat, { exceptions: true, tail_call: true }).toBinary({}).buffer);
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

  // Priced by what each was measured to cost (bench scenario 16), each figure below
  // is the whole of one call of `run`: the operation, its operands, and no other code.
  const priced: [what: string, wat: string, fuel: number][] = [
    ["a throw pays for the unwinding and the catch", `(tag $e) (func (export "run") (try (do (throw $e)) (catch $e)))`, 1 + 1 + THROW_COST],
    ["a rethrow pays like a throw", `(tag $e) (func (export "run") (try (do (try (do (throw $e)) (catch_all (rethrow 0)))) (catch_all)))`, 1 + 1 + 2 * (1 + THROW_COST)],
    ["memory.grow of no page pays for the grow", `(memory 1) (func (export "run") (drop (memory.grow (i32.const 0))))`, 3 + MEMORY_GROW_COST],
    ["table.fill of one entry pays for the operation and the entry", `(table 1 funcref) (func (export "run") (table.fill 0 (i32.const 0) (ref.null func) (i32.const 1)))`, 4 + TABLE_OP_COST + TABLE_ENTRY_COST],
    ["table.grow by no entry pays for the operation", `(table 1 funcref) (func (export "run") (drop (table.grow 0 (ref.null func) (i32.const 0))))`, 4 + TABLE_OP_COST],
    ["call_indirect pays for the table read and the signature check", `(type $v (func)) (table 1 funcref) (elem (i32.const 0) $f) (func $f) (func (export "run") (call_indirect (type $v) (i32.const 0)))`, 2 + CALL_INDIRECT_COST],
    ["return_call pays for rebuilding the frame", `(func $f) (func (export "run") (return_call $f))`, 1 + RETURN_CALL_COST],
    ["memory.fill of one byte pays for the call into the engine", `(memory 1) (func (export "run") (memory.fill (i32.const 0) (i32.const 0) (i32.const 1)))`, 4 + BULK_OP_COST + 1],
  ];
  for (const [what, body, fuel] of priced) {
    it(`${what}: ${fuel} units`, async () => {
      const run = await metered(`(module ${body})`);
      expect(run(1e9)).toBe(fuel);
    });
  }
});
