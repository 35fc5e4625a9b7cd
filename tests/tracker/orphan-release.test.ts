// Orphan release from the outside (issue #17): `helix tracker doctor --fix` releases a crashed
// attempt's claim, and the memories that attempt injected are still settled — once, as a failure —
// by the next `helix run`, exactly as when the run recovers the orphan itself. Real `helix`, real
// tracker, real SQLite memory store, the stub `ddx`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitForFile } from '../agents/process-helpers.js';
import { LOAD, Project, RUN, TWICE, WEBHOOK_BEAD as BEAD, WINDOWS } from '../learning/memory-project.js';


/** Normal mode: the recovery lines are detail, shown on stderr only without --summary. */
const NORMAL_RUN = RUN.filter((a) => a !== '--summary');

/** A `helix run` killed (SIGKILL) while its agent works on the bead: the claim and the injected names stay behind. */
async function crashMidAttempt(p: Project): Promise<number> {
  const marker = join(p.scratch, 'dispatched');
  p.script([{ when: 'execute-bead', marker, hang: true }]);
  const crashed = p.spawnHelix(RUN);
  await waitForFile(marker);
  crashed.child.kill('SIGKILL');
  await crashed.exited;
  process.kill(JSON.parse(readFileSync(marker, 'utf8')).pid, 'SIGKILL'); // the stub agent it left behind
  return crashed.child.pid!;
}

describe('tracker doctor --fix on a crashed attempt', () => {
  it('releases the claim, and the next run feeds the attempt\'s injected memories back once as a failure', async () => {
    const p = new Project();
    const names = await p.remember(WINDOWS, LOAD, TWICE);
    const id = p.bead(BEAD);
    const pid = await crashMidAttempt(p);
    expect(p.beads().get(id)).toMatchObject({ status: 'in_progress' });

    const fix = p.helix(['tracker', 'doctor', '--fix'], { HELIX_ORPHAN_THRESHOLD: '0' });
    expect(fix.status).toBe(0);
    expect(fix.stderr).toContain(`helix: released stale claim ${id}`);
    expect(fix.stderr).toContain(`helix: ${id}: 3 injected memory name(s) kept on the bead for the next helix run's feedback`);
    expect(p.beads().get(id)).toMatchObject({ status: 'open' });
    expect(p.beads().get(id)).not.toHaveProperty('claimed-pid', String(pid));
    // doctor cannot reach the memory store: nothing is judged yet
    expect(Object.values(p.counts()).every((m) => m.helped === 0 && m.failed === 0)).toBe(true);

    p.script([{ when: 'execute-bead', result: {} }]);
    const next = p.helix(NORMAL_RUN);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr.match(new RegExp(`fed back 3 memories of the interrupted attempt on ${id}`, 'g'))).toHaveLength(1);
    expect(p.beads().get(id)).toMatchObject({ status: 'closed' });
    // the interrupted attempt: failed += 0.5 once; the retry's verified success: helped += 0.5
    const after = p.counts();
    for (const name of names) expect(after[name]).toMatchObject({ helped: 0.5, failed: 0.5 });

    // settled once: a later run and a later doctor find nothing left to feed back
    expect(p.helix(['tracker', 'doctor', '--fix'], { HELIX_ORPHAN_THRESHOLD: '0' }).stderr).not.toContain('kept on the bead');
    const again = p.helix(NORMAL_RUN);
    expect(again.stderr).not.toMatch(/fed back/);
    expect(p.counts()).toEqual(after);
  });
});
