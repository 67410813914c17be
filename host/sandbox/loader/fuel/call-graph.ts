/**
 * Who calls whom in a module, for the meter (abi/README.md §11): a function that only direct
 * calls can enter has its entry charged at each call site, with the code around the call, so
 * the guest pays no charge of its own when it enters it. Every other way in (an export, the
 * start function, a table: any function a `ref.func` or an element segment names) and every
 * call that closes a cycle leaves the callee charging itself, so recursion still pays, and
 * checks, at every level.
 */
import binaryenModule from "#binaryen";
import { tableOp, tableOperands } from "./table-operands.js";

type Ref = number;
type Raw = Record<string, (...args: number[]) => number>;
const binaryen = binaryenModule as typeof binaryenModule & Raw;

/** The child getters (raw C API, without the `_Binaryen` prefix) of each expression with fixed children. */
export const FIXED_CHILDREN: Record<number, readonly string[]> = {
  [binaryen.IfId]: ["IfGetCondition", "IfGetIfTrue", "IfGetIfFalse"], [binaryen.LoopId]: ["LoopGetBody"],
  [binaryen.BreakId]: ["BreakGetValue", "BreakGetCondition"], [binaryen.SwitchId]: ["SwitchGetValue", "SwitchGetCondition"],
  [binaryen.CallIndirectId]: ["CallIndirectGetTarget"], [binaryen.LocalSetId]: ["LocalSetGetValue"], [binaryen.GlobalSetId]: ["GlobalSetGetValue"],
  [binaryen.LoadId]: ["LoadGetPtr"], [binaryen.StoreId]: ["StoreGetPtr", "StoreGetValue"], [binaryen.UnaryId]: ["UnaryGetValue"],
  [binaryen.BinaryId]: ["BinaryGetLeft", "BinaryGetRight"], [binaryen.SelectId]: ["SelectGetIfTrue", "SelectGetIfFalse", "SelectGetCondition"],
  [binaryen.DropId]: ["DropGetValue"], [binaryen.ReturnId]: ["ReturnGetValue"], [binaryen.MemoryGrowId]: ["MemoryGrowGetDelta"],
  [binaryen.MemoryInitId]: ["MemoryInitGetDest", "MemoryInitGetOffset", "MemoryInitGetSize"],
  [binaryen.MemoryCopyId]: ["MemoryCopyGetDest", "MemoryCopyGetSource", "MemoryCopyGetSize"],
  [binaryen.MemoryFillId]: ["MemoryFillGetDest", "MemoryFillGetValue", "MemoryFillGetSize"],
  [binaryen.TableGrowId]: ["TableGrowGetValue", "TableGrowGetDelta"], [binaryen.TryId]: ["TryGetBody"],
  [binaryen.AtomicRMWId]: ["AtomicRMWGetPtr", "AtomicRMWGetValue"],
  [binaryen.AtomicCmpxchgId]: ["AtomicCmpxchgGetPtr", "AtomicCmpxchgGetExpected", "AtomicCmpxchgGetReplacement"],
  [binaryen.AtomicWaitId]: ["AtomicWaitGetPtr", "AtomicWaitGetExpected", "AtomicWaitGetTimeout"],
  [binaryen.AtomicNotifyId]: ["AtomicNotifyGetPtr", "AtomicNotifyGetNotifyCount"], [binaryen.AtomicFenceId]: [],
  [binaryen.SIMDExtractId]: ["SIMDExtractGetVec"], [binaryen.SIMDReplaceId]: ["SIMDReplaceGetVec", "SIMDReplaceGetValue"],
  [binaryen.SIMDShuffleId]: ["SIMDShuffleGetLeft", "SIMDShuffleGetRight"], [binaryen.SIMDTernaryId]: ["SIMDTernaryGetA", "SIMDTernaryGetB", "SIMDTernaryGetC"],
  [binaryen.SIMDShiftId]: ["SIMDShiftGetVec", "SIMDShiftGetShift"], [binaryen.SIMDLoadId]: ["SIMDLoadGetPtr"],
  [binaryen.SIMDLoadStoreLaneId]: ["SIMDLoadStoreLaneGetPtr", "SIMDLoadStoreLaneGetVec"],
  [binaryen.RefNullId]: [], [binaryen.RefIsNullId]: ["RefIsNullGetValue"], [binaryen.RefFuncId]: [],
  [binaryen.RefEqId]: ["RefEqGetLeft", "RefEqGetRight"], [binaryen.RefAsId]: ["RefAsGetValue"],
  [binaryen.TableGetId]: ["TableGetGetIndex"], [binaryen.TableSetId]: ["TableSetGetIndex", "TableSetGetValue"], [binaryen.TableSizeId]: [],
  [binaryen.RethrowId]: [], [binaryen.TupleExtractId]: ["TupleExtractGetTuple"], [binaryen.PopId]: [],
};
/** Expressions with a list of children: [count getter, child getter]. */
export const LISTED_CHILDREN: Record<number, readonly [string, string]> = {
  [binaryen.BlockId]: ["BlockGetNumChildren", "BlockGetChildAt"], [binaryen.CallId]: ["CallGetNumOperands", "CallGetOperandAt"],
  [binaryen.CallIndirectId]: ["CallIndirectGetNumOperands", "CallIndirectGetOperandAt"], [binaryen.TryId]: ["TryGetNumCatchBodies", "TryGetCatchBodyAt"],
  [binaryen.ThrowId]: ["ThrowGetNumOperands", "ThrowGetOperandAt"], [binaryen.TupleMakeId]: ["TupleMakeGetNumOperands", "TupleMakeGetOperandAt"],
};

/** Pushes the children of `e` onto `out` (none for an expression the meter does not know: it refuses those itself). */
function pushChildren(e: Ref, out: Ref[]): void {
  const kind = binaryen._BinaryenExpressionGetId!(e);
  for (const g of FIXED_CHILDREN[kind] ?? []) { const c = binaryen[`_Binaryen${g}`]!(e); if (c !== 0) out.push(c); }
  const list = LISTED_CHILDREN[kind];
  if (list) for (let i = 0, n = binaryen[`_Binaryen${list[0]}`]!(e); i < n; i++) out.push(binaryen[`_Binaryen${list[1]}`]!(e, i));
  const op = tableOp(kind);
  if (op) for (const c of tableOperands(op)?.operands(e) ?? []) out.push(c);
}

export interface CallGraph {
  /** The functions (with a body) each function calls directly, tail calls included. */
  callees: Map<Ref, Ref[]>;
  /** Functions something other than a direct call can enter: exports, the start function, anything a table may hold. */
  enteredOtherwise: Set<Ref>;
}

export function callGraph(mod: binaryenModule.Module, functions: readonly Ref[]): CallGraph {
  const raw = binaryen;
  const ptr = (mod as unknown as { ptr: number }).ptr;
  const withBody = new Set(functions);
  const enteredOtherwise = new Set<Ref>();
  const named = (name: number): Ref => (name === 0 ? 0 : raw._BinaryenGetFunction!(ptr, name));
  const referenced = (f: Ref): void => { if (withBody.has(f)) enteredOtherwise.add(f); };
  // Every reference to a function (the only way one gets into a table) is a ref.func, in code,
  // a global's initializer, or an element segment.
  const scan = (root: Ref, calls: Ref[] | undefined): void => {
    const stack = [root];
    while (stack.length > 0) {
      const e = stack.pop()!;
      const kind = raw._BinaryenExpressionGetId!(e);
      if (kind === binaryen.CallId) {
        const f = named(raw._BinaryenCallGetTarget!(e));
        if (calls && withBody.has(f)) calls.push(f);
      } else if (kind === binaryen.RefFuncId) referenced(named(raw._BinaryenRefFuncGetFunc!(e)));
      pushChildren(e, stack);
    }
  };
  const callees = new Map<Ref, Ref[]>();
  for (const f of functions) {
    const calls: Ref[] = [];
    scan(raw._BinaryenFunctionGetBody!(f), calls);
    callees.set(f, calls);
  }
  for (let i = 0, n = mod.getNumGlobals(); i < n; i++) {
    const init = raw._BinaryenGlobalGetInitExpr!(raw._BinaryenGetGlobalByIndex!(ptr, i));
    if (init !== 0) scan(init, undefined);
  }
  for (let i = 0, n = mod.getNumElementSegments(); i < n; i++) {
    const seg = raw._BinaryenGetElementSegmentByIndex!(ptr, i);
    for (let j = 0, m = raw._BinaryenElementSegmentGetLength!(seg); j < m; j++) {
      // binaryen names the function of a ref.func item (null for ref.null) and throws for a
      // global.get item, whose function is an import's or in a global initializer scanned above.
      try { referenced(named(raw._BinaryenElementSegmentGetData!(seg, j))); } catch { /* see above */ }
    }
  }
  for (let i = 0, n = mod.getNumExports(); i < n; i++) {
    const ex = raw._BinaryenGetExportByIndex!(ptr, i);
    if (raw._BinaryenExportGetKind!(ex) === binaryen.ExternalFunction) referenced(named(raw._BinaryenExportGetValue!(ex)));
  }
  referenced(raw._BinaryenGetStart!(ptr));
  return { callees, enteredOtherwise };
}

/**
 * The functions in an order where each comes after the functions it calls, except for the
 * calls that close a cycle, whose targets are returned as `recursive`: with them charging
 * themselves, every other function's callees are metered before it is. Iterative: a guest
 * may nest calls deeper than this thread's stack.
 */
export function calleesFirst(functions: readonly Ref[], callees: Map<Ref, Ref[]>): { order: Ref[]; recursive: Set<Ref> } {
  const state = new Map<Ref, 1 | 2>(); // 1: on the path being walked, 2: done
  const order: Ref[] = [];
  const recursive = new Set<Ref>();
  for (const root of functions) {
    if (state.has(root)) continue;
    const path: [f: Ref, next: number][] = [[root, 0]];
    state.set(root, 1);
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      const list = callees.get(top[0]) ?? [];
      if (top[1] < list.length) {
        const g = list[top[1]++]!;
        const s = state.get(g);
        if (s === 1) recursive.add(g);
        else if (s === undefined) { state.set(g, 1); path.push([g, 0]); }
        continue;
      }
      state.set(top[0], 2);
      order.push(top[0]);
      path.pop();
    }
  }
  return { order, recursive };
}
