// Counter arithmetic on stored rows.
import { effectiveness as ratio } from './scoring.js';
import type { MemoryRow } from './rows.js';

/** "Uses" = helped + failed (contract). */
export const uses = (row: Pick<MemoryRow, 'helped' | 'failed'>): number => row.helped + row.failed;
export const effectiveness = (row: Pick<MemoryRow, 'helped' | 'failed'>): number => ratio(row.helped, row.failed);
