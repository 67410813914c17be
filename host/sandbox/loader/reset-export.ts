/**
 * The export through which the host puts a reused instance back into the state a fresh one
 * starts in (abi/README.md §8). The loader adds it while metering (fuel/add-reset.ts), only
 * to modules whose whole state it can restore; this module names it, without binaryen, so
 * the loader thread and the main thread agree on the name.
 *
 * The name is made fresh against the guest's own exports: a guest that exports something
 * called `sluice_reset` gets ours under another name, and since the meter adds no other
 * export, an export of this name in the metered module is always the host's.
 */
export const RESET_EXPORT_BASE = "sluice_reset";

export function resetExportName(guestExports: readonly string[]): string {
  const taken = new Set(guestExports);
  let name = RESET_EXPORT_BASE;
  for (let i = 1; taken.has(name); i++) name = `${RESET_EXPORT_BASE}_${i}`;
  return name;
}
