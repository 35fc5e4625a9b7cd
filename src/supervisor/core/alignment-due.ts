// "No alignment since the last build attempt" (docs/contract/bash-interface.md §2.11, the STOP and
// ALIGN rows), read across runs: run-state records when an alignment last finished and when a build
// was last attempted, in any run (`helix run`, `helix build`, `helix align`), so a drained,
// unchanged repository after an aligned run costs the check only — not another alignment and
// another governing bead each time.

/** Whether the last finished alignment came after the last build attempt (ISO times from run-state; absent: never). */
export function alignedSinceLastBuild(lastAlignment: unknown, lastBuildAttempt: unknown): boolean {
  const aligned = typeof lastAlignment === 'string' ? Date.parse(lastAlignment) : Number.NaN;
  if (Number.isNaN(aligned)) return false;
  const built = typeof lastBuildAttempt === 'string' ? Date.parse(lastBuildAttempt) : Number.NaN;
  return Number.isNaN(built) || aligned > built;
}
