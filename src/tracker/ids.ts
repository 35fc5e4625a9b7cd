// Random bead ids and claim tokens. Kept apart from bead.ts so the read-only commands, which
// never mint either, do not load node:crypto (about 6 ms of start-up on the benchmark machine).
import { randomBytes } from 'node:crypto';

export function newBeadId(prefix: string, taken: (id: string) => boolean): string {
  for (;;) {
    const id = `${prefix}-${randomBytes(4).toString('hex')}`;
    if (!taken(id)) return id;
  }
}

export function newClaimToken(): string {
  return randomBytes(12).toString('hex');
}
