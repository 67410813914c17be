/**
 * Instruments a core module so that it meters its own work (abi/README.md §11): binaryen
 * reads the module, every region of straight-line code is charged its instruction count
 * when it is entered, every function entry and loop header also checks the counter and
 * traps (`unreachable`) once it is below zero, and the size operand of each bulk operation
 * passes through a helper that charges for it before the operation runs. Runs on the loader
 * thread only (binaryen is a 13 MB JavaScript file that the workers never load).
 *
 * Regions: a function body, a loop body, a `try` body, the costlier arm of an `if` whose arms
 * differ by more than SHORT_ARM, and the code after a labelled block inside a block (a branch
 * target, so a join point). A block's first stretch belongs to the code that falls into it;
 * an `if` is charged with the code around it at its cheaper arm's cost, or its costlier
 * arm's when they differ little (see walk). An expression is charged in exactly one region, and a region's code runs at
 * most once per entry (a backward jump is a loop, itself a region), so the charge is an upper
 * bound of the work done, and the same for the same input on every machine. A function only
 * direct calls enter is charged its entry region at its call sites instead (call-graph.ts):
 * the guest then pays one charge, not two, where it calls one of its own small functions.
 * A load's price depends on the size of the memory (cost-model.ts, LOAD_PRICES): a region
 * is charged its loads times a global the instance sets when it starts and at each grow.
 */
import binaryenModule from "#binaryen";
import { FUEL_IMPORT } from "./counter.js";
import { LOAD_PRICES, loadPrice, BULK_OP_COST, BYTES_PER_UNIT, CALL_INDIRECT_COST, INSTRUCTION_COST, MEMORY_GROW_COST, PAGE_COST, TABLE_ENTRY_COST, RETURN_CALL_COST, TABLE_OP_COST, THROW_COST } from "./cost-model.js";
import { tableOp, tableOperands } from "./table-operands.js";
import { calleesFirst, callGraph, FIXED_CHILDREN, LISTED_CHILDREN } from "./call-graph.js";
import { addReset } from "./add-reset.js";

type Ref = number;
/** binaryen.js's raw C API (the wrapper classes cost an object per node): only what this file calls. */
type Raw = Record<string, (...args: number[]) => number>;
const binaryen = binaryenModule as typeof binaryenModule & Raw;

/** An `if` whose arms differ by at most this much is charged its costlier arm with the code around it (see walk). */
const SHORT_ARM = 32;
/**
 * A function entered only by direct calls whose entry costs more than this charges itself, as
 * one entered any other way does: call sites then never add up more than this per callee,
 * however the calls nest (a chain of functions each calling the next twice would double the
 * figure at each step).
 */
const CALL_SITE_MAX = 4096;
/** A while loop whose body costs at most this much is charged its body at the header (see whileBody). */
const WHILE_BODY = 256;

/**
 * A cost is the units of its instructions plus, counted in multiples of LOAD, its memory
 * loads, which are paid at the price the memory's size sets when the charge runs (see
 * LOAD_PRICES): a region of 20 instructions with 3 loads costs 20 + 3 * LOAD. Both parts
 * stay below 2^32 and 2^21, so the sum is exact in a double and additions add each part.
 */
const LOAD = 2 ** 32;
const loadsOf = (cost: number): number => Math.floor(cost / LOAD);
/** The instructions' units alone: what the shape of the charges (SHORT_ARM, WHILE_BODY, CALL_SITE_MAX) is decided on. */
const unitsOf = (cost: number): number => cost - loadsOf(cost) * LOAD;
const least = (a: number, b: number): number => Math.min(unitsOf(a), unitsOf(b)) + Math.min(loadsOf(a), loadsOf(b)) * LOAD;
const most = (a: number, b: number): number => Math.max(unitsOf(a), unitsOf(b)) + Math.max(loadsOf(a), loadsOf(b)) * LOAD;

/** Thrown for an instruction the meter does not know how to charge; the loader refuses the module. */
export class MeterUnsupported extends Error {}

/** What V8 in Node 20 runs without flags: binaryen then writes nothing the engine cannot read. */
const FEATURES = binaryen.Features.MVP | binaryen.Features.MutableGlobals | binaryen.Features.SignExt
  | binaryen.Features.NontrappingFPToInt | binaryen.Features.BulkMemory | binaryen.Features.SIMD128
  | binaryen.Features.ReferenceTypes | binaryen.Features.Multivalue | binaryen.Features.ExceptionHandling
  | binaryen.Features.TailCall | binaryen.Features.Atomics;

const id = {
  nop: binaryen.NopId, block: binaryen.BlockId, if: binaryen.IfId, loop: binaryen.LoopId, break: binaryen.BreakId,
  switch: binaryen.SwitchId, call: binaryen.CallId, callIndirect: binaryen.CallIndirectId, localGet: binaryen.LocalGetId,
  localSet: binaryen.LocalSetId, globalGet: binaryen.GlobalGetId, globalSet: binaryen.GlobalSetId, load: binaryen.LoadId,
  store: binaryen.StoreId, const: binaryen.ConstId, unary: binaryen.UnaryId, binary: binaryen.BinaryId,
  select: binaryen.SelectId, drop: binaryen.DropId, return: binaryen.ReturnId, memorySize: binaryen.MemorySizeId,
  memoryGrow: binaryen.MemoryGrowId, unreachable: binaryen.UnreachableId, memoryInit: binaryen.MemoryInitId,
  dataDrop: binaryen.DataDropId, memoryCopy: binaryen.MemoryCopyId, memoryFill: binaryen.MemoryFillId,
  tableGrow: binaryen.TableGrowId, tableFill: binaryen._BinaryenTableFillId!(), tableCopy: binaryen._BinaryenTableCopyId!(),
  tableInit: binaryen._BinaryenTableInitId!(), try: binaryen.TryId,
} as const;

/** The loads the default case of walk meets (a lane store is charged as a load, and an atomic returns what it read). */
const LOADS = new Set([binaryen.SIMDLoadId, binaryen.SIMDLoadStoreLaneId, binaryen.AtomicRMWId, binaryen.AtomicCmpxchgId, binaryen.AtomicWaitId, binaryen.AtomicNotifyId]);

export interface MeterOptions {
  /** Also add the reset export under this name (see add-reset.ts), if the guest's code lets the host restore all its state. */
  reset?: string;
}

/** Returns the module's bytes rewritten to meter themselves against the {@link FUEL_IMPORT} counter. */
export function meter(bytes: Uint8Array, options: MeterOptions = {}): Uint8Array {
  const mod = binaryen.readBinaryWithFeatures(bytes, FEATURES);
  try {
    return instrument(mod, options);
  } finally {
    mod.dispose();
  }
}

function instrument(mod: binaryenModule.Module, options: MeterOptions): Uint8Array {
  const fresh = (base: string, taken: (n: string) => boolean): string => {
    let name = base;
    for (let i = 1; taken(name); i++) name = `${base}_${i}`;
    return name;
  };
  // The guest's code exists before these names do, so none of it can refer to them.
  const fuel = fresh("sluice_fuel", (n) => mod.getGlobal(n) !== 0);
  const helperNames = new Set<string>();
  const helper = (base: string): string => {
    const name = fresh(base, (n) => mod.getFunction(n) !== 0 || helperNames.has(n));
    helperNames.add(name);
    return name;
  };
  const bytesHelper = helper("sluice_fuel_bytes");
  const pagesHelper = helper("sluice_fuel_pages");
  const entriesHelper = helper("sluice_fuel_entries");
  // The price of a load now (see LOAD_PRICES): set from the memory's size when the instance
  // starts (the host may hand a guest more than it declares: startPages in run-call.ts), and
  // again by each memory.grow that succeeds. A module without memory has no loads.
  const memory = mod.hasMemory() ? mod.getMemoryInfo() as { initial: number; max?: number } : undefined;
  const price = memory ? fresh("sluice_fuel_load", (n) => n === fuel || mod.getGlobal(n) !== 0) : "";

  const functions: Ref[] = [];
  for (let i = 0; i < mod.getNumFunctions(); i++) {
    const f = mod.getFunctionByIndex(i);
    if (binaryen._BinaryenFunctionGetBody!(f) !== 0) functions.push(f);
  }
  mod.addGlobalImport(fuel, FUEL_IMPORT.module, FUEL_IMPORT.name, binaryen.i64, true);

  const i64 = binaryen.i64;
  // binaryen 130 takes one BigInt here (its typings still declare the old (low, high) pair).
  const i64const = (n: number): Ref => (mod.i64.const as unknown as (v: bigint) => Ref)(BigInt(n));
  const [PAGE, MAX_PAGES] = [65_536, 65_536];
  if (memory) mod.addGlobal(price, i64, true, i64const(loadPrice(memory.initial * PAGE)));
  /** The price of a load in a memory of `pages` (an i64), as LOAD_PRICES says: a chain of selects. */
  const priceFor = (pages: () => Ref): Ref => {
    let e = i64const(LOAD_PRICES[LOAD_PRICES.length - 1]![1]);
    for (let i = LOAD_PRICES.length - 2; i >= 0; i--) {
      const [upTo, p] = LOAD_PRICES[i]!;
      e = mod.select(mod.i64.le_u(pages(), i64const(upTo / PAGE)), i64const(p), e);
    }
    return e;
  };
  /** What a charge of `cost` subtracts: its units, and its loads at the current price. */
  const amount = (cost: number): Ref => {
    const [units, loads] = [unitsOf(cost), loadsOf(cost)];
    if (loads === 0) return i64const(units);
    const perLoad = mod.global.get(price, i64);
    return mod.i64.add(i64const(units), loads === 1 ? perLoad : mod.i64.mul(i64const(loads), perLoad));
  };
  /**
   * Each charge subtracts from the counter and writes the result both to the global and to a
   * local of the function (below), so the local equals the global until the function calls
   * anything. Inside a loop without calls (see callFree), the subtraction reads the local
   * instead of the global: the loop's charges then cost no memory read, and do not wait on
   * the previous charge's write. `debits` collects the subtractions of the loop being walked.
   */
  let debits: Ref[] = [];
  const debit = (cost: number): Ref => {
    const sub = mod.i64.sub(mod.global.get(fuel, i64), amount(cost));
    debits.push(sub);
    return sub;
  };
  const charge = (cost: number): Ref => mod.global.set(fuel, mod.local.tee(tempLocal(), debit(cost), i64));
  const check = (): Ref => mod.if(mod.i64.lt_s(mod.global.get(fuel, i64), i64const(0)), mod.unreachable());

  // Each helper takes an i32 count, charges for it (and traps when the budget is gone) and returns the count unchanged.
  const addHelper = (name: string, unitsFor: (n: Ref) => Ref, then: (n: () => Ref) => Ref[] = () => []): void => {
    const n = (): Ref => mod.i64.extend_u(mod.local.get(0, binaryen.i32));
    mod.addFunction(name, binaryen.i32, binaryen.i32, [], mod.block(null, [
      mod.global.set(fuel, mod.i64.sub(mod.global.get(fuel, i64), unitsFor(n()))),
      check(),
      ...then(n),
      mod.local.get(0, binaryen.i32),
    ], binaryen.i32));
  };
  addHelper(bytesHelper, (n) => mod.i64.add(mod.i64.shr_u(n, i64const(Math.log2(BYTES_PER_UNIT))), i64const(1)));
  // A grow that will succeed (within the memory's maximum) sets the load price of the memory it leaves.
  const grown = (n: () => Ref): Ref => mod.i64.add(mod.i64.extend_u(mod.memory.size()), n());
  addHelper(pagesHelper, (n) => mod.i64.mul(n, i64const(PAGE_COST)), (n) => !memory ? [] : [
    mod.if(mod.i64.le_u(grown(n), i64const(memory.max ?? MAX_PAGES)), mod.global.set(price, priceFor(() => grown(n)))),
  ]);
  addHelper(entriesHelper, (n) => mod.i64.mul(n, i64const(TABLE_ENTRY_COST)));
  const through = (name: string, size: Ref): Ref => { calls++; return mod.call(name, [size], binaryen.i32); };

  const raw = binaryen;
  const modPtr = (mod as unknown as { ptr: number }).ptr;
  /** The entry cost of each function its callers are charged for (see call-graph.ts). */
  const entryCost = new Map<Ref, number>();
  const getId = raw._BinaryenExpressionGetId!;
  const isNamed = (block: Ref): boolean => raw._BinaryenBlockGetName!(block) !== 0;

  /** The `if` of the loop being walked that is charged at its loop's header (see whileBody). */
  let inlineIf = 0;
  /** Calls walked so far in this function (ours to the helpers included). */
  let calls = 0;
  /** Loops without calls, with their subtractions, until walkBlock reloads the local before them. */
  let callFree = new Map<Ref, Ref[]>();
  /** Set once the walk meets an instruction whose effect a reset could not undo (see add-reset.ts). */
  let writesTablesOrSegments = false;

  /**
   * A while loop, `(loop $l (if cond (then body... (br $l))))` (code may come before the
   * `if`), pays its body at the header with its condition: one charge per iteration instead
   * of two. The test that leaves the loop pays the body once more than it ran, an
   * overcharge of at most WHILE_BODY per entry into the loop.
   */
  function whileBody(body: Ref): Ref {
    let last = body;
    if (getId(body) === id.block && !isNamed(body)) {
      const n = raw._BinaryenBlockGetNumChildren!(body);
      last = n > 0 ? raw._BinaryenBlockGetChildAt!(body, n - 1) : 0;
    }
    return last !== 0 && getId(last) === id.if && raw._BinaryenIfGetIfFalse!(last) === 0 ? last : 0;
  }

  /** The inline cost of `e` (charged by the enclosing region); instruments the regions inside it. */
  function walk(e: Ref): number {
    if (e === 0) return 0;
    const kind = getId(e);
    switch (kind) {
      case id.block: return walkBlock(e);
      case id.localGet: case id.globalGet: case id.const: case id.nop: case id.unreachable: case id.memorySize:
        return INSTRUCTION_COST;
      case id.dataDrop: writesTablesOrSegments = true; return INSTRUCTION_COST;
      case id.localSet: return INSTRUCTION_COST + walk(raw._BinaryenLocalSetGetValue!(e));
      case id.globalSet: return INSTRUCTION_COST + walk(raw._BinaryenGlobalSetGetValue!(e));
      case id.load: return INSTRUCTION_COST + LOAD + walk(raw._BinaryenLoadGetPtr!(e));
      // A store waits for nothing: random stores over 256 MiB measured about 11 ns each, which the instruction covers.
      case id.store: return INSTRUCTION_COST + walk(raw._BinaryenStoreGetPtr!(e)) + walk(raw._BinaryenStoreGetValue!(e));
      case id.unary: return INSTRUCTION_COST + walk(raw._BinaryenUnaryGetValue!(e));
      case id.binary: return INSTRUCTION_COST + walk(raw._BinaryenBinaryGetLeft!(e)) + walk(raw._BinaryenBinaryGetRight!(e));
      case id.drop: return INSTRUCTION_COST + walk(raw._BinaryenDropGetValue!(e));
      case id.return: return INSTRUCTION_COST + walk(raw._BinaryenReturnGetValue!(e));
      case id.select: return INSTRUCTION_COST + walk(raw._BinaryenSelectGetIfTrue!(e)) + walk(raw._BinaryenSelectGetIfFalse!(e)) + walk(raw._BinaryenSelectGetCondition!(e));
      case id.break: return INSTRUCTION_COST + walk(raw._BinaryenBreakGetValue!(e)) + walk(raw._BinaryenBreakGetCondition!(e));
      case id.switch: return INSTRUCTION_COST + walk(raw._BinaryenSwitchGetValue!(e)) + walk(raw._BinaryenSwitchGetCondition!(e));
      case id.call: {
        calls++;
        // A callee that only direct calls enter is charged its entry here, with the code around the call.
        let cost = INSTRUCTION_COST + (raw._BinaryenCallIsReturn!(e) ? RETURN_CALL_COST : 0) + (entryCost.get(raw._BinaryenGetFunction!(modPtr, raw._BinaryenCallGetTarget!(e))) ?? 0);
        for (let i = 0, n = raw._BinaryenCallGetNumOperands!(e); i < n; i++) cost += walk(raw._BinaryenCallGetOperandAt!(e, i));
        return cost;
      }
      case id.callIndirect: {
        calls++;
        let cost = INSTRUCTION_COST + CALL_INDIRECT_COST + (raw._BinaryenCallIndirectIsReturn!(e) ? RETURN_CALL_COST : 0) + walk(raw._BinaryenCallIndirectGetTarget!(e));
        for (let i = 0, n = raw._BinaryenCallIndirectGetNumOperands!(e); i < n; i++) cost += walk(raw._BinaryenCallIndirectGetOperandAt!(e, i));
        return cost;
      }
      case id.if: {
        const cost = INSTRUCTION_COST + walk(raw._BinaryenIfGetCondition!(e));
        const [yes, no] = [raw._BinaryenIfGetIfTrue!(e), raw._BinaryenIfGetIfFalse!(e)];
        const [yesCost, noCost] = [walk(yes), walk(no)];
        // Each part at its least and its most (an arm may have more units but fewer loads).
        const [lo, hi] = [least(yesCost, noCost), most(yesCost, noCost)];
        // The body of a while loop (see whileBody) and arms that cost about the same (most of
        // them) are charged with the code around the `if`, at the cost of the costlier arm: a
        // charge inside would cost about what it saves. Otherwise the cheaper arm's cost is
        // charged around the `if` and the costlier arm pays the difference where it starts,
        // so a long arm not taken is not paid for.
        if ((e === inlineIf && unitsOf(hi) <= WHILE_BODY) || unitsOf(hi) - unitsOf(lo) <= SHORT_ARM) return cost + hi;
        if (yesCost !== lo) raw._BinaryenIfSetIfTrue!(e, prefixed(yes, [charge(yesCost - lo)]));
        if (no !== 0 && noCost !== lo) raw._BinaryenIfSetIfFalse!(e, prefixed(no, [charge(noCost - lo)]));
        return cost + lo;
      }
      case id.loop: {
        const body = raw._BinaryenLoopGetBody!(e);
        const [outerIf, outerDebits, callsBefore] = [inlineIf, debits, calls];
        inlineIf = whileBody(body);
        debits = [];
        raw._BinaryenLoopSetBody!(e, region(body, true));
        const mine = debits;
        [inlineIf, debits] = [outerIf, outerDebits];
        if (calls === callsBefore) callFree.set(e, mine);
        // An enclosing loop without calls reads the local in these too.
        for (const sub of mine) debits.push(sub);
        return INSTRUCTION_COST;
      }
      case id.try: {
        raw._BinaryenTrySetBody!(e, region(raw._BinaryenTryGetBody!(e), false));
        // A catch body begins with its `pop`, before which nothing may go: it is charged with
        // the try (it runs at most once per entry into the try).
        let cost = INSTRUCTION_COST;
        for (let i = 0, n = raw._BinaryenTryGetNumCatchBodies!(e); i < n; i++) cost += walk(raw._BinaryenTryGetCatchBodyAt!(e, i));
        return cost;
      }
      case id.memoryGrow: {
        const cost = INSTRUCTION_COST + MEMORY_GROW_COST + walk(raw._BinaryenMemoryGrowGetDelta!(e));
        raw._BinaryenMemoryGrowSetDelta!(e, through(pagesHelper, raw._BinaryenMemoryGrowGetDelta!(e)));
        return cost;
      }
      case id.memoryFill: {
        const cost = INSTRUCTION_COST + BULK_OP_COST + walk(raw._BinaryenMemoryFillGetDest!(e)) + walk(raw._BinaryenMemoryFillGetValue!(e)) + walk(raw._BinaryenMemoryFillGetSize!(e));
        raw._BinaryenMemoryFillSetSize!(e, through(bytesHelper, raw._BinaryenMemoryFillGetSize!(e)));
        return cost;
      }
      case id.memoryCopy: {
        const cost = INSTRUCTION_COST + BULK_OP_COST + walk(raw._BinaryenMemoryCopyGetDest!(e)) + walk(raw._BinaryenMemoryCopyGetSource!(e)) + walk(raw._BinaryenMemoryCopyGetSize!(e));
        raw._BinaryenMemoryCopySetSize!(e, through(bytesHelper, raw._BinaryenMemoryCopyGetSize!(e)));
        return cost;
      }
      case id.memoryInit: {
        const cost = INSTRUCTION_COST + BULK_OP_COST + walk(raw._BinaryenMemoryInitGetDest!(e)) + walk(raw._BinaryenMemoryInitGetOffset!(e)) + walk(raw._BinaryenMemoryInitGetSize!(e));
        raw._BinaryenMemoryInitSetSize!(e, through(bytesHelper, raw._BinaryenMemoryInitGetSize!(e)));
        return cost;
      }
      case id.tableGrow: {
        writesTablesOrSegments = true;
        const cost = INSTRUCTION_COST + TABLE_OP_COST + walk(raw._BinaryenTableGrowGetValue!(e)) + walk(raw._BinaryenTableGrowGetDelta!(e));
        raw._BinaryenTableGrowSetDelta!(e, through(entriesHelper, raw._BinaryenTableGrowGetDelta!(e)));
        return cost;
      }
      case id.tableFill: case id.tableCopy: case id.tableInit: {
        writesTablesOrSegments = true;
        const op = tableOp(kind)!;
        const access = tableOperands(op);
        if (!access) throw new MeterUnsupported(`uses ${op}, whose operands this host's binaryen does not expose to the fuel meter`);
        const operands = access.operands(e);
        let cost = INSTRUCTION_COST + TABLE_OP_COST;
        for (const operand of operands) cost += walk(operand);
        access.setSize(e, through(entriesHelper, operands[operands.length - 1]!));
        return cost;
      }
      default: {
        // Neither hot nor special: the instruction and its children.
        if (kind === binaryen.TableSetId || kind === binaryen.ElemDropId) writesTablesOrSegments = true;
        const getters = FIXED_CHILDREN[kind];
        const list = LISTED_CHILDREN[kind];
        if (!getters && !list) throw new MeterUnsupported(`uses an instruction the fuel meter cannot charge (binaryen expression id ${kind})`);
        // A throw pays, where it is thrown, for the unwinding and the catch it leads to; a SIMD or atomic load, as a load does.
        let cost = INSTRUCTION_COST + (kind === binaryen.ThrowId || kind === binaryen.RethrowId ? THROW_COST : 0) + (LOADS.has(kind) ? LOAD : 0);
        for (const g of getters ?? []) cost += walk(raw[`_Binaryen${g}`]!(e));
        if (list) for (let i = 0, n = raw[`_Binaryen${list[0]}`]!(e); i < n; i++) cost += walk(raw[`_Binaryen${list[1]}`]!(e, i));
        return cost;
      }
    }
  }

  /**
   * A block's children: the first stretch is charged by the enclosing region (returned);
   * after each labelled child block (a branch target) a new stretch starts, charged where it starts.
   */
  function walkBlock(block: Ref): number {
    const n = raw._BinaryenBlockGetNumChildren!(block);
    let start = -1;
    let first = 0;
    let cost = 0;
    const charges: [at: number, cost: number][] = [];
    const reloads: number[] = [];
    for (let i = 0; i < n; i++) {
      const child = raw._BinaryenBlockGetChildAt!(block, i);
      cost += walk(child);
      const cached = callFree.get(child);
      if (cached) {
        // The local is loaded from the global just before the loop, which then reads the local.
        reloads.push(i);
        for (const sub of cached) raw._BinaryenBinarySetLeft!(sub, mod.local.get(tempLocal(), i64));
        callFree.delete(child);
      }
      if (getId(child) !== id.block || !isNamed(child)) continue;
      if (start < 0) first = cost;
      else if (cost > 0) charges.push([start, cost]);
      cost = 0;
      start = i + 1;
    }
    if (cost > 0 && start >= 0 && start < n) charges.push([start, cost]);
    // Inserted from the last position back, so the positions stay right (a charge and a
    // reload at one position may go in either order: both leave the local equal to the global).
    const inserts: [at: number, code: () => Ref][] = [
      ...charges.map(([at, c]): [number, () => Ref] => [at, () => charge(c)]),
      ...reloads.map((at): [number, () => Ref] => [at, () => mod.local.set(tempLocal(), mod.global.get(fuel, i64))]),
    ].sort((a, b) => b[0] - a[0]);
    for (const [at, code] of inserts) raw._BinaryenBlockInsertChildAt!(block, at, code());
    return start < 0 ? cost : first;
  }

  /** A region's code with its charge (and, at loop headers and function entries, the check) in front. */
  function region(e: Ref, withCheck: boolean): Ref {
    const cost = walk(e);
    return prefixed(e, withCheck ? chargeAndCheck(cost) : cost > 0 ? [charge(cost)] : []);
  }

  /** `e` with `front` run before it. */
  function prefixed(e: Ref, front: Ref[]): Ref {
    if (front.length === 0) return e;
    if (getId(e) === id.block) {
      front.forEach((x, i) => raw._BinaryenBlockInsertChildAt!(e, i, x));
      return e;
    }
    return mod.block(null, [...front, e], binaryen.auto);
  }

  // The remaining fuel after a charge, kept in a local of the function for its check (one read of the global fewer).
  let temp = -1;
  let current = 0;
  const tempLocal = (): number => (temp >= 0 ? temp : (temp = raw._BinaryenFunctionAddVar!(current, i64)));
  function chargeAndCheck(cost: number): Ref[] {
    if (cost === 0) return [check()];
    const t = tempLocal();
    return [
      mod.local.set(t, debit(cost)),
      mod.global.set(fuel, mod.local.get(t, i64)),
      mod.if(mod.i64.lt_s(mod.local.get(t, i64), i64const(0)), mod.unreachable()),
    ];
  }
  // Callees first, so each call site knows what its callee's entry costs (see call-graph.ts).
  const graph = callGraph(mod, functions);
  const { order, recursive } = calleesFirst(functions, graph.callees);
  for (const f of order) {
    current = f;
    temp = -1;
    calls = 0;
    callFree = new Map();
    debits = [];
    const body = binaryen._BinaryenFunctionGetBody!(f);
    if (graph.enteredOtherwise.has(f) || recursive.has(f)) {
      binaryen._BinaryenFunctionSetBody!(f, region(body, true));
      continue;
    }
    const cost = walk(body);
    // Still checked on entry: the caller's charge may have overdrawn the budget.
    if (unitsOf(cost) <= CALL_SITE_MAX) entryCost.set(f, cost);
    binaryen._BinaryenFunctionSetBody!(f, prefixed(body, unitsOf(cost) <= CALL_SITE_MAX ? [check()] : chargeAndCheck(cost)));
  }
  if (memory) {
    // Runs first at instantiation (and in the reset, which runs the start function), before any guest code.
    const start = raw._BinaryenGetStart!(modPtr);
    const body = [mod.global.set(price, priceFor(() => mod.i64.extend_u(mod.memory.size())))];
    if (start !== 0) body.push(raw._BinaryenCall!(modPtr, raw._BinaryenFunctionGetName!(start), 0, 0, binaryen.none));
    raw._BinaryenSetStart!(modPtr, mod.addFunction(helper("sluice_fuel_load_price"), binaryen.none, binaryen.none, [], mod.block(null, body, binaryen.none)) as unknown as number);
  }
  if (options.reset !== undefined && !writesTablesOrSegments) addReset(mod, options.reset, (base) => fresh(base, (n) => mod.getFunction(n) !== 0));
  return mod.emitBinary();
}
