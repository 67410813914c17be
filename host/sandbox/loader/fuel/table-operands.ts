/**
 * The operands of `table.fill`, `table.copy` and `table.init`, which binaryen.js (130 and 132
 * alike) builds and reads but gives no getter or setter for. The C++ nodes hold their operands
 * as plain pointers at fixed offsets, and binaryen.js exports its own heap accessors
 * (`__i32_load`, `__i32_store`), so the meter reads and replaces operands there, as the C API's
 * setters for `memory.fill` do. The offsets are not assumed: they are found once, by parsing a
 * module whose operands are `local.get`s of distinct locals and finding each one in its node.
 * A binaryen whose layout does not match yields none, and the meter then refuses these
 * instructions as before rather than guess.
 */
import binaryenModule from "#binaryen";

type Raw = Record<string, (...args: number[]) => number>;
const binaryen = binaryenModule as typeof binaryenModule & Raw;

export type TableOp = "table.fill" | "table.copy" | "table.init";

/** Each operation's operands in evaluation order; `size` (the entry count) is the last. */
const ROLES = { "table.fill": ["dest", "value", "size"], "table.copy": ["dest", "source", "size"], "table.init": ["dest", "offset", "size"] } as const;

/** Byte offsets of each operand inside its node, in ROLES order. */
type Slots = Record<TableOp, readonly number[]>;

/** Each role is a different local, so each slot is found by the local it reads. */
const PROBE = `(module (table $t 1 funcref) (elem $e func)
  (func $probe (param $a i32) (param $b i32) (param $c i32) (param $r funcref)
    (table.fill $t (local.get $a) (local.get $r) (local.get $c))
    (table.copy $t $t (local.get $a) (local.get $b) (local.get $c))
    (table.init $t $e (local.get $a) (local.get $b) (local.get $c))))`;
const PROBE_LOCALS: Record<TableOp, readonly number[]> = { "table.fill": [0, 3, 2], "table.copy": [0, 1, 2], "table.init": [0, 1, 2] };
/** A node is at most this many bytes in binaryen 130 (an id, a type, names and pointers). */
const NODE_WORDS = 12;

let slots: Slots | null | undefined;

function localRead(word: number): number | undefined {
  if (word === 0 || word % 4 !== 0) return undefined;
  try {
    // The id through the C API: it is one byte, and the bytes after it are padding that
    // binaryen's arena does not clear.
    return binaryen._BinaryenExpressionGetId!(word) === binaryen.LocalGetId ? binaryen._BinaryenLocalGetGetIndex!(word) : undefined;
  } catch {
    return undefined; // not a pointer into binaryen's heap
  }
}

function calibrate(): Slots | null {
  if (typeof binaryen.__i32_load !== "function" || typeof binaryen.__i32_store !== "function") return null;
  const probe = binaryen.parseText(PROBE);
  try {
    const body = binaryen._BinaryenFunctionGetBody!(probe.getFunction("probe"));
    const found: Partial<Record<TableOp, number[]>> = {};
    (Object.keys(ROLES) as TableOp[]).forEach((op, i) => {
      const node = binaryen._BinaryenBlockGetChildAt!(body, i);
      const at: number[] = [];
      for (const local of PROBE_LOCALS[op]) {
        const hits: number[] = [];
        for (let offset = 4; offset < NODE_WORDS * 4; offset += 4) if (localRead(binaryen.__i32_load!(node + offset)) === local) hits.push(offset);
        if (hits.length === 1) at.push(hits[0]!);
      }
      if (at.length === PROBE_LOCALS[op].length) found[op] = at;
    });
    return found["table.fill"] && found["table.copy"] && found["table.init"] ? (found as Slots) : null;
  } finally {
    probe.dispose();
  }
}

function layout(): Slots | null {
  if (slots === undefined) slots = calibrate();
  return slots;
}

// Found when this module loads, before the thread meters anything: NODE_WORDS reads past a
// small node into whatever the arena holds next, and after many modules that can be another
// `local.get` of the same index (two hits: no layout, and every table operation refused).
layout();

/** The operation an expression id names, if it is one of the three. */
export function tableOp(kind: number): TableOp | undefined {
  if (kind === binaryen._BinaryenTableFillId!()) return "table.fill";
  if (kind === binaryen._BinaryenTableCopyId!()) return "table.copy";
  if (kind === binaryen._BinaryenTableInitId!()) return "table.init";
  return undefined;
}

/** Reads and replaces the operands of one such node; undefined when this binaryen's layout is unknown. */
export interface TableOperands {
  /** The operands, in evaluation order (the entry count last). */
  operands(e: number): number[];
  /** Replaces the entry count (an i32 expression). */
  setSize(e: number, size: number): void;
}

export function tableOperands(op: TableOp): TableOperands | undefined {
  const all = layout();
  if (!all) return undefined;
  const at = all[op];
  return {
    operands: (e) => at.map((offset) => binaryen.__i32_load!(e + offset)),
    setSize: (e, size) => void binaryen.__i32_store!(e + at[at.length - 1]!, size),
  };
}
