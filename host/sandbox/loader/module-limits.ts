/**
 * The static bounds on what a module may make the engine allocate outside linear memory
 * (abi/README.md §7.1). Checked at load on the module's declared shape, before it is
 * compiled or any of its code runs; each excess is MODULE_LIMIT_EXCEEDED naming the item.
 */
import { SluiceError } from "../../errors/sluice-error.js";
import type { PluginLimits } from "../limits.js";
import type { ModuleShape } from "./wasm-shape.js";

/** The manifest key of each limit (hook.yaml `limits`), for messages that say what to change. */
export const SHAPE_LIMIT_KEYS = {
  tables: "tables", tableEntries: "table_entries", functions: "functions", globals: "globals", types: "types",
  exports: "exports", elementEntries: "element_entries", dataSegments: "data_segments", tags: "tags", locals: "locals",
  functionBytes: "function_kb", branchTargets: "branch_targets", branchTargetsTotal: "branch_targets_total",
} as const satisfies Partial<Record<keyof PluginLimits, string>>;

type ShapeLimit = keyof typeof SHAPE_LIMIT_KEYS;

function exceeded(what: string, limit: ShapeLimit, value: number, max: number, item: string): SluiceError {
  return new SluiceError("MODULE_LIMIT_EXCEEDED", `${what} declares ${item}: ${value} exceeds the plugin's ${limit} limit of ${max} (hook.yaml limits.${SHAPE_LIMIT_KEYS[limit]})`, { limit, value, max, item });
}

/** Throws MODULE_LIMIT_EXCEEDED for the first declared resource above its limit. `what` names the module in messages. */
export function checkShape(shape: ModuleShape, limits: PluginLimits, what = "module"): void {
  const counts: [ShapeLimit, number, string][] = [
    ["tables", shape.tables.length + shape.imports.filter((i) => i.kind === 1).length, "tables"],
    ["functions", shape.functions.length + shape.imports.filter((i) => i.kind === 0).length, "functions"],
    ["globals", shape.globals + shape.imports.filter((i) => i.kind === 3).length, "globals"],
    ["types", shape.types.length, "types"],
    ["exports", shape.exports.length, "exports"],
    ["elementEntries", shape.elementEntries, "element segment entries"],
    ["dataSegments", shape.dataSegments, "data segments"],
    ["tags", shape.tags + shape.imports.filter((i) => i.kind === 4).length, "exception tags"],
  ];
  for (const [limit, value, item] of counts) if (value > limits[limit]) throw exceeded(what, limit, value, limits[limit], `${value} ${item}`);
  for (const t of shape.tables) {
    if (t.initial > limits.tableEntries) throw exceeded(what, "tableEntries", t.initial, limits.tableEntries, `table ${t.index} with ${t.initial} initial entries`);
  }
  if (shape.maxLocals.count > limits.locals) {
    throw exceeded(what, "locals", shape.maxLocals.count, limits.locals, `function ${shape.maxLocals.function} with ${shape.maxLocals.count} locals`);
  }
  const { largest, total } = shape.branchTables;
  if (largest.targets > limits.branchTargets) {
    throw exceeded(what, "branchTargets", largest.targets, limits.branchTargets, `a br_table with ${largest.targets} targets in function ${largest.function}`);
  }
  if (total > limits.branchTargetsTotal) throw exceeded(what, "branchTargetsTotal", total, limits.branchTargetsTotal, `${total} br_table targets`);
  if (shape.maxBodyBytes.size > limits.functionBytes) {
    throw exceeded(what, "functionBytes", shape.maxBodyBytes.size, limits.functionBytes, `function ${shape.maxBodyBytes.function} with a ${shape.maxBodyBytes.size}-byte body`);
  }
}
