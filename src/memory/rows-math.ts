// Counter arithmetic on stored rows (effectiveness has its one home in scoring.ts).
import type { MemoryRow } from './rows.js';

/** "Uses" = helped + failed (docs/contract/memory.md §3). */
export const uses = (row: Pick<MemoryRow, 'helped' | 'failed'>): number => row.helped + row.failed;
