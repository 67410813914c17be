/**
 * Makes a metered module reusable across invocations (abi/README.md §8): adds an exported
 * function that sets every global the guest defines as mutable back to its initial value
 * and then runs the guest's start function, which stops being the module's start. A fresh
 * instance of the result holds exactly what a fresh instance of the original held before
 * its start function ran (its data segments written, its globals at their initial values),
 * so the worker can copy that memory once (instance-pool.ts) and, before every invocation,
 * write the copy back into a zeroed memory and call the reset: the guest then sees the state
 * a new instance of its module would give it, start function included, and pays the same fuel.
 *
 * Only modules whose every other piece of state stays as instantiation left it qualify: the
 * meter calls this only when the guest's code has no instruction that writes a table or
 * drops a segment (`table.set`, `table.grow`, `table.fill`, `table.copy`, `table.init`,
 * `data.drop`), since the reset could not undo those; other modules get a fresh instance for
 * every invocation, as all did before. Added after the meter's own pass: the reset is host
 * work and is not charged, the start function it calls is metered as before.
 */
import binaryenModule from "#binaryen";

type Raw = Record<string, (...args: number[]) => number>;
const binaryen = binaryenModule as typeof binaryenModule & Raw;

export function addReset(mod: binaryenModule.Module, exportName: string, fresh: (base: string) => string): void {
  const ptr = (mod as unknown as { ptr: number }).ptr;
  const body: number[] = [];
  for (let i = 0, n = mod.getNumGlobals(); i < n; i++) {
    const g = binaryen.getGlobalInfo(mod.getGlobalByIndex(i));
    // Imported globals are the host's (the fuel counter is the only one a guest gets).
    if (g.module || !g.mutable) continue;
    // An initializer is a constant expression: copied, so the tree keeps one parent per node.
    body.push(mod.global.set(g.name, binaryen._BinaryenExpressionCopy!(g.init, ptr)));
  }
  const start = binaryen._BinaryenGetStart!(ptr);
  if (start !== 0) {
    body.push(binaryen._BinaryenCall!(ptr, binaryen._BinaryenFunctionGetName!(start), 0, 0, binaryen.none));
    binaryen._BinaryenSetStart!(ptr, 0);
  }
  const name = fresh("sluice_reset");
  mod.addFunction(name, binaryen.none, binaryen.none, [], mod.block(null, body, binaryen.none));
  mod.addFunctionExport(name, exportName);
}
