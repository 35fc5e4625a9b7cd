// The fingerprint of a bead (docs/contract/cli.md §6.3): the governance fields whose change during an
// attempt means the work may no longer be what was asked for (queue drift).
import { type Bead, allDependencyIds } from './bead.js';
import { isEligibleByGovernance } from './ready.js';

export interface Fingerprint {
  'spec-id': string;
  parent: string;
  'superseded-by': string;
  replaces: string;
  dependencies: string[];
  'execution-eligible': boolean;
}

const text = (value: unknown): string => (value == null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

// A park (DDx's `work-retry-after` after a failed `ddx try`) is scheduling, not governance: it
// never changes the fingerprint, so a parked attempt is a failed attempt, not drift.
export function fingerprintOf(bead: Bead, _now?: Date): Fingerprint {
  return {
    'spec-id': text(bead['spec-id']),
    parent: text(bead.parent),
    'superseded-by': text(bead['superseded-by']),
    replaces: text(bead.replaces),
    dependencies: [...new Set(allDependencyIds(bead))].sort(),
    'execution-eligible': isEligibleByGovernance(bead),
  };
}

/** A stable one-line form, equal exactly when the fingerprints are equal. */
export function fingerprintKey(fingerprint: Fingerprint): string {
  return JSON.stringify(fingerprint);
}

/** Names of the fields that differ, for the drift message and the log. */
export function fingerprintChanges(before: Fingerprint, after: Fingerprint): string[] {
  return (Object.keys(before) as Array<keyof Fingerprint>).filter(
    (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
}
