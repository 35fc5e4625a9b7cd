// The phase of a running `ddx try` (shell/try-watch.ts), read from DDx's session index as DDx
// writes a row when each session ends: intake → build → review, with the tokens spent so far,
// handed on only when the bead's sessions change. The index is a real file; the 2 s interval runs
// on vitest's fake timers.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Phase } from '../../../src/supervisor/core/run-events.js';
import { watchTryPhases } from '../../../src/supervisor/shell/try-watch.js';
import { tempDir } from '../../helpers/cli.js';

const BEAD = 'hx-0000000a';

/** Appends one session row as current DDx writes it when the session ends. */
function sessionEnded(root: string, row: Record<string, unknown>): void {
  const at = new Date();
  const folder = join(root, '.ddx', 'agent-logs', 'sessions');
  mkdirSync(folder, { recursive: true });
  const month = `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
  appendFileSync(join(folder, `sessions-${month}.jsonl`), `${JSON.stringify({ harness: 'codex', startedAt: at.toISOString(), ...row })}\n`);
}

describe('watchTryPhases', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] }));
  afterEach(() => vi.useRealTimers());

  it("moves from intake to build to review as the bead's sessions end, with what they spent", () => {
    const root = tempDir();
    const seen: Array<[Phase, number]> = [];
    const watch = watchTryPhases(root, BEAD, new Date(Date.now() - 60_000), (phase, tokens) => void seen.push([phase, tokens]));
    vi.advanceTimersByTime(2000);
    expect(seen).toEqual([]); // no session yet: nothing changed
    sessionEnded(root, { id: 'as-1', beadID: BEAD, tokens: 100 }); // the intake
    sessionEnded(root, { id: 'as-x', beadID: 'hx-other', tokens: 5000 }); // another bead's: not this attempt's
    vi.advanceTimersByTime(2000);
    expect(seen).toEqual([['build', 100]]);
    vi.advanceTimersByTime(2000);
    expect(seen).toHaveLength(1); // unchanged: not handed on again
    sessionEnded(root, { id: 'as-2', beadID: BEAD, tokens: 900, bundlePath: '.ddx/executions/x' }); // the build
    vi.advanceTimersByTime(2000);
    expect(seen).toEqual([['build', 100], ['review', 1000]]);
    watch.stop();
    sessionEnded(root, { id: 'as-3', beadID: BEAD, tokens: 50 });
    vi.advanceTimersByTime(2000);
    expect(seen).toHaveLength(2);
  });

  it('sessions that ended before the attempt started are not its phases', () => {
    const root = tempDir();
    const seen: Phase[] = [];
    sessionEnded(root, { id: 'as-0', beadID: BEAD, tokens: 7, bundlePath: '.ddx/executions/old' });
    const watch = watchTryPhases(root, BEAD, new Date(Date.now() + 60_000), (phase) => void seen.push(phase));
    vi.advanceTimersByTime(4000);
    watch.stop();
    expect(seen).toEqual([]);
  });
});
