// Which relation a similarity link gets (docs/contract/memory.md §4, suggest-edges): a pattern next to a failure
// (or a systemic failure) solves it, two memories of one type are similar, anything else co-occurs.
import type { EdgeRelation, MemoryType } from './constants.js';

export interface Link {
  from: string;
  to: string;
  rel_type: EdgeRelation;
}

export function linkBetween(a: { name: string; type: MemoryType }, b: { name: string; type: MemoryType }): Link {
  const isFailure = (t: MemoryType) => t === 'failure' || t === 'systemic';
  if (a.type === 'pattern' && isFailure(b.type)) return { from: a.name, to: b.name, rel_type: 'solves' };
  if (b.type === 'pattern' && isFailure(a.type)) return { from: b.name, to: a.name, rel_type: 'solves' };
  if (a.type === b.type) return { from: a.name, to: b.name, rel_type: 'similar' };
  return { from: a.name, to: b.name, rel_type: 'co_occurs' };
}
