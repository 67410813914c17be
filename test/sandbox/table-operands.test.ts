// The meter reaches table.fill/copy/init operands through binaryen's heap (binaryen.js has no
// getters for them): the operands it reads must be the instruction's own, in order.
import { readdirSync, readFileSync } from "node:fs";
import binaryen from "#binaryen";
import { describe, expect, it } from "vitest";
import { meter } from "../../host/sandbox/loader/fuel/meter.js";
import { tableOp, tableOperands, type TableOp } from "../../host/sandbox/loader/fuel/table-operands.js";

type Raw = Record<string, (...args: number[]) => number>;
const raw = binaryen as unknown as Raw;

const text = `(module (table $t 8 funcref) (elem $e func)
  (func $f
    (table.fill $t (i32.const 11) (ref.null func) (i32.const 13))
    (table.copy $t $t (i32.const 21) (i32.const 22) (i32.const 23))
    (table.init $t $e (i32.const 31) (i32.const 32) (i32.const 33))))`;

describe("table operation operands", () => {
  it("reads each operand in evaluation order and replaces the entry count, after binaryen's heap has been used", () => {
    // The offsets are found on first use; an arena that has held other modules (as on a
    // loader thread that has metered plugins) leaves garbage where a fresh one has zeroes.
    const plugins = new URL("../../build/plugins/", import.meta.url);
    for (const f of readdirSync(plugins).filter((n) => n.endsWith(".wasm") && !n.endsWith("-js.wasm"))) {
      const bytes = new Uint8Array(readFileSync(new URL(f, plugins)));
      if (WebAssembly.validate(bytes)) meter(bytes);
    }
    const mod = binaryen.parseText(text);
    try {
      const body = raw._BinaryenFunctionGetBody!(mod.getFunction("f"));
      const expected: [TableOp, (number | null)[]][] = [["table.fill", [11, null, 13]], ["table.copy", [21, 22, 23]], ["table.init", [31, 32, 33]]];
      expected.forEach(([op, values], i) => {
        const e = raw._BinaryenBlockGetChildAt!(body, i);
        expect(tableOp(raw._BinaryenExpressionGetId!(e))).toBe(op);
        const access = tableOperands(op)!;
        const read = access.operands(e).map((x) => (raw._BinaryenExpressionGetId!(x) === binaryen.ConstId ? raw._BinaryenConstGetValueI32!(x) : null));
        expect(read).toEqual(values);
        access.setSize(e, mod.i32.const(99));
        expect(raw._BinaryenConstGetValueI32!(access.operands(e).at(-1)!)).toBe(99);
      });
      mod.setFeatures(binaryen.Features.All);
      expect(mod.validate()).toBe(1);
    } finally {
      mod.dispose();
    }
  });
});
