// Types for scripts/ddx-claim-race.mjs (imported by tests/ddx/claim-race.slow.test.ts).
export interface RaceTotals {
  rounds: number;
  doubles: number;
  worked: number;
  byHelix: number;
  byDdx: number;
  roundsWithDouble: number;
}
export function race(options: { version: '0.6.1' | 'current'; rounds: number; beads: number; helix?: string }): Promise<RaceTotals>;
export function raceRound(options: { version: '0.6.1' | 'current'; beads?: number; helix?: string; workMs?: number; ddxWorkMs?: number }): Promise<{ doubles: number; worked: number; byHelix: number; byDdx: number; closed: number }>;
