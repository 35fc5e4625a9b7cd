// `tracker list`: the beads that match a status, a label and exact field values, in id order.
import { type Bead, labelsOf, splitAssignment } from './bead.js';

export interface ListFilter {
  status?: string;
  label?: string;
  /** `key=value` pairs; a field that is not a string is compared as its JSON text. */
  where?: string[];
}

export function listBeads(beads: Bead[], filter: ListFilter): Bead[] {
  const where = (filter.where ?? []).map((pair) => splitAssignment(pair));
  const matching = beads.filter(
    (b) =>
      (!filter.status || b.status === filter.status) &&
      (!filter.label || labelsOf(b).includes(filter.label)) &&
      where.every(([k, v]) => (typeof b[k] === 'string' ? b[k] : JSON.stringify(b[k])) === v),
  );
  return [...matching].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
