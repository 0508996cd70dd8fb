/**
 * The `p`th percentile (nearest rank) of `samples` (any order; NaN when empty): shared by the
 * benchmarks and the fault tests that report latencies.
 */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
