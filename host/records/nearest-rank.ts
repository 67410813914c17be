/** The nearest-rank q-quantile of ascending `sorted` (the value at rank ceil(q·n)): always one of the figures, never an interpolation or a bucket's edge. */
export function nearestRank(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
